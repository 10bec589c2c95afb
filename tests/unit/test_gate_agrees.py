"""`check` and `check --gate` are one decision: on every conformance home, for every modelled Hermes version
the conformance suites judge, the gate exits 78 exactly when `check` exits 78 (a refusal or a crash at
start, wizard/faces/gate.py), and 0 otherwise.

The homes are the hand-written ones (tests/support/oracle/cases.py) and the generated corpus (tests/support/homegen.py);
no oracle is needed: both sides are ours, run in-process with the same environment.
"""

from __future__ import annotations

import json

import homegen
import pytest
from in_process import wizard_in_process
from oracle import VERSIONS, model_version
from oracle.cases import CASES

GENERATED = {"full": 300, "quick": 100}  # generated homes per run; the fast loop runs the quick stand-in
SIZES = [pytest.param("full", marks=pytest.mark.slow), pytest.param("quick", marks=pytest.mark.stand_in)]
# One worker runs the module (xdist --dist loadgroup): the module-scoped homes are then generated once.
pytestmark = pytest.mark.xdist_group("gate-agrees")


def _run(argv: list[str]) -> tuple[int, str]:
    done = wizard_in_process(*argv)
    return done.returncode, done.stdout + done.stderr


@pytest.fixture(scope="module")
def homes_of_size(tmp_path_factory):
    """size -> the hand-written homes and GENERATED[size] generated ones, written once per module."""
    written: dict[str, list] = {}

    def homes(size: str) -> list:
        if size not in written:
            root = tmp_path_factory.mktemp(f"conformance-homes-{size}")
            found = [(f"hand-written {case.name!r}", case.write(root / case.name)) for case in CASES]
            found += [(repr(spec), spec.write(root / f"gen{i:04d}"))
                      for i, spec in enumerate(homegen.corpus(GENERATED[size]))]
            written[size] = found
        return written[size]
    return homes


@pytest.mark.parametrize("version", [model_version(v) for v in VERSIONS])  # the models the oracles judge by
@pytest.mark.parametrize("size", SIZES)
def test_check_and_the_gate_never_disagree(homes_of_size, size, version):
    conformance_homes = homes_of_size(size)
    pin = ["--hermes-version", version]
    disagreements, stopped = [], 0
    for label, home in conformance_homes:
        check_rc, report = _run(["check", "--home", str(home), "--format", "json", *pin])
        gate_rc, line = _run(["check", "--gate", "--home", str(home), *pin])
        stopped += gate_rc == 78
        if gate_rc not in (0, 78) or (gate_rc == 78) != (check_rc == 78):
            try:
                refusal = json.loads(report).get("refusal")
            except ValueError:
                refusal = report[-300:]
            disagreements.append(f"{label}: check exit {check_rc} (refusal {refusal}), gate exit {gate_rc}: "
                                 f"{line.strip()[-300:]}")
    assert not disagreements, f"{len(disagreements)} of {len(conformance_homes)} homes:\n" + "\n".join(
        disagreements[:20])
    assert stopped, "no home stopped by the gate: the comparison compared nothing"
