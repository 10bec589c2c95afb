"""Root repairing a home it does not own: nothing outside the home changes.

The attacks by the owner (links, a hostile backup set, a symlink swapped in) run as root against homes owned by
a throw-away user the test creates (skipped where it cannot); every attack points at a decoy directory the test
makes, standing in for /etc, and each test checks the decoy's whole tree is unchanged and that the owner can
still run `doctor` and `undo` as themselves.  Special files and a writer racing the rename run as anyone.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from apply_homes import SCENARIOS, build, doctor_plan, mode_of, set_plan, tree, wizard_cli

from hermes_wizard.core.homefs import ApplyError
from hermes_wizard.plan.changes import ENV, YAML, Change
from hermes_wizard.write.apply import FileOps, apply_plan
from hermes_wizard.write.backups import BACKUP_DIR

VENV_WIZARD = Path(sys.executable).with_name("hermes-wizard")
MODE_ONLY = Change(ENV, "<mode>", "0644", "0600", "mode")


def user_home(base: Path, owner, scenario: str = "two-files") -> Path:
    home = build(base / "home", scenario)
    _, uid, gid = owner
    for path in [home, *home.iterdir()]:
        os.chown(path, uid, gid)
    os.chmod(home, 0o755)
    return home


def as_owner(owner, *args: str) -> subprocess.CompletedProcess:
    """The venv's hermes-wizard run as the owner.  The interpreter may live under a root-only
    directory (/root/.pyenv), so the owner keeps CAP_DAC_READ_SEARCH: it can read and traverse,
    but every write is still checked against the owner's own rights, which is what "the owner can still use the tool" is
    about."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/nonexistent", "LANG": "C.UTF-8"}
    return subprocess.run(["setpriv", f"--reuid={owner[1]}", f"--regid={owner[2]}", "--clear-groups",
                           "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search", str(VENV_WIZARD),
                           *args], capture_output=True, text=True, timeout=60, env=env, cwd="/")


def owned_by_owner(home: Path, owner) -> None:
    """Everything in the home belongs to its owner, and the owner can still use the tool."""
    for path in [home, *home.rglob("*")]:
        assert os.lstat(path).st_uid == owner[1], f"{path} is not the owner's"
    checked = as_owner(owner, "doctor", "--home", str(home))
    assert checked.returncode in (0, 1, 78) and "Permission denied" not in checked.stderr, checked.stderr
    undone = as_owner(owner, "undo", "--yes", "--home", str(home))
    assert undone.returncode == 0, undone.stdout + undone.stderr


def test_root_fix_leaves_everything_to_the_owner(place, owner):
    base, decoy = place
    home = user_home(base, owner)
    fixed = wizard_cli("doctor", "--fix", "--yes", "--home", str(home))
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    owned_by_owner(home, owner)


def _plant_set(home: Path, owner, files: dict, copies: dict) -> Path:
    """What a hostile owner writes: a set whose name sorts after every real one."""
    folder = home / BACKUP_DIR / "29990101-000000"
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({"created": "x", "reason": "x", "files": files}))
    for name, make in copies.items():
        make(folder / name)
    for path in [folder.parent, folder, *folder.iterdir()]:
        os.lchown(path, owner[1], owner[2])
    return folder


ATTACKS = {
    "dotdot-setuid": lambda decoy: ({"../../../etc/pwn": {"existed": True, "mode": 0o4755}},
                                    {"pwn": lambda p: p.write_text("#!/bin/sh\nid\n")}),
    "delete-outside": lambda decoy: ({"../../../etc/passwd": {"existed": False}}, {}),
    "setuid-env": lambda decoy: ({ENV: {"existed": True, "mode": 0o4755}},
                                 {ENV: lambda p: p.write_text("A=1\n")}),
    "symlinked-copy": lambda decoy: ({ENV: {"existed": True, "mode": 0o644}},
                                     {ENV: lambda p: p.symlink_to(decoy / "shadow")}),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_root_undo_refuses_a_hostile_backup_set(place, owner, attack):
    base, decoy = place
    home = user_home(base, owner)
    assert wizard_cli("doctor", "--fix", "--yes", "--home", str(home)).returncode == 0
    files, copies = ATTACKS[attack](decoy)
    _plant_set(home, owner, files, copies)
    before = tree(decoy)
    undone = wizard_cli("undo", "--yes", "--home", str(home))
    assert undone.returncode == 1 and "not written by hermes-wizard" in undone.stderr or \
        "cannot read" in undone.stderr, undone.stdout + undone.stderr
    assert tree(decoy) == before
    assert len(list((home / BACKUP_DIR).iterdir())) == 2  # the refused set made no "before undo" set
    assert b"SECRET-HASH" not in (home / ENV).read_bytes()
    assert not any(stat.S_IMODE(os.lstat(p).st_mode) & 0o7000 for p in home.rglob("*"))
    shutil.rmtree(home / BACKUP_DIR / "29990101-000000")
    owned_by_owner(home, owner)


@pytest.mark.parametrize("name,target", [(".hermes-wizard.lock", "nologin"), (BACKUP_DIR, "")],
                         ids=["lock", "backups"])
def test_root_fix_does_not_follow_the_owners_symlinks(place, owner, name, target):
    base, decoy = place
    home = user_home(base, owner)
    (home / name).symlink_to(decoy / target if target else decoy)
    os.lchown(home / name, owner[1], owner[2])
    before = tree(decoy)
    fixed = wizard_cli("doctor", "--fix", "--yes", "--home", str(home))
    assert fixed.returncode == 1 and "symbolic link" in fixed.stderr, fixed.stdout + fixed.stderr
    assert tree(decoy) == before
    assert (home / ENV).read_text() == SCENARIOS["two-files"][0]  # nothing written


SWAPPER = ("import os, sys, time\n"
           "home, decoy = sys.argv[1], sys.argv[2]\n"
           "env, real = os.path.join(home, '.env'), os.path.join(home, '.env.real')\n"
           "while not os.path.exists(os.path.join(home, 'stop')):\n"
           "    os.rename(env, real); os.symlink(decoy, env); os.unlink(env); os.rename(real, env)\n")


def test_root_mode_fix_never_reaches_a_swapped_in_symlink(place, owner):
    base, decoy = place
    home = user_home(base, owner, "env-only")
    os.chmod(home / ENV, 0o644)
    os.chmod(decoy / "passwd", 0o644)
    before = tree(decoy)
    swapper = subprocess.Popen(["setpriv", f"--reuid={owner[1]}", f"--regid={owner[2]}", "--clear-groups",
                                "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search", sys.executable,
                                "-c", SWAPPER, str(home), str(decoy / "passwd")])
    try:
        for _ in range(30):
            try:
                apply_plan(set_plan(home, MODE_ONLY), base_env={})
            except (ApplyError, OSError):
                pass  # refused or lost the race: fine, as long as nothing outside changed
    finally:
        (home / "stop").touch()
        swapper.wait(timeout=10)
    assert tree(decoy) == before
    assert mode_of(decoy / "passwd") == 0o644


# ------------------------------------------------------------------------- special files, any user

SPECIALS = {
    "fifo": lambda p: os.mkfifo(p),
    "dev-zero": lambda p: p.symlink_to("/dev/zero"),
    "directory": lambda p: p.mkdir(),
    "loop": lambda p: p.symlink_to(p.name),
}


@pytest.mark.parametrize("name", [ENV, YAML])
@pytest.mark.parametrize("kind", sorted(SPECIALS))
def test_doctor_refuses_special_files_without_hanging(tmp_path, kind, name):
    home = build(tmp_path / "home", "two-files")
    (home / name).unlink()
    SPECIALS[kind](home / name)
    before = tree(home)
    done = wizard_cli("doctor", "--fix", "--yes", "--home", str(home))  # timeout=60: a hang fails the test
    assert done.returncode not in (0, 70), done.stdout + done.stderr
    assert name in done.stderr and "internal error" not in done.stderr, done.stderr
    assert tree(home) == before


# ----------------------------------------------------------------------- a writer racing the rename


class AppendAt(FileOps):
    """Appends a line to .env at one moment of the apply, as a concurrent editor would."""

    def __init__(self, home: Path, moment: str) -> None:
        self.home, self.moment, self.fd = home, moment, None

    def open_tmp(self, at):
        if at.name.startswith(f".{ENV}") and self.fd is None:
            self.fd = os.open(self.home / ENV, os.O_WRONLY | os.O_APPEND)  # opened before the rename
        return super().open_tmp(at)

    def set_owner_mode(self, fd, mode, uid, gid):
        super().set_owner_mode(fd, mode, uid, gid)
        if self.moment == "before-rename" and self.fd is not None:
            os.write(self.fd, b"APPENDED=1\n")

    def fsync_dir(self, at):
        super().fsync_dir(at)
        if self.moment == "after-rename" and self.fd is not None and at.name == ENV:
            os.write(self.fd, b"APPENDED=1\n")  # lands in the old file, which was just replaced
            os.close(self.fd)
            self.fd = -1


@pytest.mark.parametrize("moment", ["before-rename", "after-rename"])
def test_an_append_racing_the_apply_is_never_silently_lost(tmp_path, moment):
    home = build(tmp_path / "home", "two-files")
    plan = doctor_plan(home)
    with pytest.raises(ApplyError, match="changed since it was read"):
        apply_plan(plan, ops=AppendAt(home, moment), base_env={})
    assert (home / ENV).read_bytes().endswith(b"APPENDED=1\n")
    assert (home / YAML).read_text() == SCENARIOS["two-files"][2]  # the pair stays old
