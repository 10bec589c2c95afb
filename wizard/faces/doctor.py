"""The headless `doctor` face: plan, show, ask (or --yes), apply, verify (`undo`: wizard/faces/undo.py).

`doctor` prints one line per repair, the plan as a masked diff, and the verdict
Hermes will reach afterwards; `--fix` applies it (asking first on a terminal,
refusing to guess without one unless `--yes`).  "The gateway will start" is only
said after the written files were re-read and judged again.

The service that runs the home (wizard/plan/service_steps.py) is handled around the
file repair: a loop in progress is stopped before editing, `--install-gate` adds
the gate drop-in, and `--restart` (or having stopped a loop) restarts the service
once the home will start, then watches it for `--settle` seconds; "the gateway is
running" is said only after that.  `--dry-run` prints those commands, runs none.

Exit codes: 0 nothing to do, or repaired and the gateway will start (and, when
restarted, stayed up); 1 changes pending (`--dry-run`, or no `--fix`), a failed
write or service step, a drop-in asked for that cannot be planned (its folder refused:
the file repairs still apply), a restart that looped again, or problems left; 2 usage;
78 the gateway would still refuse to start.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from hermes_wizard.cases.fixing import Applied, DoctorChoices, Fixing, Proposal, outcome_code, prepare
from hermes_wizard.core.exitcodes import ExitCode
from hermes_wizard.core.safetext import hide, to_stderr, visible
from hermes_wizard.faces.judging import host_facts, plugin_tip
from hermes_wizard.faces.outcome import after_apply, is_clean, planned, restart_lines, written
from hermes_wizard.faces.selection import select_homes
from hermes_wizard.faces.terminal import chosen_place
from hermes_wizard.faces.wording import restart_hint
from hermes_wizard.hermes.loader.plugins import HostFacts
from hermes_wizard.judge.engine import HomeReport
from hermes_wizard.judge.masking import secret_values
from hermes_wizard.judge.report import verdict_clause
from hermes_wizard.plan.changes import render_diff
from hermes_wizard.plan.repairs import RepairOptions
from hermes_wizard.plan.service_steps import ServiceRequest, ServiceStep, render_service
from hermes_wizard.service.scope import ServiceScope
from hermes_wizard.service.systemd import Runner, journal_argv, show_argv, systemctl
from hermes_wizard.write.apply import ApplyError


def _say(text: str = "") -> None:
    """One message; the guarded stdout (wizard/core/safetext.py) escapes and masks what it carries."""
    sys.stdout.write(text + "\n")


def run_doctor(args: argparse.Namespace) -> int:
    homes = select_homes(args)
    if homes is None:
        return ExitCode.USAGE
    # The service checks may ask systemd (a dry run asks nothing and prints what it would run).
    scope = ServiceScope.of(args.unit, Runner(dry_run=args.dry_run))
    base_env = dict(os.environ) if args.inherit_env else {}
    facts = host_facts(args, homes[0][1])
    # flags choose for every platform at once: `--open-policy optin` opens each one the repair would
    choices = DoctorChoices(
        RepairOptions(open_policy=args.open_policy, dead_transport=args.dead_transport), confirmed=None,
        service=ServiceRequest(install_gate=args.install_gate, restart=args.restart, settle=args.settle,
                               wizard=Path(args.wizard_path) if args.wizard_path else None),
        edit_files=args.fix or args.dry_run)  # a dry run shows what --fix would do
    codes: list[int] = []
    acted = False
    judged: list[HomeReport] = []  # each home's report, for the plugin tip
    for profile, home in homes:
        if len(homes) > 1:
            _say(f"== {visible(home)} (profile {visible(profile)})")
        fixing = _judged(args, home, profile, base_env, facts, scope, codes)
        if fixing is None:
            continue
        judged.append(fixing.report)
        proposal = fixing.propose(choices)
        acted = _doctor_one(args, fixing, proposal, codes) or acted
    if acted and (tip := plugin_tip(facts, judged)):  # said with a repair, not on every clean run
        _say(visible(tip))
    if ExitCode.CONFIG in codes:
        return ExitCode.CONFIG
    return ExitCode.USAGE if ExitCode.USAGE in codes else max(codes or [ExitCode.OK])


def _judged(args: argparse.Namespace, home: Path, profile: str, base_env: dict[str, str], facts: HostFacts,
            scope: ServiceScope, codes: list[int]) -> Fixing | None:
    """The home prepared (refused, or an interrupted apply rolled back) and judged; None when it cannot be."""
    try:
        prepared = prepare(home, recover=args.fix and not args.dry_run)
    except ApplyError as exc:
        to_stderr(f"hermes-wizard: {exc}")
        codes.append(ExitCode.PROBLEMS)
        return None
    if prepared.refused:  # a FIFO, device, directory, link loop or huge file: never read, never written
        for line in prepared.refused:
            to_stderr(f"hermes-wizard: {visible(line)}")
        codes.append(ExitCode.PROBLEMS)
        return None
    if prepared.recovered:
        _say(visible(prepared.recovered))
    fixing = Fixing(home, profile, "doctor", base_env=base_env, facts=facts, scope=scope)
    hide(secret_values(fixing.report.snapshot))  # masked wherever they would be printed
    return fixing


def _doctor_one(args: argparse.Namespace, fixing: Fixing, proposal: Proposal, codes: list[int]) -> bool:
    """Show, ask, apply and say for one home; its exit codes go to `codes`.  True when something was proposed."""
    report, repair, home = fixing.report, proposal.repair, fixing.home
    assert repair is not None  # the doctor always plans a repair
    _describe_service(report)
    for line in repair.notes:
        _say(line)
    for line in repair.unfixable:
        _say(f"not fixed: {line}")
    steps = proposal.plan.service
    for line in proposal.service.notes:
        _say(line)
    if proposal.service.unmet:  # a service step asked for that will not be done: not a full success
        codes.append(ExitCode.PROBLEMS)
    if not proposal.files and not steps:
        if report.would_start and not proposal.service.unmet and is_clean(report):
            _say("Nothing to fix.")
        elif report.would_start:  # nothing the doctor changes, but `check` is not clean: say what it says
            _say("Nothing the doctor will change; what is left:")
            for line in written(report, home, restart=_restart_hint(fixing)).lines():
                _say(line)
        codes.append(outcome_code(report))
        return False
    if proposal.files:
        _say(render_diff(proposal.files).rstrip("\n"))
        for line in planned(proposal.outlook, creates_home=proposal.creates_home).lines():
            _say(line)
    if steps:
        _say(render_service(steps).rstrip("\n"))
    if args.dry_run or not (args.fix or steps):
        if args.dry_run:
            _dry_run(steps)
        else:
            _say(f"Run `hermes-wizard doctor --fix{_place(args)}` to apply (it backs up every file first).")
        codes.append(ExitCode.PROBLEMS)
        return True
    if not args.yes and not _confirm("Apply these changes?" if not steps else
                                     "Apply these changes and run the service steps above?"):
        _say("No changes were made.")
        codes.append(ExitCode.PROBLEMS if sys.stdin.isatty() else ExitCode.USAGE)
        return True
    try:
        applied = fixing.apply(proposal, reason="doctor --fix",
                               ask_hermes=False if args.no_verify else True if args.verify else None)
    except ApplyError as exc:
        to_stderr(f"hermes-wizard: {exc}")
        codes.append(ExitCode.PROBLEMS)
        return True
    if applied.result.written and proposal.editing:
        for line in repair.done:
            _say(f"Done: {line}")
    codes.append(_said_after(applied, proposal, fixing, args))
    if proposal.files and not proposal.editing:
        _say("The file changes above are not applied without --fix.")
        codes.append(ExitCode.PROBLEMS)
    return True


def _said_after(applied: Applied, proposal: Proposal, fixing: Fixing, args: argparse.Namespace) -> int:
    """What apply did, in order, and the exit code it comes to."""
    result, plan, home = applied.result, proposal.plan, fixing.home
    for unit in result.stopped:
        _say(f"Stopped {unit} (the loop is over).")
    for failure in result.service_failures:
        _say(f"Could not stop the loop: {failure}")
    code = applied.exit_code
    if result.backup is not None:
        _say(f"Backup: {visible(result.backup)}/")
    said = after_apply(applied, home, fixing.scope)
    if plan.changes:
        if said.hermes:
            _say(said.hermes)
        _say(said.verdict)
        for line in said.notes:
            _say(line)
        if not applied.hermes_disagrees:
            for line in said.findings:
                _say(line)
    for line in result.service_lines:
        _say(visible(line))
    for line in restart_lines(result, said.clean):
        _say(line)
    restarted = {step.unit for step in plan.service if step.action == "restart"}
    for unit in result.stopped:
        if unit not in restarted:
            scope = next(step.scope for step in plan.service if step.unit == unit)
            _say(f"{unit} is stopped. Start it once the home is fixed: "
                 f"{' '.join(_systemctl(scope, 'restart', unit))}")
    _say(said.next_step)  # the model's, as every face says it (faces/outcome.py after_apply)
    return code


def _describe_service(report: HomeReport) -> None:
    """The service findings (HW4xx) of `report`, flutter-style."""
    for finding in report.findings:
        if finding.code.startswith("HW4"):
            _say(f"[{finding.severity.glyph}] {finding.code} {finding.name}: {finding.message}")
            if finding.fix:
                _say(f"    Fix: {finding.fix}")


def _place(args: argparse.Namespace) -> str:
    """The home this doctor was pointed at and the choices that shaped the plan shown, as the words a printed
    command needs to apply that same plan to that same home."""
    words = chosen_place(args) + (["--all-profiles"] if getattr(args, "all_profiles", False) else [])
    for flag, value, default in (("--open-policy", args.open_policy, "pairing"),
                                 ("--dead-transport", args.dead_transport, "disable"),
                                 ("--target", getattr(args, "target", None), None),
                                 ("--hermes-version", getattr(args, "hermes_version", None), None),
                                 ("--unit", getattr(args, "unit", None), None),
                                 ("--wizard-path", getattr(args, "wizard_path", None), None)):
        words += [flag, value] if value and value != default else []
    words += ["--inherit-env"] if getattr(args, "inherit_env", False) else []
    return "".join(f" {shlex.quote(word)}" for word in words)


def _dry_run(steps: Sequence[ServiceStep]) -> None:
    """The exact commands the service steps would run, and the drop-ins they would write."""
    for step in steps:
        if step.action == "stop":
            _say(f"$ {shlex.join(step.argv())}\n$ {shlex.join(_systemctl(step.scope, 'reset-failed', step.unit))}")
        elif step.action == "drop-in":
            _say(f"would write {step.dropin_path}:")
            _say("".join(f"    {line}\n" for line in (step.text or "").splitlines()).rstrip("\n"))
        elif step.action == "daemon-reload":
            _say(f"$ {shlex.join(step.argv())}")
        else:
            _say(f"$ {shlex.join(step.argv())}\n$ {shlex.join(show_argv(step.scope, step.unit))}\n"
                 f"$ {shlex.join(journal_argv(step.scope, step.unit, since=int(time.time())))}")


def _systemctl(scope: str, *words: str) -> list[str]:
    return systemctl(scope, *words)


def _restart_hint(fixing: Fixing) -> str:
    hint = restart_hint(fixing.home, fixing.scope)
    return hint + (" (or rerun with --restart)" if hint.startswith("systemctl") else "")


def _confirm(question: str = "Apply these changes?", verb: str = "apply") -> bool:
    if not sys.stdin.isatty():
        to_stderr(f"hermes-wizard: no terminal to ask for confirmation; add --yes to {verb} without asking")
        return False
    try:
        return input(f"{question} [y/N] ").strip().lower() in ("y", "yes")
    except EOFError:
        return False


def _words(report: HomeReport | None) -> str:
    return "unknown" if report is None else verdict_clause(report)
