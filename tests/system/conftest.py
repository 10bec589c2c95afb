"""Shared by the system tests that need a second real user: `owner`, a throw-away account (root, useradd and
setpriv, else a skip), and `place`, a folder every user can traverse with a decoy /etc in it."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid

import pytest
from scratch_root import scratch_root


@pytest.fixture
def owner():
    """(name, uid, gid) of a fresh user; removed afterwards."""
    if os.geteuid() != 0 or not shutil.which("useradd") or not shutil.which("setpriv"):
        pytest.skip("needs root, useradd and setpriv")
    name = "hwt" + uuid.uuid4().hex[:8]
    made = subprocess.run(["useradd", "-M", "-s", "/bin/sh", name], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"cannot create a user: {made.stderr.strip()}")
    try:
        import pwd

        entry = pwd.getpwnam(name)
        yield name, entry.pw_uid, entry.pw_gid
    finally:
        subprocess.run(["userdel", name], capture_output=True)


@pytest.fixture
def place():
    """A directory every user can traverse (pytest's tmp_path is root-only, and /tmp itself may be 0700:
    tests/support/scratch_root.py), with a decoy /etc."""
    with scratch_root("hw-root-") as base:
        decoy = base / "etc"
        decoy.mkdir()
        (decoy / "shadow").write_text("root:SECRET-HASH:19000:0:99999:7:::\n")
        os.chmod(decoy / "shadow", 0o600)
        (decoy / "passwd").write_text("root:x:0:0::/root:/bin/sh\n")
        os.chmod(decoy / "passwd", 0o644)
        yield base, decoy
