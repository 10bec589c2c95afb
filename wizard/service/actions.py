"""Acting on a systemd unit, with the user's consent already given: stop a loop, reload,
restart, and confirm the gateway stayed up.

Order (what ends a restart loop safely): stop the loop *before* editing (`stop` + `reset-failed`), so a restart
does not pick up a half-written home; `daemon-reload` after a drop-in; `restart` after
the repair; then `verify` — "the gateway is running" is said only when, over a settle
window, ActiveState stayed `active`/`running`, NRestarts did not climb, and the journal
since the restart holds no new refusal.  A start still under way (`activating` before
`running`: the gate's ExecCondition=, or under `Type=notify` the wait for READY=1, ~9 s for
Hermes 0.20.1 measured) is waited for, up to systemd's own start timeout, before the settle
window begins.  A restart that loops again is reported as such, never as fixed.  Every
command goes through the given `Runner` (dry-run prints).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from hermes_wizard.core.frozenmap import FrozenMap
from hermes_wizard.core.values import Value, value_class
from hermes_wizard.service import loop
from hermes_wizard.service.common import SETTLE_S
from hermes_wizard.service.systemd import (
    Runner,
    int_or_none,
    journal_argv,
    journal_lines,
    parse_show,
    parse_version,
    show_argv,
    systemctl,
)

POLL_S = 2.0
READY_WAIT_S = 90.0  # systemd's DefaultTimeoutStartSec: Hermes's unit sets no TimeoutStartSec=
STARTING = ("condition", "start-pre", "start", "start-post")  # SubStates of a start under way (activating)


class SystemdUnit(Protocol):
    """What acting on a unit needs: its name and its scope ("system" or "user"), as a `Unit` or a plan's
    service step (wizard/write/service_apply.py) names them."""

    @property
    def name(self) -> str: ...

    @property
    def scope(self) -> str: ...


@value_class
class Outcome(Value):
    ok: bool
    words: str  # one sentence for the user
    evidence: loop.Evidence | None = None  # of the last look

    @property
    def unrun(self) -> bool:
        """The command itself failed (no user bus, no permission): nothing was restarted, nothing watched."""
        return not self.ok and self.evidence is None


def version(runner: Runner) -> int | None:
    """The running systemd's version (`systemctl --version`), None if unknown or dry run."""
    result = runner.run(["systemctl", "--version"])
    return parse_version(result.stdout) if result.ok else None


def _step(runner: Runner, argv: list[str]) -> str | None:
    """Run one command; None on success, else a sentence naming it and why it failed."""
    result = runner.run(argv)
    if result.ok:
        return None
    hint = ""
    if "Failed to connect to bus" in result.stderr or "XDG_RUNTIME_DIR" in result.stderr:
        hint = " (no user session bus here: log in as that user, or export XDG_RUNTIME_DIR=/run/user/$(id -u))"
    elif "Access denied" in result.stderr or "Interactive authentication required" in result.stderr:
        hint = " (a system unit: run this as root, e.g. with sudo)"
    return f"`{' '.join(argv)}` failed: {result.why()}{hint}"


def stop_loop(unit: SystemdUnit, runner: Runner) -> str | None:
    """`stop` then `reset-failed`; None when the stop succeeded, else the reason.  reset-failed only clears
    a failed state: systemd 252 answers "Unit … not loaded" for a unit it unloaded once stopped (seen on
    a real systemd), which is no failure of the stop."""
    failed = _step(runner, systemctl(unit.scope, "stop", unit.name))
    if failed is None:
        runner.run(systemctl(unit.scope, "reset-failed", unit.name))
    return failed


def daemon_reload(unit: SystemdUnit, runner: Runner) -> str | None:
    return _step(runner, systemctl(unit.scope, "daemon-reload"))


def restart_and_verify(unit: SystemdUnit, runner: Runner, settle: float = SETTLE_S, poll: float | None = None,
                       sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.time,
                       ready_wait: float | None = None) -> Outcome:
    since = clock()
    failed = _step(runner, systemctl(unit.scope, "restart", unit.name))
    if failed:
        return Outcome(False, failed)
    if runner.dry_run:
        runner.run(show_argv(unit.scope, unit.name))
        runner.run(journal_argv(unit.scope, unit.name, since=since))
        return Outcome(False, "dry run: nothing was restarted")
    return verify(unit, runner, since, settle, poll, sleep, ready_wait)


def verify(unit: SystemdUnit, runner: Runner, since: float, settle: float = SETTLE_S, poll: float | None = None,
           sleep: Callable[[float], None] = time.sleep, ready_wait: float | None = None) -> Outcome:
    """Watch the unit after a restart at `since` (epoch seconds): `settle` seconds from when it is first seen
    active, waiting up to `ready_wait` (READY_WAIT_S) more for a start still under way to get there; polled
    every `poll` (POLL_S) seconds."""
    poll = POLL_S if poll is None else poll
    ready_wait = READY_WAIT_S if ready_wait is None else ready_wait
    baseline = None
    waited = 0.0
    up_at = None  # `waited` when first seen active
    while True:
        result = runner.run(show_argv(unit.scope, unit.name))
        props = parse_show(result.stdout) if result.ok else {}
        restarts = int_or_none(props.get("NRestarts"))
        baseline = restarts if baseline is None else baseline
        evidence = _evidence_since(unit, runner, since, props)
        bad = _trouble(evidence, props, restarts, baseline)
        if bad:
            return Outcome(False, bad, evidence=evidence)
        if up_at is None and props.get("ActiveState") == "active":
            up_at = waited
        end = up_at + settle if up_at is not None else settle + (ready_wait if _starting(props) else 0.0)
        if waited >= end:
            break
        step = min(poll, end - waited)
        sleep(step)
        waited += step
    if not props:
        return Outcome(False, f"cannot read the state of {unit.name}: {result.why()}", evidence=evidence)
    if props.get("ActiveState") != "active":
        why = ": its start never finished (under Type=notify: no READY=1 from the gateway)" if _starting(props) else ""
        return Outcome(False, f"{unit.name} is still {props.get('ActiveState')}/{props.get('SubState')} after "
                              f"{waited:g} s{why}; check `{' '.join(systemctl(unit.scope, 'status', unit.name))}`",
                       evidence=evidence)
    return Outcome(True, f"the gateway is running ({unit.name} active for {settle:g} s, "
                         f"no restart, no refusal in its journal)", evidence=evidence)


def _starting(props: dict[str, str]) -> bool:
    return props.get("ActiveState") == "activating" and props.get("SubState") in STARTING


def _evidence_since(unit: SystemdUnit, runner: Runner, since: float, props: dict[str, str]) -> loop.Evidence:
    evidence = loop.Evidence(unit.name, props=FrozenMap(props))
    journal = runner.run(journal_argv(unit.scope, unit.name, since=since))
    return loop.read_journal(evidence, journal_lines(journal.stdout)) if journal.ok else evidence


def _trouble(evidence: loop.Evidence, props: dict[str, str], restarts: int | None, baseline: int | None) -> str | None:
    name = evidence.unit
    if evidence.gate_lines or props.get("Result") == "exec-condition":
        line = evidence.gate_lines[-1] if evidence.gate_lines else "ExecCondition= failed"
        return f"{name} was not started: the gate stopped it ({line})"
    if evidence.refusals:
        reason = evidence.last_reason or evidence.refusals[-1]
        return f"{name} restarted but Hermes refused to start again ({reason}); the loop is not fixed"
    if restarts is not None and baseline is not None and restarts > baseline:
        return f"{name} is restarting again (NRestarts {baseline} → {restarts}); the loop is not fixed"
    state, sub = props.get("ActiveState"), props.get("SubState")
    if sub == "auto-restart" or state == "failed":
        code = props.get("ExecMainStatus")
        return f"{name} did not stay up ({state}/{sub}, last exit status {code}); the loop is not fixed"
    if props and state in ("inactive", "deactivating"):
        return f"{name} stopped right after the restart ({state}/{sub}, result {props.get('Result')})"
    return None
