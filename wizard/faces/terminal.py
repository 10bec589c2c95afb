"""Which face an interactive command gets, from the terminal it runs in — and what to say when there is none.

  * Textual ("tui") only when stdin and stderr are TTYs (Textual reads stdin and draws on stderr; without
    both it hangs), TERM is set and not `dumb`, and the terminal is at least 60×20 (smaller, its screens
    cut off their own explanations);
  * plain questionary prompts ("plain") otherwise, or with `--plain`;
  * no face at all ("none") when stdin is not a TTY (a pipe, /dev/null, Ansible, CI): questionary raises
    EOFError on a closed stdin and Textual hangs, so nothing is asked — `no_terminal` prints what was
    found and the exact non-interactive commands instead, and the command exits 2.

`hermes-wizard` alone opens the wizard where it is needed (`opening_command`: setup for a home that is missing
or holds neither `.env` nor `config.yaml`, the doctor otherwise); without a terminal, `bare_without_terminal`
prints the commands that need none, and it exits 2.

Also the facts the plain prompts act on: an SSH session (secrets are about to cross it, and land in
`.env`), and whether the terminal can turn echo off (if not, a typed secret is shown as typed).

Contract: detection only reads the environment and asks termios; nothing here prompts or writes.
"""

from __future__ import annotations

import os
import shlex
import sys
import termios
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from hermes_wizard.core.exitcodes import ExitCode
from hermes_wizard.core.homeroot import HomeError, profile_home, resolve_root
from hermes_wizard.core.safetext import guarded_output, hide, to_stderr, visible
from hermes_wizard.core.values import Value, value_class
from hermes_wizard.judge.engine import evaluate
from hermes_wizard.judge.masking import secret_values
from hermes_wizard.judge.report import render_text

if TYPE_CHECKING:
    import argparse

MIN_COLUMNS, MIN_ROWS = 60, 20
TUI, PLAIN, NONE = "tui", "plain", "none"
SSH_VARIABLES = ("SSH_CONNECTION", "SSH_TTY", "SSH_CLIENT")


@value_class
class TerminalFacts(Value):
    stdin_tty: bool
    stderr_tty: bool
    term: str
    size: tuple[int, int] | None  # columns, rows of the terminal stderr is on (None: not known)

    @classmethod
    def detect(cls) -> TerminalFacts:
        try:
            size: tuple[int, int] | None = tuple(os.get_terminal_size(sys.stderr.fileno()))  # type: ignore[assignment]
        except (OSError, ValueError, AttributeError):  # not a terminal, or stderr replaced by a test
            size = None
        return cls(_isatty(sys.stdin), _isatty(sys.stderr), os.environ.get("TERM", ""), size)


def _isatty(stream: TextIO | None) -> bool:
    try:
        return bool(stream is not None and stream.isatty())
    except (ValueError, AttributeError):  # a closed or replaced stream
        return False


def choose_face(facts: TerminalFacts, plain: bool = False) -> str:
    """TUI, PLAIN or NONE for a command that asks questions (the rules in the module docstring)."""
    if not facts.stdin_tty:
        return NONE
    if plain or not facts.stderr_tty or facts.term in ("", "dumb"):
        return PLAIN
    if facts.size is None or facts.size[0] < MIN_COLUMNS or facts.size[1] < MIN_ROWS:
        return PLAIN
    return TUI


def over_ssh(environ: Mapping[str, str] | None = None) -> bool:
    """This process runs in an SSH session (sshd sets these for the session's shell)."""
    environ = os.environ if environ is None else environ
    return any(environ.get(name) for name in SSH_VARIABLES)


def echo_can_be_hidden(fd: int | None = None) -> bool:
    """Whether the terminal on `fd` (stdin) lets echo be turned off, tried for real and restored at once:
    tcgetattr/tcsetattr fail on some serial consoles and on anything that is not a terminal."""
    fd = sys.stdin.fileno() if fd is None else fd
    try:
        before = termios.tcgetattr(fd)
        quiet = list(before)
        quiet[3] = quiet[3] & ~termios.ECHO
        termios.tcsetattr(fd, termios.TCSANOW, quiet)
        hidden = not termios.tcgetattr(fd)[3] & termios.ECHO
        termios.tcsetattr(fd, termios.TCSANOW, before)
    except (termios.error, OSError, ValueError):
        return False
    return hidden


def chosen_place(args: argparse.Namespace) -> list[str]:
    """The --home/--profile the user gave, as shell words for a command to copy."""
    words = []
    for flag in ("home", "profile"):
        value = getattr(args, flag, None)
        if value:
            words += [f"--{flag}", value]
    return words


def no_terminal(args: argparse.Namespace) -> int:
    """Without a terminal: what was found (as `check` prints it) and the exact commands that need none; 2."""
    place = " ".join(shlex.quote(word) for word in chosen_place(args))
    place = f" {place}" if place else ""
    with guarded_output():  # a home's contents are escaped and its secrets masked on the way out
        raw = Path(args.home or os.environ.get("HERMES_HOME") or Path.home() / ".hermes").expanduser()
        try:
            root = resolve_root(args.home) if raw.is_dir() else None
            home = profile_home(root, args.profile) if root is not None and args.profile else root
        except HomeError as exc:
            to_stderr(f"hermes-wizard: {visible(str(exc))}")
            home = None
        if home is not None and home.is_dir():
            report = evaluate(home, args.profile or "default")
            hide(secret_values(report.snapshot))
            print(render_text(report))
        else:
            print(f"Hermes home: {visible(raw)} (not created yet)")
        to_stderr(_guidance(args.command, place))
    return ExitCode.USAGE


def _guidance(command: str, place: str) -> str:
    """For setup (doctor without a terminal never gets here: it prints its plan and how to apply it)."""
    head = (f"hermes-wizard: {command} asks questions, and stdin is not a terminal: nothing was asked and "
            "nothing was written.")
    return (f"{head}\nTo configure without questions, declare it in an answers file:\n"
            f"  hermes-wizard setup{place} --answers FILE.yaml\n"
            "or with flags, the token read from the environment variable named for it (never typed on a command "
            "line):\n"
            f"  hermes-wizard setup{place} --platform telegram --token-from-env TELEGRAM_BOT_TOKEN --allow 123456789\n"
            "Or run it again in a terminal (ssh -t gives one) to be asked.")


def default_home() -> Path:
    """The home a command without --home works on: $HERMES_HOME, else ~/.hermes."""
    return Path(os.environ.get("HERMES_HOME") or Path.home() / ".hermes").expanduser()


def opening_command(home: Path) -> str:
    """What `hermes-wizard` alone opens: "setup" for a home with nothing to repair yet (missing, or holding neither
    `.env` nor `config.yaml`: a fresh install keeps only Hermes's own code there), else "doctor"."""
    try:
        found = home.is_dir() and any((home / name).exists() for name in (".env", "config.yaml"))
    except OSError:  # an unreadable home: the doctor says what is wrong with it
        return "doctor"
    return "doctor" if found else "setup"


def bare_without_terminal(command: str, home: Path) -> int:
    """`hermes-wizard` alone without a terminal: nothing is asked; the commands that need none, for the home it
    would have opened `command` on; 2."""
    head = ("hermes-wizard: without a command it opens the wizard, which asks questions, and stdin is not a "
            "terminal: nothing was asked and nothing was written.")
    if command == "setup":
        said = (f"Hermes home: {visible(home)} (not set up yet). To configure it without questions, from an answers "
                "file or from flags (the token read from the environment variable named for it):")
        commands = [("hermes-wizard setup --answers FILE.yaml", ""),
                    ("hermes-wizard setup --platform telegram --token-from-env TELEGRAM_BOT_TOKEN --allow 123456789",
                     "")]
    else:
        said = f"Hermes home: {visible(home)}. Without questions:"
        commands = [("hermes-wizard check", "whether the gateway will start, and why not"),
                    ("hermes-wizard doctor --dry-run", "the safe repairs, as a diff; nothing is written"),
                    ("hermes-wizard doctor --fix --yes", "apply them (backed up: hermes-wizard undo restores)")]
    lines = [f"  {line:<34} {what}".rstrip() for line, what in commands]
    to_stderr("\n".join([head, said, *lines, "Every command: hermes-wizard --help. Or run it in a terminal (ssh -t "
                                            "gives one) to be asked."]))
    return ExitCode.USAGE
