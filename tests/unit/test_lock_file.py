"""`.hermes-wizard.lock` leaves the home with the run that made it, and two runs never both hold it:
not even a waiter that opened the file just before the holder removed it (two real processes)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_wizard.core.atomic import LOCK_FILE, Lock
from hermes_wizard.core.bundled import example_home
from hermes_wizard.core.homefs import ApplyError, HomeDir
from hermes_wizard.faces.cli import main

ROOT = Path(__file__).resolve().parents[2]

# A second process taking the Lock, paused (until a line on stdin) between its open and its flock.
PAUSED_WAITER = """
import fcntl, sys
from pathlib import Path
from hermes_wizard.core.atomic import Lock
from hermes_wizard.core.homefs import ApplyError, HomeDir

real = fcntl.flock
def paused(fd, how):
    if how & fcntl.LOCK_EX and not getattr(paused, "done", False):
        paused.done = True
        print("opened", flush=True)
        sys.stdin.readline()
    return real(fd, how)
fcntl.flock = paused
with HomeDir(Path(sys.argv[1])) as home:
    try:
        with Lock(home):
            print("acquired", flush=True)
    except ApplyError as exc:
        print("refused:", exc, flush=True)
"""

HOLD_LOCK = ("import fcntl, os, sys\n"
             "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)\n"
             "fcntl.flock(fd, fcntl.LOCK_EX)\n"
             "print('locked', flush=True)\n"
             "sys.stdin.read()\n")


def _spawn(code: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code, *args], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_no_lock_file_is_left_after_doctor_fix_and_undo(tmp_path, capsys):
    import shutil

    home = tmp_path / "home"
    shutil.copytree(example_home(), home)
    assert main(["doctor", "--fix", "--yes", "--no-verify", "--home", str(home)]) == 0
    assert not (home / LOCK_FILE).exists()
    assert main(["undo", "--yes", "--home", str(home)]) == 0
    assert not (home / LOCK_FILE).exists()
    capsys.readouterr()


def test_a_waiter_that_opened_the_removed_file_does_not_share_the_lock(tmp_path):
    """A holds; B opens the lock file; A releases (removing it); C creates a new one and holds it; B locks
    the old, unlinked inode: B must see the name is no longer its file, retry, and find C holding it."""
    home = tmp_path / "home"
    home.mkdir()
    with HomeDir(home) as opened:
        holder = Lock(opened).__enter__()
        waiter = _spawn(PAUSED_WAITER, str(home))
        third = None
        try:
            assert waiter.stdout.readline().strip() == "opened"
            holder.__exit__()
            assert not (home / LOCK_FILE).exists()
            third = _spawn(HOLD_LOCK, str(home / LOCK_FILE))
            assert third.stdout.readline().strip() == "locked"
            waiter.stdin.write("go\n")
            waiter.stdin.flush()
            said = waiter.stdout.readline().strip()
            assert said.startswith("refused: another hermes-wizard"), said
        finally:
            waiter.kill()
            waiter.wait(timeout=10)
            if third is not None:
                third.stdin.close()
                third.wait(timeout=10)
    # C's lock is released: a new run takes the name over, and removes it when done.
    with HomeDir(home) as opened, Lock(opened):
        assert (home / LOCK_FILE).exists()
    assert not (home / LOCK_FILE).exists()


def test_a_held_lock_refuses_a_second_run_and_is_not_removed_by_it(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    with HomeDir(home) as opened, Lock(opened):
        with HomeDir(home) as again, pytest.raises(ApplyError, match="another hermes-wizard"):
            with Lock(again):
                pass
        assert (home / LOCK_FILE).exists()  # the refused run removed nothing
    assert not (home / LOCK_FILE).exists()


def test_a_lock_file_replaced_while_held_is_not_removed(tmp_path):
    """The name now names another file (the owner moved ours away): release leaves that file alone."""
    home = tmp_path / "home"
    home.mkdir()
    with HomeDir(home) as opened, Lock(opened):
        os.rename(home / LOCK_FILE, home / "moved")
        (home / LOCK_FILE).write_text("someone else's")
    assert (home / LOCK_FILE).read_text() == "someone else's"
