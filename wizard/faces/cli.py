"""`hermes-wizard`'s full command line: the argparse parser of every command, and the dispatch to its face.

The commands live beside it: `check` (wizard/faces/check.py, and its gate), `explain`, `doctor`, `undo`,
`secrets`, and `setup` in the face the terminal allows (the TUI in screens/, plain prompts, or answers and
flags).  Every command runs under one error contract (wizard/faces/contract.py).  The console script
reaches `check` and the gate without this module (wizard/faces/entry.py); everything else comes here.
Each face (the faces/ module of a command, the Textual app) is imported lazily, once the command is known:
`--help` or a usage error loads none of them, and a command loads only its own. `importlib.metadata` (~20 ms:
email, zipfile, csv) loads lazily, only for `--version`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from hermes_wizard.core.bundled import example_home
from hermes_wizard.core.exitcodes import ExitCode
from hermes_wizard.core.homeroot import HomeError, profile_home, resolve_root
from hermes_wizard.core.kinds import DEAD_TRANSPORT_CHOICES, OPEN_POLICY_CHOICES
from hermes_wizard.core.safetext import as_spoken, guarded_output, to_stderr, visible
from hermes_wizard.faces.access_args import add_access_parser, add_pairing_parser
from hermes_wizard.faces.contract import guarded
from hermes_wizard.faces.selection import profile_name as _profile_name
from hermes_wizard.hermes.versions import MODELLED, is_modelled

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

    from hermes_wizard.faces.fastargs import CommandArgs


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--home", help="Hermes home (default: $HERMES_HOME, else ~/.hermes)")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--profile", help="a profile under <home>/profiles (default: the home itself)")
    group.add_argument("--all-profiles", action="store_true", help="the home and every profile in it")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--plain", action="store_true", help="no colour, no TUI (accepted for every command)")
    parser.add_argument("--inherit-env", action="store_true",
                        help="judge with this process's environment as the gateway's (as in a service "
                             "pre-start hook); by default a home is judged by its files alone")
    parser.add_argument("--hermes-python", help="the Python that runs Hermes (to know its installed SDKs)")
    versions = parser.add_mutually_exclusive_group()
    versions.add_argument("--hermes-version", metavar="X",
                          help="judge for this installed Hermes version instead of the one detected")
    versions.add_argument("--target", metavar="X",
                          help="judge the home as Hermes X would (before an upgrade): any modelled version")
    parser.add_argument("--unit", metavar="PATH",
                        help="the service that runs this home: a systemd unit file, a launchd plist or an s6 "
                             "service dir (default: found under ~/.config/systemd/user, /etc/systemd/system, "
                             "~/Library/LaunchAgents, /run/service)")


def build_parser() -> argparse.ArgumentParser:
    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:  # argparse exits 2 on its own; keep the message short
            self._print_message(self.format_usage())  # to stderr, as argparse does
            self.exit(ExitCode.USAGE, f"hermes-wizard: error: {message}\n")

        def _print_message(self, message: str,
                           file: SupportsWrite[str] | None = None) -> None:  # argparse's own writes (usage, errors)
            if not message or (file is not None and file is not sys.stderr):
                super()._print_message(message, file)  # --help and --version go to stdout as argparse writes them
                return
            try:  # stderr: through the one writer, escaped (an error message quotes what was typed)
                to_stderr(message, end="")
            except OSError:  # as argparse: a usage message that cannot be written is not an error of its own
                pass

    parser = _Parser(prog="hermes-wizard", description="Setup wizard and doctor for the Hermes messaging gateway.")
    parser.add_argument("--version", action="store_true", help="print this tool's version and the Hermes versions "
                        "it models")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    check = sub.add_parser("check", help="say whether the gateway will start, and why not")
    _common(check)
    check.add_argument("--gate", action="store_true",
                       help="pre-start gate for a service: exit 78 with one line only when Hermes would refuse to "
                            "start (its open-policy rule), else 0; judges with this process's environment")
    check.add_argument("--verify", action="store_true",
                       help="also ask the installed Hermes itself (its own loader and startup rule, on a throw-away "
                            "copy of the home, nothing started) and show its verdict beside ours")
    check.add_argument("--service", action="store_true",
                       help="also ask systemd (systemctl show, journalctl) whether the service is looping")
    setup = sub.add_parser("setup", help="the full-screen wizard: platform by platform, then review and apply; "
                           "or, with --answers FILE or flags, the same without prompts")
    setup.add_argument("--home", help="Hermes home (default: $HERMES_HOME, else ~/.hermes); created on apply")
    setup.add_argument("--profile", help="a profile under <home>/profiles")
    setup.add_argument("--plain", action="store_true", help="no full-screen UI")
    from hermes_wizard.faces.setup_flags import add_arguments as add_declared_arguments

    add_declared_arguments(setup)  # --answers FILE and flags for every question (wizard/faces/declared.py)
    doctor = sub.add_parser("doctor", help="plan the safe repairs, show them as a diff, apply them with consent")
    _common(doctor)
    doctor.add_argument("--fix", action="store_true", help="apply the repairs (asks first unless --yes)")
    doctor.add_argument("--yes", action="store_true", help="do not ask: apply the safe repairs")
    doctor.add_argument("--dry-run", action="store_true",
                        help="print the plan and write nothing; exit 1 when changes are pending, 0 when none")
    doctor.add_argument("--open-policy", choices=OPEN_POLICY_CHOICES, default="pairing",
                        help="what an open policy without opt-in becomes (default: pairing)")
    doctor.add_argument("--dead-transport", choices=DEAD_TRANSPORT_CHOICES, default="disable",
                        help="disable a platform that cannot connect (default), or leave it")
    asking = doctor.add_mutually_exclusive_group()
    asking.add_argument("--no-verify", action="store_true",
                        help="after writing, do not ask the installed Hermes itself (asked by default when its "
                             "Python is found: about a second)")
    asking.add_argument("--verify", action="store_true",
                        help="as root on a home you do not own: ask its Hermes too (run as the home's owner, "
                             "in a session without your terminal or environment); not asked otherwise")
    doctor.add_argument("--install-gate", action="store_true",
                        help="add a drop-in to the systemd unit that checks Hermes's refusal rule before each "
                             "start, so a refusal is not restarted forever (on systemd < 251: Restart=on-failure "
                             "and RestartPreventExitStatus=0)")
    doctor.add_argument("--restart", action="store_true",
                        help="restart the service after the repair and confirm it stayed up")
    doctor.add_argument("--settle", type=float, default=12.0, metavar="SECONDS",
                        help="how long a restarted service must stay up to count as running (default 12)")
    doctor.add_argument("--wizard-path", metavar="PATH",
                        help="the hermes-wizard the gate runs (default: this installation's)")
    undo = sub.add_parser("undo", help="restore the files of the latest backup, after showing what "
                                   "changes and the verdict (the current ones are backed up)")
    undo.add_argument("--home", help="Hermes home (default: $HERMES_HOME, else ~/.hermes)")
    undo.add_argument("--profile", help="a profile under <home>/profiles")
    undo.add_argument("--plain", action="store_true")
    undo.add_argument("--hermes-python", help="the Python that runs Hermes (undoing a pairing approval runs Hermes's "
                                              "own revoke; found automatically like check's)")
    undo_mode = undo.add_mutually_exclusive_group()
    undo_mode.add_argument("--list", action="store_true",
                           help="list the backup sets, newest first (name, reason, files, service drop-in)")
    undo_mode.add_argument("--dry-run", action="store_true",
                           help="show what undo would restore (a masked diff) and the verdict the restored home "
                                "gets; write nothing")
    undo_mode.add_argument("--yes", action="store_true",
                           help="do not ask: restore (without a terminal, undo refuses unless --yes)")
    demo = sub.add_parser("demo", help="copy the bundled \"death loop\" example home to a temporary folder and run "
                                       "the doctor on the copy")
    demo.add_argument("--plain", action="store_true", help="no full-screen UI: plain prompts on a terminal, "
                                                           "else the plan printed")
    secrets = sub.add_parser("secrets", help="move platform secrets between .env and the OS keyring")
    secrets_sub = secrets.add_subparsers(dest="secrets_command", metavar="ACTION", required=True,
                                         parser_class=_Parser)
    migrate = secrets_sub.add_parser("migrate", help="move every platform secret to the OS keyring (the gateway "
                                     "reads them through this tool's Hermes plugin) or back to .env; undo reverses")
    _common(migrate)
    migrate.add_argument("--to", choices=("keyring", "env"), required=True)
    migrate.add_argument("--dry-run", action="store_true", help="show the move and the verdict after it; change "
                         "nothing")
    migrate.add_argument("--yes", action="store_true", help="do not ask (without a terminal, required)")
    add_access_parser(sub, _common)
    add_pairing_parser(sub, _common)
    explain = sub.add_parser("explain", help="document a check code (hermes-wizard explain HW101)")
    explain.add_argument("code", nargs="?", help="a code such as HW101, or a check name; omit to list all")
    explain.add_argument("--format", choices=("text", "json"), default="text")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exited:
        if exited.code == ExitCode.USAGE and _detailed(argv):  # there 2 means "changed": a mistyped flag is an error
            raise SystemExit(ExitCode.PROBLEMS) from None
        raise
    if args.version:
        return _version()
    if args.command is None:
        return _bare(parser)
    if getattr(args, "target", None):
        if not is_modelled(args.target):
            parser.error(f"--target {args.target}: not a modelled Hermes version (choose one of {', '.join(MODELLED)})")
    return run(args)


def _bare(parser: argparse.ArgumentParser) -> int:
    """`hermes-wizard` alone: on a terminal, the wizard where it is needed (setup or the doctor, by
    `terminal.opening_command`); without one, the commands that need none, and 2."""
    from hermes_wizard.faces import terminal

    home = terminal.default_home()
    command = terminal.opening_command(home)
    if not _can_ask():
        return terminal.bare_without_terminal(command, home)
    return run(parser.parse_args([command]))


def _detailed(argv: list[str]) -> bool:
    """`setup … --detailed-exitcode` (or an abbreviation argparse accepts), whatever else is wrong."""
    return argv[:1] == ["setup"] and any(len(a) > 3 and "--detailed-exitcode".startswith(a.split("=")[0])
                                         for a in argv[1:])


def run(args: CommandArgs) -> int:
    """Run a parsed command (from the full parser, or `check`'s own reader in wizard/faces/fastargs.py)
    under the error contract of wizard/faces/contract.py."""
    if args.command == "check" and args.gate:  # the gate's own face: none of check's engine (wizard/faces/gate.py)
        from hermes_wizard.faces.gate import run_gate

        return run_gate(args)
    if args.command == "check":
        from hermes_wizard.faces.check import run_check

        return run_check(args)
    assert isinstance(args, argparse.Namespace)  # only `check` is read without the full parser (faces/fastargs.py)
    return guarded(lambda: _run(args))


def _run(args: argparse.Namespace) -> int:
    if args.command == "setup":
        from hermes_wizard.faces.setup_flags import wants_declared  # not on the check path

        if wants_declared(args):  # answers file or flags: never a prompt
            from hermes_wizard.faces.declared import run_declared

            return run_declared(args)
    if args.command == "demo":  # before the output guard: the doctor it runs may open the TUI
        return _demo(args)
    if args.command == "setup" or (args.command == "doctor" and not (args.fix or args.dry_run or args.unit
                                                                      or args.install_gate or args.restart)
                                    and not args.all_profiles and _can_ask()):
        return _run_interactive(args)
    with guarded_output():  # nothing from a home reaches the terminal raw (wizard/core/safetext.py)
        return _headless(args)


def _headless(args: argparse.Namespace) -> int:
    if args.command == "explain":
        from hermes_wizard.faces.explain import run_explain

        return run_explain(args)
    if args.command == "doctor":
        from hermes_wizard.faces import doctor

        return doctor.run_doctor(args)
    if args.command == "undo":
        from hermes_wizard.faces.undo import run_undo

        return run_undo(args)
    if args.command == "secrets":
        from hermes_wizard.faces.secrets_cmd import run_secrets

        return run_secrets(args)
    if args.command == "access":
        from hermes_wizard.faces.access import run_access

        return run_access(args)
    if args.command == "pairing":
        from hermes_wizard.faces.pairing_cmd import run_pairing_cmd

        return run_pairing_cmd(args)
    raise AssertionError(f"no command {args.command!r}")  # the parser admits no other


def _version() -> int:
    from importlib.metadata import PackageNotFoundError, version  # ~20 ms that no other command needs

    try:
        mine = version("hermes-wizard")
    except PackageNotFoundError:
        mine = "unknown (not installed)"
    print(f"hermes-wizard {mine}\nmodels Hermes {', '.join(MODELLED)}; any other version is detected and judged "
          "by the nearest model, and the pre-start gate lets it start")
    return ExitCode.OK


def _can_ask() -> bool:
    """A doctor without flags asks only when stdin is a terminal; else it prints its plan (headless)."""
    from hermes_wizard.faces.terminal import TerminalFacts

    return TerminalFacts.detect().stdin_tty


def _run_interactive(args: argparse.Namespace) -> int:
    """setup, or the doctor's interactive repair, in the face the terminal allows (wizard/faces/terminal.py):
    the TUI, plain prompts, or — no terminal at all — what was found and the commands that need none."""
    from hermes_wizard.faces import terminal
    face = terminal.choose_face(terminal.TerminalFacts.detect(), plain=args.plain)
    if face == terminal.NONE:
        return terminal.no_terminal(args)
    try:
        if args.command == "setup" and not _home_exists(args.home):
            home, profile = Path(args.home or os.environ.get("HERMES_HOME") or Path.home() / ".hermes"), "default"
            home = home.expanduser().absolute()
        else:
            root = resolve_root(args.home)
            home = profile_home(root, args.profile) if args.profile else root
            profile = args.profile or _profile_name(root)
    except HomeError as exc:
        to_stderr(f"hermes-wizard: {visible(str(exc))}")
        return ExitCode.USAGE
    save, keyring = getattr(args, "save_answers", None), getattr(args, "secrets", None) == "keyring"
    if face == terminal.PLAIN:
        from hermes_wizard.faces.plain import run_plain

        return run_plain(args.command, home, profile, save_answers=save, keyring=keyring)
    return _run_tui(args.command, home, profile, save, keyring)


def _run_tui(command: str, home: Path, profile: str, save_answers: str | None = None, keyring: bool = False) -> int:
    from hermes_wizard.screens.app import WizardApp

    outcome = WizardApp(home, profile, mode=command, save_answers=save_answers, keyring=keyring).run()
    if outcome is None or not outcome.applied:
        print("No changes were made.")
        return ExitCode.OK
    result = outcome.result
    assert result is not None  # an applied outcome carries its ApplyResult
    if outcome.saved is not None:
        print(as_spoken(f"Answers: {outcome.saved} (no secret in it; `hermes-wizard setup --answers` applies them)"))
    print(f"Backup: {result.backup}/")
    return outcome.exit_code


def _home_exists(explicit: str | None) -> bool:
    raw = explicit or os.environ.get("HERMES_HOME") or str(Path.home() / ".hermes")
    return Path(raw).expanduser().is_dir()


def _demo(args: argparse.Namespace) -> int:
    """The first thing to try: the doctor on a copy of the example home (the original is never touched)."""
    home = Path(tempfile.mkdtemp(prefix="hermes-wizard-demo.")) / "home"
    shutil.copytree(example_home(), home)
    (home / ".env").chmod(0o600)  # a real home keeps its secrets at 0600
    print(f"demo: the doctor on a copy of the example home with its restart loop, at {home}\n", flush=True)
    code = main(["doctor", "--home", str(home)] + (["--plain"] if args.plain else []))
    print(f"\ndemo: the copy is at {home} (doctor exit code {code}; 78 means Hermes would refuse to start)\n"
          f"demo: try also: hermes-wizard check --home {home}   (and setup, doctor --fix --yes, undo)")
    return ExitCode.OK if code in (ExitCode.OK, ExitCode.PROBLEMS, ExitCode.CONFIG) else code


if __name__ == "__main__":
    sys.exit(main())
