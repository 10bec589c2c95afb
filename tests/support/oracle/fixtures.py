"""Pytest fixtures and the summary hook for the Hermes-oracle tests.

Imported by ``tests/conftest.py`` (names must stay importable from there):

* ``hermes_oracle_at`` -- session-scoped factory: ``hermes_oracle_at(version)``
  is the :class:`oracle.Oracle` of that Hermes version, one probe process per
  version for the whole run. Fails under ``CI`` / skips locally (with the
  reason) when that version's venv is missing.
* ``hermes_oracle`` -- ``hermes_oracle_at("0.19.0")`` (the same process).
* ``pytest_terminal_summary`` -- prints how many homes were compared with each
  Hermes version.
"""

from __future__ import annotations

import pytest

from . import HERMES_VERSION, VERSIONS, Oracle, fork_differences, require_oracle


def _counts() -> dict:
    return {"generated": 0, "hand_written": 0, "oracle_homes": 0, "oracle_seconds": 0.0}


# Filled in by the conformance tests, reported at the end of the run, per Hermes version.
STATS: dict[str, dict] = {version: _counts() for version in VERSIONS}
# More lines for that report (tests/conformance/test_repair_conformance.py adds its counts here).
SUMMARY: list[str] = []


@pytest.fixture(scope="session")
def hermes_oracle_at(tmp_path_factory):
    oracles: dict[str, Oracle] = {}

    def at(version: str = HERMES_VERSION) -> Oracle:
        require_oracle(version)
        if version not in oracles:
            oracles[version] = Oracle(tmp_path_factory.mktemp(f"hermes-oracle-{version}"), version=version)
        return oracles[version]

    yield at
    for version, oracle in oracles.items():
        oracle.close()
        counts = STATS.setdefault(version, _counts())
        counts["oracle_homes"] += oracle.evaluated
        counts["oracle_seconds"] += oracle.seconds


@pytest.fixture(scope="session")
def hermes_oracle(hermes_oracle_at):
    return hermes_oracle_at(HERMES_VERSION)


def _summary_lines() -> list[str]:
    lines = []
    for version, counts in STATS.items():
        total = counts["generated"] + counts["hand_written"]
        if total:
            lines.append(f"hermes conformance: {total} homes compared with Hermes {version} "
                         f"({counts['generated']} generated, {counts['hand_written']} hand-written); "
                         f"oracle answered {counts['oracle_homes']} homes in {counts['oracle_seconds']:.1f}s")
    return lines + fork_differences.summary_lines() + SUMMARY


_FROM_WORKERS: list[str] = []  # under pytest-xdist: what each worker's suites counted (the controller prints it)


def pytest_sessionfinish(session):
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: its terminal summary is never shown, so hand the lines over
        workeroutput["hermes_summary"] = _summary_lines()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    _FROM_WORKERS.extend(getattr(node, "workeroutput", {}).get("hermes_summary", []))


def pytest_terminal_summary(terminalreporter):
    for line in _summary_lines() + _FROM_WORKERS:
        terminalreporter.write_line(line)
