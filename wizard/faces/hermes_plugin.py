"""The Hermes plugin (entry point `wizard` in the group `hermes_agent.plugins`): `hermes wizard ...`, the OS-keyring
secret source, and a check after Hermes's own setup step of an own-policy platform.

Installed into Hermes's own venv and listed in `plugins.enabled` (`hermes plugins enable wizard`), `register(ctx)`:
* adds `hermes wizard setup|doctor|check|explain|undo ...`: the rest of the command line goes to this tool's own
  command line (wizard/faces/cli.py) unchanged, with `--home` = the active Hermes home (`hermes -p NAME` has
  already pointed HERMES_HOME at the profile) and, for check and doctor, `--hermes-python` = the Python running
  Hermes.  Ours go first, so a `--home` the user typed wins (argparse keeps the last).  Exit codes are this tool's.
* registers the secret source (wizard/faces/hermes_secrets.py) and, when this home turns it on and this Hermes
  does not apply plugin sources itself after discovery (0.19 does not; 0.20.1 does), applies it in this process
  at once: otherwise the gateway that loaded the plugin never sees the keyring secrets.
* wraps the setup step of the own-policy platforms Hermes's registry holds (wizard/faces/hermes_setup_hook.py):
  Hermes's own step runs, then `platform_setup` judges the home and says whether the gateway would refuse to
  start or lets everyone in, with the exact command that repairs it.

Contract: importing this module imports no Hermes module; every Hermes API is looked up inside a try, so a Hermes
without one (another version) keeps working and the plugin logs one line.  Nothing here prints a secret.
Every Hermes process that discovers plugins imports this module, so the wizard's own machinery (its command line,
engine and faces) is imported lazily, only when a wizard command or hook runs.
"""

from __future__ import annotations

import argparse
import logging
import os
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from hermes_wizard.core.exitcodes import ExitCode
from hermes_wizard.core.keyring_store import PLUGIN_NAME
from hermes_wizard.core.safetext import to_stderr
from hermes_wizard.faces.hermes_command import hermes_command

COMMAND = PLUGIN_NAME  # `hermes wizard`
TAKES_HOME = frozenset({"setup", "doctor", "check", "undo", "access", "pairing"})
TAKES_HERMES_PYTHON = frozenset({"doctor", "check", "access", "pairing"})
SHOWN_COMMANDS = ("setup", "doctor", "check", "access", "pairing", "explain", "undo")
log = logging.getLogger("hermes_wizard.plugin")


class PluginContext(Protocol):
    """What `register` uses of Hermes's PluginContext (0.19.0 hermes_cli/plugins.py); a Hermes may lack a part of it,
    so each use is guarded."""

    def register_cli_command(self, name: str, help: str, setup_fn: Callable[[argparse.ArgumentParser], None],
                             handler_fn: Callable[[argparse.Namespace], None] | None = None,
                             description: str = "") -> None: ...

    def register_secret_source(self, source: object) -> None: ...


def register(ctx: PluginContext) -> None:
    """Hermes calls this once per process when the plugin is enabled."""
    _guarded("the `hermes wizard` command", lambda: ctx.register_cli_command(
        COMMAND, help="setup wizard and doctor for the messaging gateway (hermes-wizard)",
        setup_fn=_setup_parser, handler_fn=_run, description=_description()))
    _guarded("the keyring secret source", lambda: _register_secret_source(ctx))
    _guarded("the setup-gateway check", _wrap_setup_steps)


def _guarded(what: str, step: Callable[[], None]) -> None:
    try:
        step()
    except Exception as exc:  # another Hermes version: this part is off, `hermes` itself keeps working
        log.warning("hermes-wizard: %s is not available in this Hermes (%s: %s)", what, type(exc).__name__, exc)


def active_home() -> Path:
    """The Hermes home this `hermes` process works on (its profile, after `-p NAME`)."""
    try:
        from hermes_constants import get_hermes_home

        return Path(get_hermes_home())
    except Exception:
        return Path(os.environ.get("HERMES_HOME") or Path.home() / ".hermes")


def wizard_argv(argv: list[str], home: Path, hermes_python: str) -> list[str]:
    """This tool's arguments for `hermes wizard ARGV`: the active home and Hermes's Python go before the
    user's own arguments, for the commands that take them."""
    if not argv or argv[0].startswith("-"):
        return list(argv)
    command, rest = argv[0], list(argv[1:])
    ours = (["--home", str(home)] if command in TAKES_HOME else []) + (
        ["--hermes-python", hermes_python] if command in TAKES_HERMES_PYTHON else [])
    return [command, *ours, *rest]


def _setup_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("wizard_args", nargs=argparse.REMAINDER, metavar="COMMAND ...",
                        help=f"a hermes-wizard command and its options ({hermes_command()} {COMMAND} COMMAND --help)")


def _run(args: argparse.Namespace) -> None:
    from hermes_wizard.core.safetext import speak_as
    from hermes_wizard.faces.cli import main

    speak_as(f"{hermes_command()} {COMMAND}")  # its advice names the command that works here
    argv = list(getattr(args, "wizard_args", None) or [])
    if not argv:
        to_stderr(_description())
        sys.exit(ExitCode.USAGE)
    sys.exit(main(wizard_argv(argv, active_home(), sys.executable)))  # Hermes ignores a handler's return value


def _description() -> str:
    hermes = hermes_command()
    lines = [f"hermes-wizard inside Hermes: judges and repairs the active Hermes home ({hermes} -p NAME for a "
             "profile).", "", "commands:"]
    helps = _command_helps()
    for name in SHOWN_COMMANDS:
        lines.append(f"  {name:<9}{helps.get(name, '')}")
    lines += ["", f"{hermes} {COMMAND} COMMAND --help shows a command's options."]
    return "\n".join(lines)


def _command_helps() -> dict[str, str]:
    try:  # the one-line helps of this tool's own parser, so the two never drift apart
        from hermes_wizard.faces.cli import build_parser

        subparsers = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
        return {action.dest: action.help or "" for action in subparsers._choices_actions}
    except Exception:
        return {}


def _register_secret_source(ctx: PluginContext) -> None:
    from hermes_wizard.faces import hermes_secrets

    source = hermes_secrets.make_source()
    if source is None:
        return
    ctx.register_secret_source(source)
    if hermes_secrets.applied_by_hermes():
        return  # 0.20.1 and later apply it themselves once discovery is done
    home = active_home()
    if hermes_secrets.enabled_in(home):
        hermes_secrets.apply_now(home)


def _wrap_setup_steps() -> None:
    from hermes_wizard.faces.hermes_setup_hook import wrap_setup_steps

    wrap_setup_steps(platform_setup)


def platform_setup(platform: str) -> None:
    """The setup step of `platform` inside `hermes setup gateway`: Hermes's own step, then, on a terminal, this
    tool's access step for it (wizard/faces/plain run_platform_step: on-disk state, who may use it explained,
    exactly the opt-in needed, review, apply); without one, our verdict on it and the command that repairs it."""
    from hermes_wizard.faces.hermes_setup_hook import stock_setup

    stock = stock_setup(platform)
    if stock is not None:
        stock()
    if sys.stdin.isatty() and sys.stdout.isatty():  # Hermes's menu is interactive: so is our step
        try:
            from hermes_wizard.faces.plain import run_platform_step
            from hermes_wizard.faces.selection import profile_name

            home = active_home()
            run_platform_step(platform, home, profile_name(home))
            return
        except Exception as exc:  # our step must never break Hermes's wizard: fall back to the verdict
            print(f"  hermes-wizard: the access step could not run ({type(exc).__name__})")
    try:
        lines = _verdict_lines(platform, active_home())
    except Exception as exc:  # judging must never break Hermes's wizard
        lines = [f"hermes-wizard: could not judge the home ({type(exc).__name__})"]
    print()
    for line in lines:
        print(f"  {line}")


def _verdict_lines(platform: str, home: Path) -> list[str]:
    from hermes_wizard.core.kinds import Verdict
    from hermes_wizard.core.safetext import visible
    from hermes_wizard.faces.outcome import written
    from hermes_wizard.faces.selection import profile_name
    from hermes_wizard.hermes.loader.plugins import HostFacts
    from hermes_wizard.judge.engine import evaluate

    facts = HostFacts.detect(home, sys.executable, dict(os.environ))
    report = evaluate(home, profile_name(home), facts=facts)
    row = next((r for r in report.rows if r.name == platform), None)
    if row is None or not row.enabled:
        lines = [f"hermes-wizard: {visible(platform)} is not enabled in this home."]
    else:
        words = {Verdict.REFUSES_START: "the gateway will refuse to start because of it",
                 Verdict.CANNOT_CONNECT: "it cannot connect", Verdict.OPEN: "open", Verdict.OK: "ok"}
        said = "; ".join(part for part in (words.get(row.verdict, str(row.verdict)), visible(row.access)) if part)
        lines = [f"hermes-wizard: {visible(platform)} — {said}."]
    lines.append(f"hermes-wizard: {written(report, home).verdict}")  # `check`'s own line, "Verified" only if clean
    if not report.would_start or (row is not None and row.verdict in (Verdict.REFUSES_START, Verdict.OPEN)):
        lines.append(f"To repair it (a diff first, nothing written without your yes): {doctor_command(home)}")
    return lines


def doctor_command(home: Path) -> str:
    """The exact command that runs the doctor on `home`."""
    from hermes_wizard.core.safetext import visible

    hermes = hermes_command()
    if home.parent.name == "profiles":
        return f"{hermes} -p {shlex.quote(visible(home.name))} {COMMAND} doctor"
    default = Path.home() / ".hermes"
    if os.path.abspath(home) == os.path.abspath(default):
        return f"{hermes} {COMMAND} doctor"
    return f"{hermes} {COMMAND} doctor --home {shlex.quote(visible(str(home)))}"
