"""The service steps of a Plan: what a repair does to the systemd units that run a home, decided
before anything runs (by wizard/plan/service_planning.py `plan_service`), shown in every preview, and
applied only by hermes_wizard.write.apply.

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

from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.core.values import Value, value_class
from hermes_wizard.plan.actions import ServiceAction
from hermes_wizard.service.common import MIN_GATE, SETTLE_S, VARIANT_FILES
from hermes_wizard.service.systemd import systemctl

if TYPE_CHECKING:
    from collections.abc import Sequence


@value_class
class ServiceStep(Value):
    action: ServiceAction
    unit: str  # hermes-gateway.service
    scope: str  # "system" | "user"
    unit_path: Path | None = None
    variant: str | None = None  # drop-in: "gate" | "fallback"
    text: str | None = None  # drop-in: the whole file
    before: tuple[str, ...] = ()  # drop-in: our variants on disk before it (undo puts them back)
    settle: float = SETTLE_S  # restart: seconds it must stay up

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
            why = (f"systemd < {MIN_GATE}: Restart=on-failure and no restart of an exit 0, instead of the gate"
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
    settle: float = SETTLE_S
    wizard: Path | None = None  # the hermes-wizard the gate runs (default: this installation's)


@value_class
class ServicePlan(Value):
    steps: tuple[ServiceStep, ...] = ()
    notes: tuple[str, ...] = ()  # what was decided not to do, and why
    unmet: tuple[str, ...] = ()  # the notes saying something asked for will not be done


def render_service(steps: Sequence[ServiceStep]) -> str:
    """The service steps of a plan, for every preview ("" when none)."""
    if not steps:
        return ""
    return "Service steps:\n" + "".join(f"  {step.describe()}\n" for step in steps)
