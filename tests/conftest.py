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


def pytest_collection_modifyitems(config, items):
    for item in items:
        name = item.path.name
        if name in _ORACLE_MODULES or {"hermes_oracle", "hermes_oracle_at"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.oracle)
        if name == "test_terminal.py":
            item.add_marker(pytest.mark.tmux)
# ---- end markers --------------------------------------------------------------------------------

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
