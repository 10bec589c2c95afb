"""The plain face in real terminals: `setup --plain` completed with keystrokes under tmux (TERM=screen), and the
same over a real SSH session to localhost (`ssh -tt`, an sshd of the test's own on a free port), each
checked with the real Hermes 0.19.0 afterwards."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
from tmux_plain import REPO, PlainPane

pytestmark = [pytest.mark.tmux, pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")]
TOKEN = "123456789:AAEhBP0av28c6kEX7b3ZpQ9rT1yU2iO3pLm"
SSHD = Path("/usr/sbin/sshd")


def complete_setup(pane: PlainPane) -> None:
    """Telegram with a token and pairing, reviewed and applied, one prompt at a time."""
    pane.wait_for("Choose a platform")
    pane.type("telegram")
    pane.wait_for("TELEGRAM_BOT_TOKEN (not set)")
    pane.type(TOKEN)
    pane.wait_for("Access for telegram")
    pane.type()  # pairing, the default
    pane.wait_for("Allowed IDs")
    pane.type()  # nobody yet: strangers get a pairing code
    pane.wait_for("or review (2 changes pending)")
    pane.type("review")  # typing filters the list down to "Review the 2 changes and apply"
    pane.wait_for("Apply these changes?")
    pane.type("y")  # y and Enter, as every answer
    pane.wait_for("Verified: the gateway will start (telegram).")


def test_plain_setup_completes_in_a_real_terminal(tmp_path, hermes_oracle):
    home = tmp_path / "home"
    pane = PlainPane(f"hwplain-{tmp_path.name}", ["setup", "--plain", "--home", str(home)], tmp_path,
                     size=(80, 24), term="screen")
    try:
        complete_setup(pane)
        assert pane.exit_code() == 0
        assert TOKEN not in pane.screen()  # masked while typed, and never said
        assert "Over SSH" not in pane.screen()
    finally:
        pane.close()
    assert f"TELEGRAM_BOT_TOKEN={TOKEN}" in (home / ".env").read_text()
    hermes = hermes_oracle.evaluate(home)
    assert hermes["would_start"] and hermes["enabled"] == ["telegram"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _sshd_or_skip():
    if not SSHD.exists() and os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(["apt-get", "install", "-y", "-q", "openssh-server"], capture_output=True, timeout=600,
                       env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
    if not SSHD.exists() or shutil.which("ssh") is None or shutil.which("ssh-keygen") is None:
        pytest.skip("openssh-server (sshd) and the ssh client are not installed and could not be installed")
    if os.geteuid() != 0:
        pytest.skip("the test's sshd logs in as root (it runs no daemon for another user)")


@pytest.mark.slow
@pytest.mark.ssh
def test_plain_setup_over_a_real_ssh_session(tmp_path, hermes_oracle):
    _sshd_or_skip()
    keys = tmp_path / "keys"
    keys.mkdir(mode=0o700)
    for name in ("host", "client"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(keys / name)], check=True)
    shutil.copy(keys / "client.pub", keys / "authorized_keys")
    port = _free_port()
    Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege-separation directory
    sshd = subprocess.Popen([str(SSHD), "-D", "-e", "-f", "/dev/null", "-p", str(port),
                             "-o", "ListenAddress=127.0.0.1", "-o", f"HostKey={keys / 'host'}",
                             "-o", f"AuthorizedKeysFile={keys / 'authorized_keys'}", "-o", "PermitRootLogin=yes",
                             "-o", "PasswordAuthentication=no", "-o", "UsePAM=no", "-o", "StrictModes=no",
                             "-o", f"PidFile={keys / 'sshd.pid'}"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    home = tmp_path / "home"
    ssh = ["ssh", "-tt", "-i", str(keys / "client"), "-p", str(port), "-o", "StrictHostKeyChecking=no",
           "-o", f"UserKnownHostsFile={keys / 'known_hosts'}", "-o", "BatchMode=yes", "root@127.0.0.1"]
    pane = None
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and sshd.poll() is None:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        if sshd.poll() is not None:
            pytest.skip(f"sshd would not start: {sshd.stdout.read().decode(errors='replace')[-300:]}")
        pane = PlainPane(f"hwssh-{tmp_path.name}", ["setup", "--plain", "--home", str(home)], tmp_path,
                         size=(80, 24), term="xterm", wrapper=ssh)
        pane.wait_for("Over SSH: the secrets you type here are written to")
        complete_setup(pane)
        assert pane.exit_code() == 0
        assert TOKEN not in pane.screen()
    finally:
        if pane is not None:
            pane.close()
        sshd.terminate()
        sshd.wait(timeout=10)
    assert f"TELEGRAM_BOT_TOKEN={TOKEN}" in (home / ".env").read_text()
    assert (home / ".env").stat().st_mode & 0o777 == 0o600
    hermes = hermes_oracle.evaluate(home)
    assert hermes["would_start"] and hermes["enabled"] == ["telegram"]
    assert REPO.is_dir()  # the remote side ran this repository's wizard (the pane's command names it)
