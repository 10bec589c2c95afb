"""Conformance: our ``check`` decides exactly as the real Hermes does, for each version in ``oracle.VERSIONS``.

Hermes is the oracle (tests/support/oracle/: ``probe.py`` runs inside the oracle venv,
one long-lived process for the whole session). For every home -- at least
``MIN_GENERATED`` distinct hypothesis-generated ones (tests/support/homegen.py) plus the
hand-written ones (tests/support/oracle/cases.py) -- ``would_start``, the refusing
platform, the enabled platforms and the exit code must match
(tests/support/oracle/compare.py). Every test runs once per Hermes version (0.19.0,
0.18.2): the oracle of that version answers, and our side judges the same home
with ``check --hermes-version <version>``. A disagreement prints the home's
files and both answers.

Generation is derandomized (same homes every run, CI-stable); set
``CONFORMANCE_RANDOM=1`` to explore new ones, ``CONFORMANCE_EXAMPLES=N`` for more. The full size is marked
slow; the fast loop (``-m "not slow"``) compares a quarter of it (``QUICK_*``) instead.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import homegen
import pytest
from hypothesis import HealthCheck, given, settings
from oracle import VERSIONS
from oracle.cases import CASES
from oracle.compare import assert_conforms, env_flag
from oracle.fixtures import STATS

MIN_GENERATED = 300
# Hypothesis draws some homes more than once; this many draws give >= MIN_GENERATED distinct ones.
EXAMPLES = max(int(os.environ.get("CONFORMANCE_EXAMPLES", "0") or 0), 640)
# The fast loop's stand-in (`-m "not slow"`): a quarter of the draws, the same comparison. The full run is
# marked slow; where it is selected, the quick one is not (tests/conftest.py, stand_in).
QUICK_EXAMPLES, QUICK_MIN_GENERATED = 160, 75
SIZES = [pytest.param("full", marks=pytest.mark.slow), pytest.param("quick", marks=pytest.mark.stand_in)]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_hand_written_home_matches_hermes(case, version, hermes_oracle_at, tmp_path):
    hermes_oracle = hermes_oracle_at(version)
    home = case.write(tmp_path / case.name)
    answer = hermes_oracle.evaluate(home)
    STATS[version]["hand_written"] += 1  # compared, whether or not we agree
    label = f"hand-written home {case.name!r}" + (f" ({case.note})" if case.note else "")
    assert_conforms(home, answer, label=label, host_env=hermes_oracle.host_env(), version=version)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("version", VERSIONS)
def test_generated_homes_match_hermes(version, size, hermes_oracle_at, tmp_path_factory):
    hermes_oracle = hermes_oracle_at(version)
    examples, minimum = (EXAMPLES, MIN_GENERATED) if size == "full" else (QUICK_EXAMPLES, QUICK_MIN_GENERATED)
    root = Path(tmp_path_factory.mktemp("generated"))
    answers: dict = {}  # home key -> Hermes's answer; duplicates reuse it (hypothesis replays examples)
    host = hermes_oracle.host_env()

    @settings(max_examples=examples, derandomize=not env_flag("CONFORMANCE_RANDOM"), database=None,
              deadline=None, suppress_health_check=list(HealthCheck))
    @given(spec=homegen.homes())
    def check(spec: homegen.HomeSpec) -> None:
        home = spec.write(Path(tempfile.mkdtemp(prefix="home-", dir=root)))
        key = spec.key()
        if key not in answers:
            answers[key] = hermes_oracle.evaluate(home)
        assert_conforms(home, answers[key], label=repr(spec), host_env=host, version=version)

    try:
        check()
    finally:  # the count says how far the comparison got, also when it stopped at a disagreement
        STATS[version]["generated"] += len(answers)
    print(f"compared {len(answers)} distinct generated homes with Hermes {version}")
    assert len(answers) >= minimum, f"only {len(answers)} distinct generated homes were compared"
