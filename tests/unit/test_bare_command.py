"""`hermes-wizard` with no command and no terminal (a pipe, CI, Ansible): nothing is asked, nothing is written;
it says what it would have opened on which home, prints the commands that need no terminal for that home, and
exits 2.  (On a terminal it opens the wizard: tests/system/test_face_selection.py.)"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
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


def test_a_home_path_with_control_characters_is_printed_escaped(no_terminal, tmp_path, monkeypatch):
    """The home's path comes from $HERMES_HOME (or a login's home): a terminal escape in it is shown, never obeyed;
    a FIFO where .env would be is only looked at, never opened (nothing hangs)."""
    home = tmp_path / "evil\x1b]0;owned\x07home"
    home.mkdir()
    os.mkfifo(home / ".env")
    monkeypatch.setenv("HERMES_HOME", str(home))
    done = wizard_in_process_keeping_home()
    assert done.returncode == 2 and "\x1b" not in done.stderr and "\x07" not in done.stderr, done
    assert "Without questions:" in done.stderr  # a .env is there (a FIFO): the doctor's commands, not setup's


def wizard_in_process_keeping_home():
    """`wizard_in_process` unsets HERMES_HOME (most tests name --home): here it is the subject, so keep it."""
    import contextlib

    from hermes_wizard.faces.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([])
    return subprocess.CompletedProcess(["hermes-wizard"], code, out.getvalue(), err.getvalue())
