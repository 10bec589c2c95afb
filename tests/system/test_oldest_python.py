"""The oldest Python the project supports (3.10, `requires-python`) runs what 3.11 runs.

mypy checks for 3.10 (pyproject's `[tool.mypy] python_version`), but only a real 3.10 proves a call is
there at run time. These run the module under test with a 3.10 interpreter (pyenv's, or `python3.10` on
PATH; skipped where there is none) against the source tree, with the test venv's pure-Python
dependencies after its own standard library.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sysconfig
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.python310  # a real component: under CI=true its skip fails the run (tests/conftest.py)


def _python310() -> str | None:
    found = shutil.which("python3.10")
    pyenv = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.10*/bin/python3.10")))
    candidates = ([found] if found else []) + pyenv
    for candidate in candidates:
        probe = subprocess.run([candidate, "-c", "import sys; print(sys.version_info[:2])"],
                               capture_output=True, text=True)
        if probe.returncode == 0 and probe.stdout.strip() == "(3, 10)":
            return candidate
    return None


def _run_on_310(tmp_path: Path, script: str) -> subprocess.CompletedProcess[str]:
    python = _python310()
    if python is None:
        pytest.skip("no Python 3.10 interpreter on this machine")
    links = tmp_path / "importable"
    links.mkdir()
    (links / "hermes_wizard").symlink_to(REPO / "wizard")  # the import name, as pyproject's package-dir installs it
    path = os.pathsep.join([str(links), sysconfig.get_paths()["purelib"]])
    return subprocess.run([python, "-c", f"import sys; sys.path[1:1] = {path.split(os.pathsep)!r}\n"
                           + textwrap.dedent(script)], capture_output=True, text=True, cwd=tmp_path,
                          env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path),
                               "PYTHONDONTWRITEBYTECODE": "1"}, timeout=120)  # no 3.10 caches in the source tree


def test_backup_sets_are_pruned_discarded_and_rolled_back_on_310(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".env").write_text("A=1\n")
    done = _run_on_310(tmp_path, f"""
        import os
        from pathlib import Path
        from hermes_wizard.core.homefs import HomeDir, digest
        from hermes_wizard.write import backups

        home = Path({str(home)!r})
        sets = home / ".wizard-backups"
        with HomeDir(home) as opened:
            made = [backups.make_backup(opened, {{".env": opened.place(".env")}}, "test")
                    for _ in range(backups.KEEP_BACKUPS + 1)]
            for backup in made:
                backups.close_journal(opened, backup)    # prunes past KEEP_BACKUPS
            print("after prune", len(os.listdir(sets)))
            extra = backups.make_backup(opened, {{".env": opened.place(".env")}}, "test")
            backups.discard(opened, extra)
            print("after discard", len(os.listdir(sets)))
            backups.make_backup(opened, {{".env": opened.place(".env")}}, "test", new={{".env": digest(b"A=2\\n")}})
            (home / ".env").write_text("A=2\\n")        # the interrupted run's write
            os.mkdir(sets / "20000101-000000")           # killed while backing up: no manifest
            print(backups.recover(opened))
            print("after recover", len(os.listdir(sets)), (home / ".env").read_text().strip())
    """)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"after prune {20}" and lines[1] == "after discard 20", done.stdout
    assert "rolled back: .env as before it" in lines[2], done.stdout
    assert lines[3] == "after recover 20 A=1", done.stdout
