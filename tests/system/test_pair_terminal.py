"""Pairing from WhatsApp's screen in a real terminal (tmux): the TUI hands the terminal to Hermes's own login
and comes back to a home read again (pairing where the need is said).  Hermes's `hermes whatsapp` needs a phone, so a
stand-in takes its place in the home's venv: it insists on a terminal, asks for Enter as a QR scan would wait, then
writes the creds.json a finished pairing leaves.  The platform's state changes only because the file is really there."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from system.test_terminal import Tmux

pytestmark = pytest.mark.tmux

STAND_IN = """#!/bin/sh
[ -t 0 ] || { echo "stand-in: needs a terminal"; exit 2; }
[ "$1" = whatsapp ] || { echo "stand-in: unexpected arguments: $*"; exit 2; }
echo "STAND-IN HERMES for $HERMES_HOME"
printf 'Scan the QR code, then press Enter: '
read answer
mkdir -p "$HERMES_HOME/platforms/whatsapp/session"
printf '{"me": {"id": "15551234567:12@s.whatsapp.net"}}' > "$HERMES_HOME/platforms/whatsapp/session/creds.json"
"""


def home_with_stand_in(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    venv = home / "hermes-agent" / "venv"
    info = venv / "lib" / "python3.11" / "site-packages" / "hermes_agent-0.19.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hermes-agent\nVersion: 0.19.0\n\n")
    (venv / "bin").mkdir()
    (venv / "bin" / "hermes").write_text(STAND_IN)
    (venv / "bin" / "hermes").chmod(0o755)
    node = home / "node" / "bin" / "node"  # the bridge's Node.js, as Hermes's installer leaves it
    node.parent.mkdir(parents=True)
    node.write_text("#!/bin/sh\nexit 0\n")
    node.chmod(0o755)
    (home / ".env").write_text("WHATSAPP_ENABLED=true\nWHATSAPP_MODE=bot\nWHATSAPP_DM_POLICY=pairing\n")
    (home / ".env").chmod(0o600)
    return home


def test_pairing_whatsapp_hands_over_the_terminal_and_reads_the_home_again(tmp_path):
    home = home_with_stand_in(tmp_path)
    repo = Path(__file__).resolve().parents[2]
    tmux = Tmux(f"hwpair-{tmp_path.name}",
                f"cd {repo} && {sys.executable} -m hermes_wizard setup --home {home}; sleep 60")
    try:
        tmux.wait_for("Continue")
        tmux.keys("Enter")
        tmux.wait_for("Platform")
        for key in "whatsapp":
            tmux.keys(key)
        tmux.keys("Enter")
        screen = tmux.wait_for("Pair now")
        assert "not paired" in screen
        tmux.keys("Tab", "Enter")  # Next has the focus; the next button is Pair now
        tmux.wait_for_plain("Scan the QR code")
        assert "STAND-IN HERMES for " + str(home) in tmux.screen().replace("\n", "")
        tmux.keys("Enter")
        tmux.wait_for_plain("Press Enter to go back to the wizard")  # what Hermes said stays until read
        tmux.keys("Enter")
        screen = tmux.wait_for("Now: paired as +15551234567")
        assert "On disk: paired as +15551234567" in screen and "not paired" not in screen
    finally:
        tmux.close()
    assert (home / "platforms" / "whatsapp" / "session" / "creds.json").is_file()
