"""`setup --answers FILE` and `setup --platform … ` flags: a declared configuration, applied without prompts.

The declaration (answers file or flags, wizard/faces/setup_flags.py) is validated whole first: every
problem is printed, each naming the file and line (or the flag), and nothing is written (exit 2).
Then it answers the session of the setup use case like any face (wizard/cases/fixing.py), whose Plan is shown
as a masked diff with the verdict and findings `check` would give the home afterwards, and applied by the one
writer (wizard/write/apply.py), which re-reads and judges what it wrote.  Applying the same answers
again plans no change and writes nothing.  A plan after which Hermes would refuse to start is never
written (that is the restart loop this tool exists to end).

Exit codes:               default      --detailed-exitcode
  nothing to change         0               0
  changes applied           0               2   (also: --dry-run with changes pending)
  --dry-run, changes        1               2
  error findings left       1               1   (written: the gateway starts, a platform will not work)
  invalid answers/flags     2               1   (2 would read as "changed"; a flag argparse rejects too)
  write failed              1               1
  Hermes would refuse       78              78  (nothing written)
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TextIO

from hermes_wizard.cases.fixing import Fixing, outcome_code
from hermes_wizard.core.exitcodes import DetailedExitCode, ExitCode
from hermes_wizard.core.homeroot import HomeError, profile_home, resolve_root
from hermes_wizard.core.keyring_store import usable_for
from hermes_wizard.core.safetext import guarded_output, hide, to_stderr, visible
from hermes_wizard.faces import outcome
from hermes_wizard.faces.selection import profile_name
from hermes_wizard.faces.setup_flags import flags_tree, usage_code
from hermes_wizard.faces.trusted_file import read_trusted
from hermes_wizard.faces.wording import open_words
from hermes_wizard.hermes.loader.catalog import Spec
from hermes_wizard.judge.masking import secret_values
from hermes_wizard.plan.answers_file.schema import AnswersError, Declared, declare
from hermes_wizard.plan.answers_file.session_io import into_session
from hermes_wizard.plan.answers_file.tree import Item, TreeError, read_tree
from hermes_wizard.plan.changes import render_diff
from hermes_wizard.plan.session import AnswerError, Session
from hermes_wizard.write.apply import ApplyError
from hermes_wizard.write.saved_answers import SavedAnswersError, save_answers

MAX_ANSWERS = 256 * 1024


def _say(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def _complain(lines: Iterable[str]) -> None:
    for line in lines:
        to_stderr(f"hermes-wizard: {visible(line)}")


def run_declared(args: argparse.Namespace, stdin: TextIO | None = None) -> int:
    """Run `setup` with an answers file or flags (the caller has checked setup_flags.wants_declared)."""
    with guarded_output():  # nothing from a file or a home reaches the terminal raw
        return _run(args, stdin or sys.stdin)


def _run(args: argparse.Namespace, stdin: TextIO) -> int:
    bad = usage_code(args)
    located = _home(args)
    if isinstance(located, str):
        _complain([located])
        return bad
    home, profile = located
    fixing = Fixing(home, profile, "setup")  # first: the names and variables a declaration may use are its Hermes's
    report = fixing.report
    specs = report.model.platforms()
    try:
        tree, extra_env = _declaration(args, specs, stdin)
        declared = declare(tree, {**os.environ, **extra_env}, specs)
    except (TreeError, AnswersError) as exc:
        _complain(exc.problems)
        _complain(["nothing was written"])
        return bad
    if not declared.platforms:
        _complain(["nothing is declared: give --answers FILE, or --platform NAME / --disable NAME"])
        return bad
    hide(declared.secrets())  # masked wherever they would be printed
    for warning in declared.warnings:
        _say(f"warning: {visible(warning)}")
    for line in _reads(declared, extra_env):
        _say(line)
    hide(secret_values(report.snapshot))
    session = fixing.session
    try:
        into_session(declared, session)
    except AnswerError as exc:
        _complain([str(exc), "nothing was written"])
        return bad
    if args.save_answers:
        saved = _save(session, declared, args.save_answers)
        if saved:
            return bad
    return _apply(args, fixing)


def _reads(declared: Declared, extra_env: dict[str, str]) -> list[str]:
    """One line per value taken from outside the file: every variable read is named before the plan."""
    lines = []
    for name, decl in declared.platforms.items():
        for key, variable in decl.from_env.items():
            source = "stdin (--token-stdin)" if variable in extra_env else f"the environment variable {variable}"
            lines.append(f"Reads {name}'s {key} from {visible(source)} (the value is not shown).")
    return lines


def _apply(args: argparse.Namespace, fixing: Fixing) -> int:
    session = fixing.session
    if session.secrets_in_keyring:
        if why := usable_for(session.report.home):
            _complain([f"secrets: keyring was asked, but {why}; nothing "
                       "was written (use `secrets: env` to keep them in .env, mode 0600)"])
            return ExitCode.PROBLEMS
    proposal = fixing.propose()
    plan, outlook = proposal.plan, proposal.outlook
    home = fixing.home
    if plan:
        _say(render_diff(plan).rstrip("\n"))
        said = outcome.planned(outlook, creates_home=proposal.creates_home)
    else:  # the files on disk are the home as declared: `check`'s words for them, verified or not
        _say("Nothing to change: the home is already as declared.")
        said = outcome.written(outlook, home)
    for line in said.lines() + ([open_words(outlook)] if open_words(outlook) else []):
        _say(line)
    if not outlook.would_start:
        _say("Nothing was written: Hermes would refuse to start with these answers (see above).")
        return ExitCode.CONFIG
    if not plan or args.dry_run:
        if plan:
            _say("Dry run: nothing was written.")
        return _code(args, outcome_code(outlook), changed=bool(plan), dry=args.dry_run)
    try:
        applied = fixing.apply(proposal, reason="hermes-wizard setup --answers")
    except ApplyError as exc:
        _complain([str(exc)])
        return ExitCode.PROBLEMS
    result = applied.result
    if result.backup is not None:
        _say(f"Backup: {visible(result.backup)}/")
    done = outcome.after_apply(applied, home, fixing.scope)
    if done.hermes:
        _say(done.hermes)
    _say(done.verdict)
    for line in done.notes:
        _say(line)
    for line in done.findings if done.findings != said.findings else ():  # listed above when unchanged
        _say(line)
    _say(done.next_step)
    return _code(args, applied.exit_code, changed=True, dry=False)


def _code(args: argparse.Namespace, code: int, changed: bool, dry: bool) -> int:
    """The outcome's exit code (wizard/cases/fixing.py `outcome_code`, every face's), then what this face's
    flags add to a clean one: --detailed-exitcode says "changed", a dry run with changes pending is 1."""
    if code != ExitCode.OK:
        return code
    if args.detailed_exitcode:
        return DetailedExitCode.CHANGED if changed else ExitCode.OK
    return ExitCode.PROBLEMS if dry and changed else ExitCode.OK


def _declaration(args: argparse.Namespace, specs: Mapping[str, Spec],
                 stdin: TextIO) -> tuple[Item, dict[str, str]]:
    if not args.answers:
        return flags_tree(args, specs, stdin)
    flags_tree(args, specs, stdin)  # refuses --answers mixed with answer flags
    name = "<stdin>" if args.answers == "-" else args.answers
    raw = _read_answers(args.answers, stdin)
    if isinstance(raw, str):
        raise TreeError([raw])
    return read_tree(raw, name), {}


def _read_answers(path: str, stdin: TextIO) -> bytes | str:
    """The file's bytes (at most MAX_ANSWERS + 1), or why not: a file someone other than the caller or
    root could have written is refused (wizard/faces/trusted_file.py), a FIFO or device is never opened
    for a blocking read, and a directory or a missing file is said plainly."""
    if path == "-":
        return stdin.buffer.read(MAX_ANSWERS + 1) if hasattr(stdin, "buffer") else stdin.read().encode()
    return read_trusted(path, MAX_ANSWERS)


def _save(session: Session, declared: Declared, path: str) -> bool:
    """Record the answers (--save-answers); True when that failed (said on stderr)."""
    names = {key: var for decl in declared.platforms.values() for key, var in decl.from_env.items()}
    try:
        target = save_answers(session, path, names)
    except SavedAnswersError as exc:
        _complain([str(exc), "nothing was written to the home"])
        return True
    _say(f"Answers saved to {visible(target)} (mode 0600; secrets referenced by variable name, not written).")
    return False


def _home(args: argparse.Namespace) -> tuple[Path, str] | str:
    """The home and profile `setup` configures (a new home is created on apply), or why not."""
    raw = args.home or os.environ.get("HERMES_HOME") or str(Path.home() / ".hermes")
    try:
        if not Path(raw).expanduser().is_dir():
            return Path(raw).expanduser().absolute(), "default"
        root = resolve_root(args.home)
        return (profile_home(root, args.profile) if args.profile else root), (args.profile or profile_name(root))
    except HomeError as exc:
        return str(exc)
