"""The service steps of a Plan: what a repair does to the systemd units that run a home, decided
before anything runs, shown in every preview, and applied only by hermes_wizard.write.apply.

For each systemd unit serving the home (or the `--unit` named), in this order:

  stop           `stop` + `reset-failed`, when a loop is in progress and files or a drop-in are
                 about to change (a loop restarts the gateway mid-edit otherwise);
  drop-in        asked for (`--install-gate`) and not already in place: our gate (systemd >= 251)
                 or the Restart=on-failure fallback, its full text decided here — only when the
                 drop-in folder passes wizard/service/dropdir.py's checks now: a folder apply would
                 refuse is never promised by a preview; and only once the gate's own command has run
                 as the unit's user, with the unit's environment, on the home as it stands, with an
                 executable that user can run (wizard/service/gate_proof.py: its exit is a note);
  daemon-reload  after a drop-in, so systemd reads it;
  restart        asked for, or after we stopped a loop — only when the home will start (a restart
                 into a refusal is the loop again); apply then watches it stay up.

Contract: deciding asks systemd read-only questions (`show`, the journal, `--version`) through the
runner; a dry-run runner asks nothing, so a dry run shows the steps a loop in progress would need.  The
gate's proof runs whatever the runner (the gate is read-only: it writes nothing).
launchd and s6 get advice only (wizard/service/supervisors.py).  What was asked and will not be done
(a drop-in that cannot be rendered, or whose folder dropdir refuses) is a note AND in `unmet`: doctor
prints it and exits 1, the file repairs still apply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.core.safetext import visible
from hermes_wizard.core.values import Value, value_class
from hermes_wizard.hermes.install import detect
from hermes_wizard.plan.actions import ServiceAction
from hermes_wizard.service import actions, dropin, gate_proof
from hermes_wizard.service.common import GATE_DROPIN, VARIANT_FILES
from hermes_wizard.service.dropdir import DropinFolder, FolderRefused
from hermes_wizard.service.systemd import systemctl

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hermes_wizard.service.common import Unit
    from hermes_wizard.service.scope import ServiceScope
    from hermes_wizard.service.systemd import Runner


@value_class
class ServiceStep(Value):
    action: ServiceAction
    unit: str  # hermes-gateway.service
    scope: str  # "system" | "user"
    unit_path: Path | None = None
    variant: str | None = None  # drop-in: "gate" | "fallback"
    text: str | None = None  # drop-in: the whole file
    before: tuple[str, ...] = ()  # drop-in: our variants on disk before it (undo puts them back)
    settle: float = actions.SETTLE_S  # restart: seconds it must stay up

    @property
    def dropin_path(self) -> Path | None:
        if self.unit_path is None or self.variant is None:
            return None
        return self.unit_path.parent / f"{self.unit_path.name}.d" / VARIANT_FILES[self.variant]

    def argv(self) -> list[str]:
        """The systemctl command of a stop, reload or restart step."""
        if self.action == ServiceAction.STOP:
            return systemctl(self.scope, "stop", self.unit)
        if self.action == ServiceAction.RELOAD:
            return systemctl(self.scope, "daemon-reload")
        return systemctl(self.scope, "restart", self.unit)

    def describe(self) -> str:
        """One line of a preview."""
        if self.action == ServiceAction.STOP:
            return (f"stop the loop: {' '.join(self.argv())} && "
                    f"{' '.join(systemctl(self.scope, 'reset-failed', self.unit))}")
        if self.action == ServiceAction.DROPIN:
            why = (f"systemd < {dropin.MIN_GATE}: Restart=on-failure and no restart of an exit 0, instead of the gate"
                   if self.variant == "fallback"
                   else "the gate: a start Hermes would refuse is skipped, not restarted")
            return f"write {self.dropin_path} ({why})"
        if self.action == ServiceAction.RELOAD:
            return f"reload: {' '.join(self.argv())}"
        return f"restart: {' '.join(self.argv())}, then watch it for {self.settle:g} s before saying it runs"


@value_class
class ServiceRequest(Value):
    """What the user asked of the service (doctor's flags)."""

    install_gate: bool = False
    restart: bool = False
    settle: float = actions.SETTLE_S
    wizard: Path | None = None  # the hermes-wizard the gate runs (default: this installation's)


@value_class
class ServicePlan(Value):
    steps: tuple[ServiceStep, ...] = ()
    notes: tuple[str, ...] = ()  # what was decided not to do, and why
    unmet: tuple[str, ...] = ()  # the notes saying something asked for will not be done


@dataclass
class _Draft:
    """A service plan being made: its notes as they are decided."""

    notes: list[str] = field(default_factory=list)
    unmet: list[str] = field(default_factory=list)


def plan_service(home: Path, profile: str, request: ServiceRequest, *, editing: bool, will_start: bool,
                 scope: ServiceScope, runner: Runner) -> ServicePlan:
    """The steps for the systemd units of `scope` that run `home`; `editing`: files will be written too;
    `will_start`: the home as it will be passes Hermes's startup rule; `runner` asks systemd its version."""
    serving, _ = scope.relevant(home, profile)
    units = [u for u in serving if u.manager == "systemd" and not u.error]
    others = [u for u in serving if u.manager != "systemd"]
    out = _Draft()
    wanted = request.install_gate or request.restart
    if wanted and not units:
        where = ", ".join(f"{u.name} ({u.label})" for u in others) or "no systemd unit"
        out.notes.append(f"Service steps skipped: {where} runs {home}"
                         + ("; use --unit PATH to name one" if not others else ""))
    own = dropin.find_wizard() if request.install_gate and request.wizard is None else None
    steps: list[ServiceStep] = []
    for unit in units:
        evidence = scope.evidence(unit)
        looping = evidence.may_be_looping if evidence is not None else runner.dry_run
        stop = looping and (editing or wanted)
        if stop:
            steps.append(ServiceStep(ServiceAction.STOP, unit.name, unit.scope, unit.path))
        if request.install_gate:
            step = _dropin_step(unit, request.wizard, own, runner, out)
            if step is not None:
                steps += [step, ServiceStep(ServiceAction.RELOAD, unit.name, unit.scope, unit.path)]
        if request.restart or stop:  # we stopped it: we bring it back, verified
            if will_start:
                steps.append(ServiceStep(ServiceAction.RESTART, unit.name, unit.scope, unit.path,
                                         settle=request.settle))
            else:
                out.notes.append(f"Not restarting {unit.name}: the home would still refuse to start; a restart "
                                 "would only be the loop again.")
    return ServicePlan(tuple(steps), tuple(out.notes), tuple(out.unmet))


def _dropin_step(unit: Unit, asked_for: Path | None, own: Path | None, runner: Runner,
                 out: _Draft) -> ServiceStep | None:
    notes = out.notes
    try:  # decided now, by the checks apply will make: our variants there now, or why nothing is written
        with DropinFolder(unit.path) as folder:
            before = tuple(folder.variants())
    except FolderRefused as exc:
        _unmet(out, f"Gate not planned: {exc}")
        return None
    except OSError:  # not a refusal (e.g. a file named like the folder): the write fails and is taken back
        before = ()
    wizard = _proven_wizard(unit, asked_for, own, out)
    if wizard is None:
        return None
    if dropin.current(unit, "gate", wizard):  # in place: no need to ask systemd which one it needs
        notes.append(f"The gate is already in place: {unit.dropin_dir / GATE_DROPIN}")
        return None
    version = actions.version(runner)
    variant = dropin.variant_for(version)
    try:
        name, text = dropin.render(unit, variant, wizard)
    except dropin.DropinError as exc:
        _unmet(out, f"Gate not planned: {exc}")
        return None
    if dropin.current(unit, variant, wizard):
        notes.append(f"The {'gate' if variant == 'gate' else 'fallback'} is already in place: "
                     f"{unit.dropin_dir / name}")
        return None
    if variant == "fallback":
        notes.append(f"systemd {version} < {dropin.MIN_GATE} restarts a start skipped by ExecCondition=: using "
                     f"Restart=on-failure and RestartPreventExitStatus=0 ({name}) instead of the gate.")
    return ServiceStep(ServiceAction.DROPIN, unit.name, unit.scope, unit.path, variant, text, before)


def _proven_wizard(unit: Unit, asked_for: Path | None, own: Path | None, out: _Draft) -> Path | None:
    """The hermes-wizard the gate will run, once its drop-in command has run as the unit's user with the unit's
    environment (wizard/service/gate_proof.py); None, with the reason as an unmet note, when that user can run
    none.  A unit whose home is unknown is left to `render` to refuse."""
    if unit.home is None:
        return asked_for or own
    hermes_venv = detect(unit.home).prefix  # where Hermes's plugin puts its console script
    proof = gate_proof.choose_and_prove(unit, asked_for, own, hermes_venv)
    if proof.wizard is None:
        _unmet(out, proof.sentence(unit))
        return None
    out.notes.append(visible(proof.sentence(unit)))
    return proof.wizard


def _unmet(out: _Draft, line: str) -> None:
    out.notes.append(visible(line))  # paths and values come from the unit's owner
    out.unmet.append(out.notes[-1])


def render_service(steps: Sequence[ServiceStep]) -> str:
    """The service steps of a plan, for every preview ("" when none)."""
    if not steps:
        return ""
    return "Service steps:\n" + "".join(f"  {step.describe()}\n" for step in steps)
