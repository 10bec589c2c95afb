"""Under CI=true a skipped test of a real component fails the run (tests/conftest.py, the CI section).

A tiny test file is run by a real pytest in a subprocess, with tests/conftest.py loaded as a plugin,
once without CI, once with CI=false and once with CI=true: locally every skip stays a skip; in CI the
skips of tests marked systemd, keyring, tmux, oracle, ssh or wheel become failures naming the reason,
while an unmarked test's skip stays a skip and an expected failure stays expected.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]  # tests/, where conftest.py is
TINY = '''
import pytest

@pytest.mark.tmux
def test_tmux_missing():
    pytest.skip("tmux is not installed")

@pytest.mark.keyring
@pytest.mark.skipif(True, reason="gnome-keyring is not installed")
def test_keyring_missing():
    pass

@pytest.fixture
def booted():
    pytest.skip("namespaces are not permitted here")

@pytest.mark.systemd
def test_systemd_missing(booted):
    pass

def test_an_ordinary_skip():
    pytest.skip("root reads a chmod-000 file anyway")

@pytest.mark.ssh
@pytest.mark.xfail(reason="known")
def test_an_expected_failure():
    assert False

@pytest.mark.oracle
def test_a_pass():
    pass
'''


def outcomes(folder: Path, ci: str | None) -> tuple[int, dict[str, tuple[str, str]]]:
    """pytest's exit code and, per test, (outcome, message) read from its JUnit XML."""
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}
    env["PYTHONPATH"] = str(TESTS)
    if ci is not None:
        env["CI"] = ci
    report = folder / f"report-{ci}.xml"
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider", "-q",
                           "-W", "ignore::pytest.PytestUnknownMarkWarning", f"--junitxml={report}", "test_tiny.py"],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=120)
    seen: dict[str, tuple[str, str]] = {}
    for case in ET.parse(report).iter("testcase"):
        child = next(iter(case), None)
        tag = child.tag if child is not None and child.tag in ("failure", "error", "skipped") else "passed"
        seen[case.get("name")] = (tag, (child.get("message") or "") if tag != "passed" else "")
    return done.returncode, seen


@pytest.fixture
def tiny(tmp_path) -> Path:
    (tmp_path / "test_tiny.py").write_text(TINY)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")  # this folder is the rootdir, not the repository
    return tmp_path


@pytest.mark.parametrize("ci", [None, "false"])
def test_outside_ci_a_missing_component_is_a_skip(tiny, ci):
    code, seen = outcomes(tiny, ci)
    assert code == 0
    assert {name: tag for name, (tag, _) in seen.items()} == {
        "test_tmux_missing": "skipped", "test_keyring_missing": "skipped", "test_systemd_missing": "skipped",
        "test_an_ordinary_skip": "skipped", "test_an_expected_failure": "skipped", "test_a_pass": "passed"}


def test_under_ci_a_missing_component_fails_the_run(tiny):
    code, seen = outcomes(tiny, "true")
    assert code == 1
    assert seen["test_tmux_missing"][0] == "failure"
    assert seen["test_keyring_missing"][0] == "error"  # skipped at setup (skipif): an error in setup
    assert seen["test_systemd_missing"][0] == "error"  # skipped by its fixture
    for name, reason in [("test_tmux_missing", "tmux is not installed"),
                         ("test_keyring_missing", "gnome-keyring is not installed"),
                         ("test_systemd_missing", "namespaces are not permitted here")]:
        assert "CI=true" in seen[name][1] and reason in seen[name][1], seen[name]
    assert seen["test_an_ordinary_skip"] == ("skipped", "root reads a chmod-000 file anyway")
    assert seen["test_an_expected_failure"][0] == "skipped"  # JUnit's word for xfail: not turned into a failure
    assert seen["test_a_pass"][0] == "passed"


def test_every_conformance_test_is_marked_oracle():
    """tests/conformance/ is the differential suites against the real Hermes: the folder marks them `oracle`
    (tests/conftest.py), so a new suite there cannot skip under CI for want of its marker."""
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}
    unmarked = subprocess.run([sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider",
                               "-m", "not oracle", "tests/conformance"], cwd=TESTS.parent, env=env,
                              capture_output=True, text=True, timeout=300)
    # 5: every test was collected (a broken collection exits 1 or 2) and every one deselected
    assert unmarked.returncode == 5, unmarked.stdout[-2000:] + unmarked.stderr[-2000:]
    assert " deselected" in unmarked.stdout, unmarked.stdout[-2000:]
