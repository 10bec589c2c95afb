"""`hermes-wizard` with no command and no terminal (a pipe, CI, Ansible): nothing is asked, nothing is written;
it says what it would have opened on which home, prints the commands that need no terminal for that home, and
exits 2.  (On a terminal it opens the wizard: tests/system/test_face_selection.py.)"""

from __future__ import annotations

import io
import shutil
import sys
from pathlib import Path

import pytest
from in_process import wizard_in_process

DEMO = Path(__file__).resolve().parents[2] / "assets" / "homes" / "death-loop"


@pytest.fixture
def no_terminal(tmp_path, monkeypatch):
    """HOME in tmp_path (so ~/.hermes is there) and a stdin that is not a terminal."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    return tmp_path / ".hermes"


def _tree(root: Path) -> list[str]:
    return sorted(str(p) for p in root.rglob("*"))


@pytest.mark.parametrize("state", ["missing", "only Hermes's code"])
def test_without_a_terminal_a_new_home_gets_setups_commands(no_terminal, state):
    if state != "missing":
        (no_terminal / "hermes-agent").mkdir(parents=True)
    before = _tree(no_terminal.parent)
    done = wizard_in_process()
    assert done.returncode == 2 and done.stdout == "", done
    assert "stdin is not a terminal: nothing was asked and nothing was written" in done.stderr
    assert f"Hermes home: {no_terminal} (not set up yet)" in done.stderr
    assert "  hermes-wizard setup --answers FILE.yaml" in done.stderr
    assert "--token-from-env TELEGRAM_BOT_TOKEN --allow 123456789" in done.stderr
    assert "doctor" not in done.stderr and "usage:" not in done.stderr
    assert _tree(no_terminal.parent) == before


def test_without_a_terminal_a_home_with_files_gets_the_doctors_commands(no_terminal):
    shutil.copytree(DEMO, no_terminal)
    before = {p: p.read_bytes() for p in no_terminal.rglob("*") if p.is_file()}
    done = wizard_in_process()
    assert done.returncode == 2 and done.stdout == "", done
    assert f"Hermes home: {no_terminal}. Without questions:" in done.stderr
    for command in ("hermes-wizard check ", "hermes-wizard doctor --dry-run ", "hermes-wizard doctor --fix --yes "):
        assert f"\n  {command}" in done.stderr, done.stderr
    assert {p: p.read_bytes() for p in no_terminal.rglob("*") if p.is_file()} == before
