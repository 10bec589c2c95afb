"""scripts/system-deps.sh: the machine's packages the tests use, installed as root when missing, else named.

Run for real on a PATH from which one of the commands is missing (a folder of links to the machine's own
commands, tmux left out): not root (or HW_NO_SYSTEM_DEPS=1), it names the missing package in one line and
exits 0, so the test command goes on; with everything present it says nothing.  The root install itself is
not run here (it would change the machine): .ci/run and scripts/test.sh use it on every run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "system-deps.sh"
COMMANDS = ("tmux", "systemd-analyze", "systemctl", "journalctl", "unshare", "nsenter", "setpriv", "mount", "ip",
            "gnome-keyring-daemon", "dbus-run-session", "ssh", "ssh-keygen", "useradd", "apt-get")


def path_without(folder: Path, left_out: set[str]) -> str:
    """A PATH of links to this machine's commands, those in `left_out` left out (bash itself is run by path)."""
    folder.mkdir()
    for name in COMMANDS:
        real = shutil.which(name)
        if real and name not in left_out:
            (folder / name).symlink_to(real)
    return str(folder)


def run(path: str, *, as_nobody: bool, **env: str) -> subprocess.CompletedProcess:
    script = Path(path).parent / SCRIPT.name
    prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if as_nobody else []
    return subprocess.run([*prefix, shutil.which("bash") or "/bin/bash", str(script)], capture_output=True,
                          text=True, timeout=60, env={"PATH": path, "HOME": "/", **env}, stdin=subprocess.DEVNULL)


@pytest.fixture
def links(everyone_scratch):
    """A folder every user can enter (pytest's tmp_path is its owner's only), removed afterwards."""
    missing = [name for name in COMMANDS if name != "apt-get" and not shutil.which(name)]
    if missing or not Path("/usr/sbin/sshd").exists() or not Path("/lib/systemd/systemd").exists():
        pytest.skip(f"this machine lacks some of them itself: {missing}")
    shutil.copy(SCRIPT, everyone_scratch / SCRIPT.name)  # the checkout may be its owner's only (a mktemp -d clone)
    (everyone_scratch / SCRIPT.name).chmod(0o755)  # as `nobody` runs it, whatever the clone's umask made it
    return everyone_scratch


@pytest.fixture
def complete(links) -> str:
    return path_without(links / "bin", {"tmux"})


def test_not_root_it_names_the_missing_package_in_one_line_and_goes_on(complete):
    if os.geteuid() == 0 and not shutil.which("setpriv"):
        pytest.skip("root without setpriv cannot run it as another user")
    done = run(complete, as_nobody=os.geteuid() == 0)
    assert done.returncode == 0 and done.stdout == ""
    assert done.stderr.splitlines() == ["system-deps: missing tmux (as root: apt-get install tmux); the tests that "
                                        "need them will skip, and fail under CI=true"]


def test_told_not_to_install_it_only_names_them(complete):
    done = run(complete, as_nobody=False, HW_NO_SYSTEM_DEPS="1")
    assert done.returncode == 0 and "installing" not in done.stderr
    assert done.stderr.startswith("system-deps: missing tmux (") and len(done.stderr.splitlines()) == 1


def test_with_everything_present_it_says_nothing(links):
    everything = path_without(links / "all", set())
    done = run(everything, as_nobody=False, HW_NO_SYSTEM_DEPS="1")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
