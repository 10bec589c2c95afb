"""A real terminal: `hermes-wizard doctor` in tmux, repaired with keystrokes only."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[2] / "assets" / "homes" / "death-loop"
pytestmark = [pytest.mark.tmux, pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")]


class Tmux:
    def __init__(self, name: str, command: str, size=(100, 30)) -> None:
        self.name = name
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
        subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", str(size[0]), "-y", str(size[1]), command],
                       check=True, env={"PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "HOME": "/tmp"})

    def screen(self) -> str:
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True,
                              text=True).stdout

    def wait_for(self, text: str, timeout: float = 20.0) -> str:
        """Wait until `text` and the footer's palette hint (drawn last) are on screen."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen and "palette" in screen:
                time.sleep(0.3)  # the first paint precedes the key handlers by a moment
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared; screen:\n{self.screen()}")

    def wait_for_plain(self, text: str, timeout: float = 20.0) -> str:
        """Wait until `text` is on screen, whatever drew it (a program the wizard handed the terminal to)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared; screen:\n{self.screen()}")

    def keys(self, *keys: str) -> None:
        for key in keys:  # one send-keys per key: bundled focus-moving keys get lost
            subprocess.run(["tmux", "send-keys", "-t", self.name, key], check=True)
            time.sleep(0.15)

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


def wait_for_text(path: Path, text: str, timeout: float = 20.0) -> str:
    """The file's text once `text` is in it (what the wizard printed after the terminal closed)."""
    deadline = time.monotonic() + timeout
    while text not in (path.read_text() if path.exists() else "") and time.monotonic() < deadline:
        time.sleep(0.1)
    return path.read_text() if path.exists() else ""


def test_doctor_repairs_the_demo_home_with_keystrokes_only(tmp_path, hermes_oracle):
    home = tmp_path / "home"
    shutil.copytree(DEMO, home)
    (home / ".env").chmod(0o600)
    done = tmp_path / "exit-code"
    repo = Path(__file__).resolve().parents[2]
    command = (f"cd {repo} && {sys.executable} -m hermes_wizard doctor --home {home}; echo $? > {done}; sleep 60")
    tmux = Tmux(f"hw-{tmp_path.name}", command)
    try:
        tmux.wait_for("r Review")  # the findings screen is ready (its footer is drawn)
        assert "refuse to start" in tmux.screen()
        tmux.keys("r")
        tmux.wait_for("After these changes")
        tmux.keys("C-s")
        tmux.wait_for("Verified:")
        tmux.keys("Enter")
        deadline = time.monotonic() + 20
        while not done.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert done.read_text().strip() == "0"
    finally:
        tmux.close()
    env = (home / ".env").read_text()
    assert "WEIXIN_DM_POLICY=pairing" in env and "WHATSAPP_ENABLED=false" in env
    hermes = hermes_oracle.evaluate(home)
    assert hermes["would_start"] and set(hermes["enabled"]) == {"telegram", "weixin"}


def test_quitting_says_no_changes_were_made(tmp_path):
    home = tmp_path / "home"
    shutil.copytree(DEMO, home)
    before = (home / ".env").read_bytes()
    log = tmp_path / "out"
    repo = Path(__file__).resolve().parents[2]
    tmux = Tmux(f"hwq-{tmp_path.name}",
                f"cd {repo} && {sys.executable} -m hermes_wizard setup --home {home} > {log}; sleep 60")
    try:
        tmux.wait_for("Continue")
        tmux.keys("Enter")
        tmux.wait_for("Platform")
        tmux.keys("C-q")
        assert "No changes were made." in wait_for_text(log, "No changes were made.")
    finally:
        tmux.close()
    assert (home / ".env").read_bytes() == before


def test_ctrl_c_with_pending_changes_asks_and_quitting_leaves_the_tree_identical(tmp_path):
    home = tmp_path / "home"
    shutil.copytree(DEMO, home)
    (home / ".env").chmod(0o600)
    before = {str(p.relative_to(home)): (p.read_bytes() if p.is_file() else None, p.stat().st_mode)
              for p in sorted(home.rglob("*"))}
    log = tmp_path / "out"
    repo = Path(__file__).resolve().parents[2]
    tmux = Tmux(f"hwc-{tmp_path.name}", f"cd {repo} && {sys.executable} -m hermes_wizard doctor --home {home} > {log}; "
                                        "sleep 60")
    try:
        tmux.wait_for("r Review")  # the doctor planned its repair: changes are pending
        tmux.keys("C-c")
        deadline = time.monotonic() + 20
        while "Discard 2 changes?" not in tmux.screen() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "Discard 2 changes?" in tmux.screen(), tmux.screen()
        tmux.keys("d")
        assert "No changes were made." in wait_for_text(log, "No changes were made.")
    finally:
        tmux.close()
    after = {str(p.relative_to(home)): (p.read_bytes() if p.is_file() else None, p.stat().st_mode)
             for p in sorted(home.rglob("*"))}
    assert after == before
