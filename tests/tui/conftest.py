"""Shared by the TUI tests: a local terminal whatever session runs the suite (the demo home is tests/conftest.py's)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def not_over_ssh(monkeypatch):
    """The screens say one more line over SSH (wizard/faces/wording.py ssh_note): the snapshots and most tests
    are of a local terminal, whatever session runs the suite; a test of the SSH line sets the variable itself."""
    for name in ("SSH_CONNECTION", "SSH_TTY", "SSH_CLIENT"):
        monkeypatch.delenv(name, raising=False)
