"""Shared by the TUI tests: a fresh copy of the bundled demo home (the 0.19 restart loop)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[2] / "assets" / "homes" / "death-loop"


@pytest.fixture
def demo(tmp_path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(DEMO, home)
    (home / ".env").chmod(0o600)  # git does not keep modes
    return home


@pytest.fixture(autouse=True)
def not_over_ssh(monkeypatch):
    """The screens say one more line over SSH (wizard/faces/wording.py ssh_note): the snapshots and most tests
    are of a local terminal, whatever session runs the suite; a test of the SSH line sets the variable itself."""
    for name in ("SSH_CONNECTION", "SSH_TTY", "SSH_CLIENT"):
        monkeypatch.delenv(name, raising=False)
