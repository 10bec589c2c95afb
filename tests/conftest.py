"""Shared pytest configuration. Each section below is owned by one area; keep them delimited.

The layout of tests/ (ARCHITECTURE.md, "Where things go"), and where a new test goes:

* ``unit/`` -- the wizard's own behaviour, in-process or as a user runs the CLI; may ask the real Hermes
  to confirm a result (those tests are marked ``oracle`` by their fixture or their own ``pytestmark``).
* ``conformance/`` -- differential suites against the real Hermes: every test here is marked ``oracle``
  (by folder, below). A suite parametrized over ``oracle.VERSIONS`` sits in ``conformance/`` itself; cases
  for one Hermes version only sit in ``conformance/v0_XX/`` (as ``wizard/hermes/v0_XX``).
* ``tui/`` -- the Textual screens driven by Pilot, and their SVG snapshots.
* ``system/`` -- real components of the machine: a booted systemd, tmux, ssh, a Secret Service, the built
  wheel, ansible-playbook, the plugin in Hermes's venv, throw-away user accounts. Each such test carries
  its component's marker (``systemd``, ``tmux``, ``ssh``, ``keyring``, ``wheel``, ``python310``) so CI
  cannot skip it.
* ``support/`` -- helpers, never tests: the oracle harness (``oracle/``), home generators, fake systemd,
  fake Hermes, tmux drivers. It is on ``sys.path``: ``import oracle``, ``import homegen``.

``tests/`` is on ``sys.path`` too, so a test that reuses another test module's fixture or helper names its
package: ``from system.test_root_homes import user_home``; a helper many modules share belongs in ``support/``.
"""

# ---- hermes oracle / conformance (tests/support/oracle/) ------------------------------------
# Fixtures live in tests/support/oracle/fixtures.py; this block only makes them visible.
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
for _folder in (TESTS, TESTS / "support"):  # `import oracle`, `from system.test_root_homes import ...`
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))

# ---- end hermes oracle / conformance -----------------------------------------------------
# ---- markers: `-m "not oracle and not tmux and not slow"` is the fast loop --------------------
from oracle.fixtures import (  # noqa: E402, F401  (the last three: the suites' counts, from xdist workers too)
    hermes_oracle,
    hermes_oracle_at,
    pytest_sessionfinish,
    pytest_terminal_summary,
    pytest_testnodedown,
)
from service_box import box  # noqa: E402, F401  (the fake systemd machine: unit/, system/ and tui/ tests use it)

CONFORMANCE = TESTS / "conformance"  # every test under it asks the real Hermes


def pytest_configure(config):
    # pyproject.toml registers oracle, tmux, systemd and slow; these are the rest of the real components.
    config.addinivalue_line("markers", "keyring: talks to a real Secret Service (gnome-keyring under D-Bus)")
    config.addinivalue_line("markers", "ssh: runs a real sshd and ssh client")
    config.addinivalue_line("markers", "wheel: builds the wheel and installs it in fresh venvs")
    config.addinivalue_line("markers", "python310: runs code under a real Python 3.10, the oldest supported")
    config.addinivalue_line("markers", "stand_in: a smaller run of its module's slow tests, for the fast loop; "
                                       "deselected wherever one of those slow tests is selected")
    config.pluginmanager.register(StandIns(), "hermes-wizard-stand-ins")


def pytest_collection_modifyitems(config, items):
    # Keyed on the folder and on the fixtures, never on file names: a moved or new file keeps its marker.
    for item in items:
        if item.path.is_relative_to(CONFORMANCE) or {"hermes_oracle", "hermes_oracle_at"} & set(
                getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.oracle)


class StandIns:
    """A `stand_in` test is a smaller run of its module's slow tests (tests/conformance/test_repair_conformance.py:
    a fifth of the sweep), so the fast loop (-m "not slow") keeps the proof at a smaller size. Where a slow test
    of that module is selected too (the whole suite), the stand-in would only repeat part of it: deselected."""

    @pytest.hookimpl(trylast=True)  # after -m and -k have deselected
    def pytest_collection_modifyitems(self, config, items):
        full = {item.path for item in items if item.get_closest_marker("slow")}
        repeats = [item for item in items if item.get_closest_marker("stand_in") and item.path in full]
        if repeats:
            config.hook.pytest_deselected(items=repeats)
            items[:] = [item for item in items if item not in repeats]
# ---- end markers --------------------------------------------------------------------------------

# ---- under CI=true a real component may not skip ------------------------------------------------
# A test marked with one of these proves something against the real thing (a booted systemd or
# systemd-analyze, a Secret Service, tmux, the real Hermes, sshd, the installed wheel).  Locally a
# missing component is a skip; in CI a skip would be green while proving nothing, so it fails.
# Skips of unmarked tests (root reads a chmod-000 file anyway, no tmpfs mount permitted) stay skips.

from scratch_root import in_ci  # noqa: E402

REAL_COMPONENT_MARKERS = ("systemd", "keyring", "tmux", "oracle", "ssh", "wheel", "python310")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if not report.skipped or hasattr(report, "wasxfail") or not in_ci():
        return
    needs = [name for name in REAL_COMPONENT_MARKERS if item.get_closest_marker(name)]
    if not needs:
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    report.outcome = "failed"
    report.longrepr = (f"CI=true: this test of a real component ({', '.join(needs)}) skipped, which proves "
                       f"nothing: {reason}")
# ---- end under CI=true --------------------------------------------------------------------------

# ---- a scratch root other users can reach -----------------------------------------------------------
# pytest's tmp_path lies under the temp dir, which may be 0700 (so may /tmp): a test whose files a throw-away
# user or `nobody` must open puts them here (tests/support/scratch_root.py chooses the place by checking it).
from scratch_root import scratch_root  # noqa: E402


@pytest.fixture
def everyone_scratch():
    """A new folder (0755) every user can pass through, in a place whose every ancestor lets them; removed
    afterwards.  None such: the test fails under CI=true, and skips saying why elsewhere."""
    with scratch_root("hw-everyone-") as folder:
        yield folder
# ---- end a scratch root other users can reach ---------------------------------------------------------

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
