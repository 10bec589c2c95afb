"""Deciding the service steps of a Plan (wizard/plan/service_steps.py has the steps and the rules they follow):
which units serve the home, whether a loop is in progress, whether the gate's drop-in can be written and its
command runs as the unit's user, and whether a restart would only be the loop again.

Apart from the steps themselves so that what only deciding needs (the drop-in folder checks, the gate's proof,
systemd's version) loads when a face asks for service steps, not with every plan (the TUI's first screen plans
none: ARCHITECTURE.md, "Performance targets").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.core.safetext import visible
from hermes_wizard.hermes.install import detect
from hermes_wizard.plan.actions import ServiceAction
from hermes_wizard.plan.service_steps import ServicePlan, ServiceRequest, ServiceStep
from hermes_wizard.service import actions, dropin, gate_proof
from hermes_wizard.service.common import GATE_DROPIN, MIN_GATE
from hermes_wizard.service.dropdir import DropinFolder, FolderRefused

if TYPE_CHECKING:
    from hermes_wizard.service.common import Unit
    from hermes_wizard.service.scope import ServiceScope
    from hermes_wizard.service.systemd import Runner


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
        notes.append(f"systemd {version} < {MIN_GATE} restarts a start skipped by ExecCondition=: using "
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
