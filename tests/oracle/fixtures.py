"""Pytest fixtures and the summary hook for the Hermes-oracle tests.

Imported by ``tests/conftest.py`` (names must stay importable from there):

* ``hermes_oracle`` -- session-scoped :class:`oracle.Oracle`, one probe process
  for the whole run. Fails under ``CI`` / skips locally when the venv is missing.
* ``pytest_terminal_summary`` -- prints how many homes were compared with Hermes.
"""

from __future__ import annotations

import pytest

from . import Oracle, require_oracle

# Filled in by the conformance tests, reported at the end of the run.
STATS = {"generated": 0, "hand_written": 0, "oracle_homes": 0, "oracle_seconds": 0.0}
# More lines for that report (tests/test_repair_conformance.py adds its counts here).
SUMMARY: list[str] = []


@pytest.fixture(scope="session")
def hermes_oracle(tmp_path_factory):
    require_oracle()
    oracle = Oracle(tmp_path_factory.mktemp("hermes-oracle"))
    yield oracle
    oracle.close()
    STATS["oracle_homes"] += oracle.evaluated
    STATS["oracle_seconds"] += oracle.seconds


def pytest_terminal_summary(terminalreporter):
    total = STATS["generated"] + STATS["hand_written"]
    if total:
        terminalreporter.write_line(
            f"hermes conformance: {total} homes compared with Hermes 0.19.0 "
            f"({STATS['generated']} generated, {STATS['hand_written']} hand-written); "
            f"oracle answered {STATS['oracle_homes']} homes in {STATS['oracle_seconds']:.1f}s"
        )
    for line in SUMMARY:
        terminalreporter.write_line(line)
