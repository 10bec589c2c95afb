"""Shared pytest configuration. Each section below is owned by one area; keep them delimited."""

# ---- hermes oracle / conformance (tests/oracle/) -----------------------------------------
# Fixtures live in tests/oracle/fixtures.py; this block only makes them visible.
import sys
from pathlib import Path

if str(Path(__file__).parent) not in sys.path:  # `import oracle`, `import homegen` from any rootdir
    sys.path.insert(0, str(Path(__file__).parent))

# ---- end hermes oracle / conformance -----------------------------------------------------
# ---- markers: `-m "not oracle and not tmux and not slow"` is the fast loop --------------------
import pytest
from oracle.fixtures import hermes_oracle, hermes_oracle_at, pytest_terminal_summary  # noqa: F401

_ORACLE_MODULES = {"test_conformance.py", "test_e2e_gateway.py", "test_repair_conformance.py", "test_hermes_data.py",
                   "test_probe.py", "test_verify.py"}


def pytest_configure(config):
    # pyproject.toml registers oracle, tmux, systemd and slow; these are the rest of the real components.
    config.addinivalue_line("markers", "keyring: talks to a real Secret Service (gnome-keyring under D-Bus)")
    config.addinivalue_line("markers", "ssh: runs a real sshd and ssh client")
    config.addinivalue_line("markers", "wheel: builds the wheel and installs it in fresh venvs")


def pytest_collection_modifyitems(config, items):
    for item in items:
        name = item.path.name
        if name in _ORACLE_MODULES or {"hermes_oracle", "hermes_oracle_at"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.oracle)
        if name == "test_terminal.py":
            item.add_marker(pytest.mark.tmux)
# ---- end markers --------------------------------------------------------------------------------

# ---- under CI=true a real component may not skip ------------------------------------------------
# A test marked with one of these proves something against the real thing (a booted systemd or
# systemd-analyze, a Secret Service, tmux, the real Hermes, sshd, the installed wheel).  Locally a
# missing component is a skip; in CI a skip would be green while proving nothing, so it fails.
# Skips of unmarked tests (root reads a chmod-000 file anyway, no tmpfs mount permitted) stay skips.
import os  # noqa: E402

REAL_COMPONENT_MARKERS = ("systemd", "keyring", "tmux", "oracle", "ssh", "wheel")


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if not report.skipped or hasattr(report, "wasxfail") or not _in_ci():
        return
    needs = [name for name in REAL_COMPONENT_MARKERS if item.get_closest_marker(name)]
    if not needs:
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    report.outcome = "failed"
    report.longrepr = (f"CI=true: this test of a real component ({', '.join(needs)}) skipped, which proves "
                       f"nothing: {reason}")
# ---- end under CI=true --------------------------------------------------------------------------

# ---- the bundled demo home ----------------------------------------------------------------------
import shutil  # noqa: E402

DEMO_HOME = Path(__file__).resolve().parents[1] / "assets" / "homes" / "death-loop"


@pytest.fixture
def demo(tmp_path) -> Path:
    """A fresh copy of the bundled demo home (the 0.19 restart loop), `.env` at 0600 (git keeps no modes)."""
    home = tmp_path / "home"
    shutil.copytree(DEMO_HOME, home)
    (home / ".env").chmod(0o600)
    return home
# ---- end the bundled demo home -------------------------------------------------------------------
