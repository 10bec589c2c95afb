"""The one runner for systemctl / journalctl / systemd-analyze, and parsers of their output.

Every command this package runs goes through `Runner.run(argv)`:

* it is resolved on `PATH` at call time (tests put fake executables first on PATH);
* with `dry_run=True` it prints the exact command line (`$ systemctl --user stop ...`)
  and runs nothing — queries included — returning an empty successful `Result`;
* it never raises for a failing or missing command: `Result.rc` is 127 when the
  executable is absent, 124 on timeout.

Parsers follow systemd 252's formats: `systemctl show` prints `Key=value` lines,
`systemctl --version` starts with `systemd 252 (252.38-1~deb12u1)`, `journalctl -o cat`
prints bare messages, one per line.

Off the `check` path: subprocess costs the check ~15 ms, so neither `check` nor the gate imports this module
(tests/unit/test_gate_entry.py pins it); everything that runs a command does.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from typing import TextIO

from hermes_wizard.core.values import Value, value_class

SHOW_PROPERTIES = ("NRestarts", "ActiveState", "SubState", "Result", "ExecMainStatus", "ExecMainCode")


@value_class
class Result(Value):
    argv: tuple[str, ...]
    rc: int = 0
    stdout: str = ""
    stderr: str = ""
    ran: bool = True

    @property
    def ok(self) -> bool:
        return self.rc == 0

    def why(self) -> str:
        """One line saying why a command failed (its stderr, else its exit code)."""
        lines = [line.strip() for line in self.stderr.splitlines() if line.strip()]
        return lines[-1] if lines else f"exit status {self.rc}"


class Runner:
    def __init__(self, dry_run: bool = False, out: TextIO | None = None, timeout: float = 150.0,
                 env: dict[str, str] | None = None) -> None:
        # 150 s: `systemctl stop` waits for Hermes's drain (TimeoutStopSec= is at least 60 s).
        self.dry_run = dry_run
        self.out = out
        self.timeout = timeout
        self.env = env

    def run(self, argv: list[str], timeout: float | None = None) -> Result:
        if self.dry_run:
            (self.out or sys.stdout).write("$ " + shlex.join(argv) + "\n")
            result = Result(tuple(argv), ran=False)
        else:
            result = self._execute(list(argv), timeout or self.timeout)
        return result

    def _execute(self, argv: list[str], timeout: float) -> Result:
        env = dict(os.environ if self.env is None else self.env)
        env.setdefault("SYSTEMD_PAGER", "")
        env["SYSTEMD_COLORS"] = "0"  # parsable output, whatever the terminal
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env,
                                  stdin=subprocess.DEVNULL, errors="replace")
        except FileNotFoundError:
            return Result(tuple(argv), 127, "", f"{argv[0]}: command not found")
        except subprocess.TimeoutExpired:
            return Result(tuple(argv), 124, "", f"{argv[0]} did not answer within {timeout:g} s")
        except OSError as exc:
            return Result(tuple(argv), 126, "", f"{argv[0]}: {exc.strerror or exc}")
        return Result(tuple(argv), proc.returncode, proc.stdout, proc.stderr)


def systemctl(scope: str, *args: str) -> list[str]:
    return ["systemctl", *(["--user"] if scope == "user" else []), *args]


def journalctl(scope: str, *args: str) -> list[str]:
    return ["journalctl", *(["--user"] if scope == "user" else []), *args]


def show_argv(scope: str, unit: str) -> list[str]:
    return systemctl(scope, "show", "-p", ",".join(SHOW_PROPERTIES), unit)


def journal_argv(scope: str, unit: str, lines: int = 200, since: float | None = None) -> list[str]:
    # to the microsecond: a line the old loop logged earlier in the same second is not "since"
    extra = ["--since", f"@{since:.6f}"] if since is not None else []
    return journalctl(scope, "-u", unit, "-o", "cat", "-n", str(lines), "--no-pager", *extra)


def parse_show(text: str) -> dict[str, str]:
    """`systemctl show` output: `Key=value` per line (values may contain `=`)."""
    props = {}
    for line in text.splitlines():
        if "=" in line:
            key, value = line.split("=", 1)
            props[key.strip()] = value.strip()
    return props


def parse_version(text: str) -> int | None:
    """`systemd 252 (252.38-1~deb12u1)` → 252; None when the output is not systemd's."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    parts = first.split()
    if len(parts) >= 2 and parts[0] == "systemd":
        digits = "".join(ch for ch in parts[1].split(".")[0] if ch.isdigit())
        return int(digits) if digits else None
    return None


def journal_lines(text: str) -> list[str]:
    """`journalctl -o cat` output; its `-- No entries --` marker is not a line of the unit."""
    return [line for line in text.splitlines() if line.strip() and not line.startswith("-- ")]


def int_or_none(value: str | None) -> int | None:
    try:
        return int(value) if value not in (None, "", "[not set]") else None
    except ValueError:
        return None
