"""Handing the terminal to Hermes's own login and getting it back whole, in a real terminal (tmux): Ctrl+C is the
login's own (the wizard survives it with what was typed and the changes pending), how it ended and its last lines
stay readable until Enter, and the files it wrote into the home are named (faces/handover.py).

Hermes's logins need a phone, so a stand-in takes `hermes`'s place in the home's venv, as Hermes's installer lays it
out: a real process on the terminal that writes into the home and then waits for a QR scan that never comes (the
Weixin login of `hermes gateway setup`), or exits 0 after printing the error a missing WhatsApp bridge gives."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from system.test_terminal import Tmux

pytestmark = [pytest.mark.tmux, pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")]

WEIXIN_LOGIN = """#!/bin/sh
[ -t 0 ] || { echo "stand-in: needs a terminal"; exit 2; }
[ "$*" = "gateway setup" ] || { echo "stand-in: unexpected arguments: $*"; exit 2; }
echo "STAND-IN HERMES gateway setup for $HERMES_HOME"
mkdir -p "$HERMES_HOME/weixin/accounts" "$HERMES_HOME/logs"
for n in 1 2 3 4 5 6 7 8 9; do echo "{}" > "$HERMES_HOME/weixin/accounts/part-$n.json"; done
echo "setup started" > "$HERMES_HOME/logs/setup.log"
echo "Weixin QR login: scan the QR code with WeChat"
printf 'Waiting for the scan... '
read answer
echo "scanned"
"""

WHATSAPP_WITHOUT_BRIDGE = """#!/bin/sh
[ -t 0 ] || { echo "stand-in: needs a terminal"; exit 2; }
echo "STAND-IN HERMES whatsapp"
echo "Bridge script not found at $HERMES_HOME/hermes-agent/scripts/whatsapp-bridge/bridge.js"
exit 0
"""

ACCOUNT = "wxid_handover42"
TOKEN = "weixin-token-typed-before-the-qr-login"


def home_with(tmp_path: Path, stand_in: str, env: str) -> Path:
    """A home whose Hermes 0.19.0 venv's `hermes` is `stand_in`, with Node.js where Hermes's installer puts it."""
    home = tmp_path / "home"
    venv = home / "hermes-agent" / "venv"
    info = venv / "lib" / "python3.11" / "site-packages" / "hermes_agent-0.19.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hermes-agent\nVersion: 0.19.0\n\n")
    (venv / "bin").mkdir()
    (venv / "bin" / "hermes").write_text(stand_in)
    (venv / "bin" / "hermes").chmod(0o755)
    node = home / "node" / "bin" / "node"
    node.parent.mkdir(parents=True)
    node.write_text("#!/bin/sh\nexit 0\n")
    node.chmod(0o755)
    (home / ".env").write_text(env)
    (home / ".env").chmod(0o600)
    return home


def open_platform(tmux: Tmux, name: str, button: str) -> str:
    tmux.wait_for("Continue")
    tmux.keys("Enter")
    tmux.wait_for("Platform")
    for key in name:
        tmux.keys(key)
    tmux.keys("Enter")
    return tmux.wait_for(button)


def test_ctrl_c_ends_the_login_only_and_the_session_survives(tmp_path):
    home = home_with(tmp_path, WEIXIN_LOGIN, "WEIXIN_DM_POLICY=pairing\n")
    done = tmp_path / "exit-code"
    repo = Path(__file__).resolve().parents[2]
    tmux = Tmux(f"hwhand-{tmp_path.name}", f"cd {repo} && {sys.executable} -m hermes_wizard setup --home {home}; "
                                          f"echo $? > {done}; sleep 60")
    try:
        open_platform(tmux, "weixin", "Log in by QR")
        tmux.keys(*ACCOUNT)  # the first field has the focus: the account ID, then the token
        tmux.keys("Tab", *TOKEN)
        tmux.keys("Tab", "Tab", "Enter")  # past Next to "Log in by QR"
        tmux.wait_for_plain("Waiting for the scan")
        tmux.keys("C-c")
        screen = tmux.wait_for_plain("Press Enter to go back to the wizard")
        assert not done.exists(), screen  # the wizard is still there, and holds the terminal until Enter
        shown = screen.replace("\n", "")
        assert "hermes gateway setup was ended by Ctrl+C." in shown
        assert "10 files in the home changed while it ran: logs/setup.log, weixin/accounts/part-1.json" in shown
        assert "Weixin QR login: scan the QR code with WeChat" in screen  # Hermes's own last lines, not wiped
        tmux.keys("Enter")
        said = tmux.wait_for("Now: ").replace("\n", "")
        assert "hermes gateway setup was ended by Ctrl+C. Now: " in said and "Its last lines:" in said
        assert "Waiting for the scan" in said and "10 files in the home changed while it ran" in said
        assert ACCOUNT in said  # what was typed is still in its field
        tmux.keys("C-q")
        screen = tmux.wait_for("Discard")
        # ... and the changes it makes are still pending; what Hermes's login wrote is named, kept by quitting
        assert "Discard 2 changes (not written)? Already written, and" in screen, screen  # drawn beside the form
        assert "kept: logs/setup.log, weixin/accounts/part-1.json," in screen and "and 6 more (by hermes" in screen
    finally:
        tmux.close()
    assert len(list((home / "weixin" / "accounts").iterdir())) == 9
    assert TOKEN not in (home / ".env").read_text()  # nothing of ours was written meanwhile


def test_a_login_that_exits_0_after_an_error_keeps_its_words(tmp_path):
    home = home_with(tmp_path, WHATSAPP_WITHOUT_BRIDGE,
                     "WHATSAPP_ENABLED=true\nWHATSAPP_MODE=bot\nWHATSAPP_DM_POLICY=pairing\n")
    repo = Path(__file__).resolve().parents[2]
    tmux = Tmux(f"hwbridge-{tmp_path.name}",
                f"cd {repo} && {sys.executable} -m hermes_wizard setup --home {home}; sleep 60")
    try:
        open_platform(tmux, "whatsapp", "Pair now")
        tmux.keys("Tab", "Enter")  # Next has the focus; the next button is Pair now
        screen = tmux.wait_for_plain("Press Enter to go back to the wizard")
        said = screen.replace("\n", "")
        assert "Bridge script not found" in said and "hermes whatsapp ended." in said
        assert "No file in the home changed while it ran." in said
        tmux.keys("Enter")
        said = tmux.wait_for("No file in the home changed").replace("\n", "")
        assert "hermes whatsapp ended. Now: no creds.json in " in said and "WhatsApp is not paired." in said
        assert "│ Bridge script not found at " in said  # Hermes's error, said again after the redraw
    finally:
        tmux.close()


WHATSAPP_WAITING = """#!/bin/sh
[ -t 0 ] || { echo "stand-in: needs a terminal"; exit 2; }
mkdir -p "$HERMES_HOME/platforms/whatsapp/session"
echo "{}" > "$HERMES_HOME/platforms/whatsapp/session/pre-key-1.json"
printf 'Scan the QR code with the phone that owns the number... '
read answer
"""
TELEGRAM_TOKEN = "123456789:AAEhBP0av28c6kEX7b3ZpQ9rT1yU2iO3pLm"


def test_the_plain_face_survives_ctrl_c_in_the_login_with_its_answers(tmp_path):
    from tmux_plain import PlainPane

    home = home_with(tmp_path, WHATSAPP_WAITING,
                     "WHATSAPP_ENABLED=true\nWHATSAPP_MODE=bot\nWHATSAPP_DM_POLICY=pairing\n")
    pane = PlainPane(f"hwplainhand-{tmp_path.name}", ["setup", "--plain", "--home", str(home)], tmp_path,
                     size=(100, 40))
    try:
        pane.wait_for("Choose a platform")
        pane.type("telegram")
        pane.wait_for("TELEGRAM_BOT_TOKEN (not set)")
        pane.type(TELEGRAM_TOKEN)
        pane.wait_for("Access for telegram")
        pane.type()
        pane.wait_for("Allowed IDs")
        pane.type()
        pane.wait_for("(2 changes pending)")
        pane.type("whatsapp")
        pane.wait_for("in this terminal?")
        pane.type("y")
        pane.wait_for("Scan the QR code")
        subprocess.run(["tmux", "send-keys", "-t", pane.name, "C-c"], check=True)
        screen = pane.wait_for("Access for whatsapp").replace("\n", "")
        assert not pane.done.exists()
        assert "hermes whatsapp was ended by Ctrl+C." in screen
        assert "1 file in the home changed while it ran: platforms/whatsapp/session/pre-key-1.json." in screen
        pane.type()
        pane.wait_for("Allowed IDs")
        pane.type()
        screen = pane.wait_for("changes pending)")
        assert "(2 changes pending)" in screen.rsplit("Choose a platform", 1)[-1]  # the token's still there
    finally:
        pane.close()
