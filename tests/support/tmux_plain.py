"""A terminal under tmux for the plain face's tests (tests/system/test_plain_terminal.py and
test_face_selection.py): start a command in a pane of a given size and TERM, type into it, read what it
shows, and the exit code the command wrote when it ended."""

from __future__ import annotations

import shlex
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


class PlainPane:
    def __init__(self, name: str, argv: list[str], workdir: Path, size=(100, 30), term: str = "screen",
                 wrapper: list[str] | None = None) -> None:
        """Run `python -m hermes_wizard ARGV` (or `wrapper` + that command line) with TERM=`term`; its exit code
        goes to workdir/exit-code."""
        self.name, self.done = name, workdir / "exit-code"
        inner = (f"cd {shlex.quote(str(REPO))} && TERM={shlex.quote(term)} "
                 f"{shlex.quote(sys.executable)} -m hermes_wizard "
                 f"{shlex.join(argv)}; echo $? > {shlex.quote(str(self.done))}")
        command = shlex.join(wrapper + [inner]) if wrapper else inner
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
        subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", str(size[0]), "-y", str(size[1]),
                        f"{command}; sleep 60"], check=True,
                       env={"PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "HOME": str(workdir)})

    def screen(self) -> str:
        return subprocess.run(["tmux", "capture-pane", "-p", "-J", "-S", "-200", "-t", self.name],
                              capture_output=True, text=True).stdout

    def wait_for(self, text: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                time.sleep(0.2)  # the prompt is drawn before its key bindings run
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared; screen:\n{self.screen()}")

    def type(self, text: str = "", enter: bool = True) -> None:
        if text:
            subprocess.run(["tmux", "send-keys", "-t", self.name, "-l", text], check=True)
        if enter:
            subprocess.run(["tmux", "send-keys", "-t", self.name, "Enter"], check=True)

    def exit_code(self, timeout: float = 30.0) -> int:
        deadline = time.monotonic() + timeout
        while not (self.done.exists() and self.done.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.1)
        return int(self.done.read_text())

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)
