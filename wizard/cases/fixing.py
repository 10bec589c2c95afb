"""`setup` and `doctor`, once: one home through one session, whichever face asks the questions.

  prepare   `prepare(home, recover=...)`: a home that cannot be read safely is refused before anything else;
            an apply killed half-way is rolled back first (doctor --fix)
  judge     `Fixing(home, ...)`: the home judged once, with the host facts and service scope the face was given
  choices   the session's answers (wizard/plan/session.py) and, for the doctor, `DoctorChoices`
  propose   `Fixing.propose(choices)`: the Plan, the repair's notes, the service steps, and `outlook` — the report
            `check` will give the home as the proposal leaves it
  apply     `Fixing.apply(proposal)`: the one write (wizard/write/apply.py), the written home judged again,
            and the installed Hermes asked for its own verdict on a copy of the files written
  outcome   `Applied`: what apply did, what that Hermes said, and `exit_code`, the one exit status every face
            returns for it

What only applying or the service steps need (the writer, the backups, deciding service steps) is imported
lazily, where used: the TUI's first screen judges and plans but writes nothing (ARCHITECTURE.md, "Performance
targets": ~45 ms of imports it does not need).

Contract: nothing here asks, prints, or knows which face runs.  A face may call `propose` as often as it redraws:
the repair is planned once per report and options, the service steps once per request and starting point, the
plan once per change of the answers, and each planned state is judged once (the session keeps those).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.core.exitcodes import ExitCode
from hermes_wizard.core.homefs import refusals
from hermes_wizard.core.safetext import visible
from hermes_wizard.core.values import Value, value_class
from hermes_wizard.hermes.loader.plugins import HostFacts
from hermes_wizard.hermes.loader.yamlfile import ParsedYaml
from hermes_wizard.judge.engine import HomeReport, evaluate
from hermes_wizard.plan.changes import ENV, YAML, Change, Plan
from hermes_wizard.plan.repairs import Repair, RepairOptions, plan_repairs
from hermes_wizard.plan.service_steps import ServicePlan, ServiceRequest
from hermes_wizard.plan.session import Session
from hermes_wizard.service.scope import ServiceScope
from hermes_wizard.service.systemd import Runner

if TYPE_CHECKING:
    from hermes_wizard.hermes.verify import HermesAnswer
    from hermes_wizard.write.apply import ApplyResult

SETUP, DOCTOR = "setup", "doctor"
# What the interactive doctors (the TUI, the plain prompts) offer of the service: the gate and a watched restart.
OFFERED_SERVICE = ServiceRequest(install_gate=True, restart=True)
NAMED_WRITTEN = 4  # files a login wrote, named one by one in what this session wrote; the rest counted


@value_class
class Prepared(Value):
    refused: tuple[str, ...] = ()  # why the home's files may not be read or written (then nothing else happens)
    recovered: str = ""  # an interrupted apply rolled back, in words ("" when there was none)


def prepare(home: Path, *, recover: bool) -> Prepared:
    """Before judging: refuse a home whose files are not regular files (a FIFO, a device, a link loop, a huge
    file: never read, never written); with `recover`, roll back an apply that was killed half-way.
    Raises write.apply.ApplyError when that rollback fails."""
    refused = tuple(refusals(home, (ENV, YAML)))
    if refused:
        return Prepared(refused)
    if not recover:
        return Prepared()
    from hermes_wizard.write.backups import recover_home

    return Prepared(recovered=recover_home(home) or "")


@value_class
class DoctorChoices(Value):
    """The doctor's own choices; what a face chose for each platform is the session's."""

    repair: RepairOptions = RepairOptions()
    # platforms whose name was typed to let the repair open them to everyone; None: all of them (a flag
    # such as `--open-policy optin` names the choice for every platform at once)
    confirmed: frozenset[str] | None = frozenset()
    service: ServiceRequest | None = None  # the service steps asked for (None: none planned)
    run_service: bool = True  # the planned service steps are applied (a face may offer them unticked)
    edit_files: bool = True  # False: the file repair is shown, not applied (`doctor` without --fix)


@value_class
class Proposal(Value):
    plan: Plan  # what apply writes and runs
    files: Plan  # the file changes shown (the repair as --fix would write it, even when not edited)
    outlook: HomeReport  # what `check` will say of the home as this proposal leaves it
    repair: Repair | None = None  # the doctor's repair: its notes, what it cannot fix, its past tense
    service: ServicePlan = ServicePlan()  # every service step planned, and what will not be done, and why
    waiting: tuple[str, ...] = ()  # platforms the repair opens once their name is typed
    creates_home: bool = False  # the home does not exist yet: applying the plan creates it

    @property
    def editing(self) -> bool:
        return bool(self.plan.changes)


@value_class
class Applied(Value):
    result: ApplyResult
    exit_code: ExitCode
    hermes: HermesAnswer | None = None  # the installed Hermes's own verdict on a copy of the files written
    hermes_not_asked: str = ""  # why it was not asked although it is installed ("" when asked, or not installed)
    created_home: bool = False  # the home did not exist before this apply, and does now

    @property
    def report(self) -> HomeReport:
        """The written home, read back and judged again."""
        return self.result.report

    @property
    def hermes_disagrees(self) -> bool:
        """The written home starts by our judgement, and the installed Hermes, asked, refuses it or crashes:
        then Hermes is trusted (the exit code is 78)."""
        told = self.hermes
        return (told is not None and not told.failure and self.report.would_start
                and (told.would_start is False or bool(told.error)))


def outcome_code(report: HomeReport, result: ApplyResult | None = None) -> ExitCode:
    """The exit status of a setup or doctor that leaves the home as `report` says: 78 when Hermes would refuse
    to start, 1 when an error is left or a service step asked for was not done, else 0."""
    code = report.exit_code()
    if code == ExitCode.CONFIG:
        return code
    if result is not None and (result.service_failures or result.running is False or result.gate_not_done):
        return ExitCode.PROBLEMS
    return code


class Fixing:
    """One home through one session of `setup` or `doctor` (the module doc)."""

    def __init__(self, home: Path, profile: str = "default", mode: str = SETUP, *,
                 base_env: dict[str, str] | None = None, facts: HostFacts | None = None,
                 scope: ServiceScope | None = None, keyring: bool = False) -> None:
        self.home, self.profile, self.mode = home, profile, mode
        self.home_existed = home.is_dir()  # a first run on a missing home: every face says it will be created
        # the environment the gateway inherits (None: judged by its files alone, the host detected from ours)
        self.base_env = dict(base_env) if base_env is not None else None
        self.scope = scope if scope is not None else ServiceScope()
        self.runner = self.scope.runner or Runner()  # asks systemd its version when a gate is planned
        report = evaluate(home, profile, base_env=self.base_env, facts=facts, service=self.scope,
                          parsed=ParsedYaml())  # kept: the repair, the previews and apply judge the same bytes
        self.facts = report.facts  # detected once: a re-read judges with the same host
        self.session = Session(report, mode)
        self.session.secrets_in_keyring = keyring
        self._repairs: dict[RepairOptions, Repair] = {}
        self._candidates: dict[tuple[Change, ...], HomeReport] = {}  # the repairs' candidates, each judged once
        self._services: dict[tuple[object, ...], ServicePlan] = {}
        self.written: list[str] = []  # what this session wrote already (apply, pairing through Hermes), in words

    @property
    def report(self) -> HomeReport:
        """The home as it is now (judged at the start, after a re-read, or after apply)."""
        return self.session.report

    # -- choices and what they make ---------------------------------------------------------------------------

    def repair(self, options: RepairOptions) -> Repair:
        """The doctor's repair of the home as it is now, for these options (planned once each)."""
        if options not in self._repairs:
            self._repairs[options] = plan_repairs(self.report, options, judged=self._candidates)
        return self._repairs[options]

    def propose(self, choices: DoctorChoices | None = None) -> Proposal:
        """What the session's answers (and the doctor's `choices`) would write and run, and `check`'s report of
        the home as they leave it.  Setup passes no choices: no repair, no service steps."""
        session = self.session
        repair = None
        if choices is not None:
            repair = self.repair(choices.repair)
            confirmed = choices.confirmed if choices.confirmed is not None else {
                c.platform for c in repair.plan.changes if c.platform}
            session.set_repair(repair.plan.changes, confirmed)
            if repair.plan:  # the repair judged its own plan: where the answers plan the same, it is not judged again
                session.judged_already(repair.plan, repair.after)
        files = session.plan()
        editing = bool(files.changes) and (choices is None or choices.edit_files)
        will_start = (session.outlook() if editing else self.report).would_start
        service = ServicePlan()
        if choices is not None and choices.service is not None:
            service = self._service_plan(choices.service, editing, will_start)
        steps = service.steps if choices is not None and choices.run_service else ()
        outlook = session.outlook(steps)
        plan = (files if editing else files.without_changes()).with_service(steps)
        return Proposal(plan, files, outlook, repair, service, tuple(session.needs_confirming()),
                        creates_home=bool(plan) and not self.home.is_dir())

    def _service_plan(self, request: ServiceRequest, editing: bool, will_start: bool) -> ServicePlan:
        key = (request, editing, will_start)
        if key not in self._services:  # planning proves the gate by running it: once per starting point
            from hermes_wizard.plan.service_planning import plan_service

            self._services[key] = plan_service(self.home, self.profile, request, editing=editing,
                                               will_start=will_start, scope=self.scope, runner=self.runner)
        return self._services[key]

    # -- the one write ------------------------------------------------------------------------------------------

    def apply(self, proposal: Proposal, *, reason: str, ask_hermes: bool | None = None) -> Applied:
        """Write `proposal` (write/apply.py: back up, write atomically, read back, judge again); the written home
        is the session's new starting point and the answers are spent.  Once files changed, the installed
        Hermes is asked for its own verdict on a copy of them (hermes/verify.py, confined): `ask_hermes` None
        asks it where it runs as ourselves, True also as the home's owner (root: that Hermes is the owner's
        code, asked only when told), False never.  Raises write.apply.ApplyError."""
        from hermes_wizard.write.apply import apply_plan

        facts, existed = self.report.facts, self.home.is_dir()
        result = apply_plan(proposal.plan, base_env=self.base_env, reason=reason, facts=facts,
                            runner=self.scope.runner, scope=self.scope, parsed=self.report.parsed)
        self._start_from(result.report, spent=True)
        count = len(proposal.plan.changes)
        self.written.append(f"{count} {'change' if count == 1 else 'changes'} applied" if count
                            else "the service steps it ran")
        told, not_asked = None, ""
        if count and ask_hermes is not False and facts is not None and facts.site_packages is not None:
            told, not_asked = self._ask_hermes(facts.site_packages, as_owner=bool(ask_hermes))
        applied = Applied(result, outcome_code(result.report, result), told, not_asked,
                          created_home=not existed and self.home.is_dir())
        return replace(applied, exit_code=ExitCode.CONFIG) if applied.hermes_disagrees else applied

    def _ask_hermes(self, site_packages: Path, *, as_owner: bool) -> tuple[HermesAnswer | None, str]:
        """The installed Hermes's verdict on a copy of the written home, or why it was not asked."""
        from hermes_wizard.core.confined import Refused, identity_for
        from hermes_wizard.hermes.verify import ask_installed

        try:
            runs_as = identity_for(self.home)
        except Refused as exc:
            return None, str(exc)
        if runs_as.switch and not as_owner:
            return None, (f"the Hermes of this home is {runs_as.name}'s code and you are root (`hermes-wizard check "
                          f"--verify` asks it, run as {runs_as.name} without your terminal or environment)")
        return ask_installed(self.home, site_packages, self.base_env), ""

    def wrote_pairing(self, action: str, platform: str, users: list[str]) -> None:
        """A pairing `action` Hermes did at once (not through the Plan): quitting does not take it back."""
        done = "approved" if action == "approve" else "revoked"
        self.written += [f"{done} {user} on {platform} (pairing)" for user in users]

    def logged_in(self, command: str, wrote: tuple[str, ...] | None) -> HomeReport:
        """Hermes's own login (`command`, run by a face's hand-over) ended, having written `wrote` (the home's
        files it created, changed or removed; None: not compared): the home is read again, answers kept, and
        what it wrote is this session's too (quitting does not take it back)."""
        if wrote is None:
            self.written.append(f"whatever {visible(command)} wrote (its files were not compared)")
        elif wrote:
            more = f" and {len(wrote) - NAMED_WRITTEN} more" if len(wrote) > NAMED_WRITTEN else ""
            names = ", ".join(visible(name) for name in wrote[:NAMED_WRITTEN])  # names from the home: escaped
            self.written.append(f"{names}{more} (by {visible(command)})")
        return self.reread()

    def quit_question(self) -> str | None:
        """The question before quitting loses answers — what would be lost, and what is written already
        (nothing of it is taken back by quitting) — or None when nothing would be lost."""
        pending = self.session.pending()
        if not pending and not self.session.typed_anything():  # a half-typed token is an answer too
            return None
        lost = f"{pending} {'change' if pending == 1 else 'changes'}" if pending else "what you typed"
        if not self.written:
            return f"Discard {lost}? Nothing has been written yet."
        return self.report.naming_this_home(f"Discard {lost} (not written)? Already written, and kept: "
                                            f"{'; '.join(self.written)}. (hermes-wizard undo takes back what it can.)")

    def reread(self) -> HomeReport:
        """The home changed under the session (Hermes's own login wrote files): judge it again, keep the answers."""
        self.scope = self.scope.fresh()
        self._start_from(evaluate(self.home, self.profile, base_env=self.base_env, facts=self.facts,
                                  service=self.scope, parsed=self.report.parsed), spent=False)
        return self.report

    def _start_from(self, report: HomeReport, *, spent: bool) -> None:
        self._repairs, self._candidates, self._services = {}, {}, {}
        if spent:
            self.session.applied(report)
        else:
            self.session.reread(report)
