"""Service checks (HW4xx): the service that runs this home, and whether it can loop.

File reads only (hermes_wizard.service.units), except HW404, which has evidence only when the
CLI configured a runner (`check --service`, `doctor`).  Units considered: those whose
HERMES_HOME/--profile resolve to this home, or the one named with `--unit PATH`.  The loop evidence
(wizard/service/loop.py, systemctl through subprocess) is imported lazily, only when a runner is configured.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.judge.checks.registry import Context, Hit, check
from hermes_wizard.service import restart_rules
from hermes_wizard.service.supervisors import advice
from hermes_wizard.service.unit_user import foreign_code, runnable_by, unit_uid

if TYPE_CHECKING:
    from hermes_wizard.service.common import Unit
    from hermes_wizard.service.scope import ServiceScope


def _version(unit: Unit) -> str:
    """Hermes's version from the dist-info beside the interpreter the unit starts ("" if unknown)."""
    if not unit.python or "/" not in unit.python:
        return ""
    lib = Path(unit.python).parent.parent / "lib"
    try:
        for pyver in os.listdir(lib):
            site = lib / pyver / "site-packages"
            for name in os.listdir(site):
                if name.startswith("hermes_agent-") and name.endswith(".dist-info"):
                    return name[len("hermes_agent-"):-len(".dist-info")]
    except OSError:
        pass
    return ""


def stop_loop_command(scope: ServiceScope, home: Path, profile: str, starts: bool = False) -> str:
    """The one command that stops a restart loop of `home` (every loop finding's fix names it): repair the
    files, add the gate where the unit restarts a refusal without one, restart the service and watch it.
    `starts`: the files already pass, so without a systemd unit only a start is left to do."""
    serving, _ = scope.relevant(home, profile)
    units = [u for u in serving if u.manager == "systemd" and not u.error]
    if not units:
        then = "restart the service once" if serving else "start the gateway once (hermes gateway run)"
        return then if starts else f"hermes-wizard doctor --fix, then {then}"
    unit = units[0]
    gate = " --install-gate" if unit.gate is None and unit.restarts_refusal else ""
    return f"hermes-wizard doctor --fix{gate} --restart" + (f" --unit {unit.path}" if scope.named_unit() is unit
                                                            else "")


def _where(unit: Unit) -> str:
    return f"{unit.name} ({unit.label}, {unit.path})"


def _why_it_loops(unit: Unit, hermes: str) -> str:
    """Why a systemd unit restarts the refusal (unit.restarts_refusal; wizard/service/restart_rules.py)."""
    every = unit.restart_sec if unit.restart_sec is not None else restart_rules.DEFAULT_RESTART_S
    again = f"restarts it every {every:g} s, forever"
    if 0 in unit.force_statuses:
        return f"has RestartForceExitStatus=0: {hermes} exits 0 when it refuses to start, so systemd {again}."
    if unit.waits_for_ready:
        return (f"has Type={unit.service_type} and Restart={unit.restart}: {hermes} exits 0 when it refuses to "
                "start, before it reports ready, so systemd counts a failed start (result 'protocol') and "
                f"{again}.")
    return f"has Restart={unit.restart}: {hermes} exits 0 when it refuses to start, so systemd {again}."


@check("HW401", "service-restarts-refusal", "warning",
       "The service restarts a gateway that refuses to start, forever.",
       what="""A Hermes service whose supervisor restarts the gateway after it refuses to start: a systemd unit
with Restart=always (what `hermes gateway install` writes) and no hermes-wizard drop-in, a launchd agent
with KeepAlive, or an s6 service. Hermes exits 0 when it refuses to start (an open dm/group policy without
the allow-all opt-in), so the refusal is restarted every 5 s (launchd: 30 s) without end — 1,705 restarts
in one report — and every platform, healthy ones included, stays down. Under Type=notify (the unit Hermes
writes when gateway.systemd_watchdog_seconds is set) the exit comes before READY=1, a failed start (result
'protocol'): Restart=on-failure restarts it too.""",
       why="""Each turn costs a full gateway start (~1.2 s, ~90 MiB) and a journal entry; Hermes's own unit
has StartLimitIntervalSec=0, so systemd never gives up. Hermes rewrites its unit file at every start, so
editing it does not last; a drop-in in <unit>.d/ does.""",
       fix="""`hermes-wizard doctor --install-gate` writes <unit>.d/hermes-wizard-gate.conf: ExecCondition= runs
`hermes-wizard check --gate` before each start; when Hermes would refuse, the start is skipped (exit 78)
with one journal line naming the fix, and not restarted. That needs systemd >= 251 (ExecCondition= exists
since 243, NEWS "CHANGES WITH 243"; a start skipped by it is not restarted under Restart=always only since
251, NEWS "CHANGES WITH 251", systemd PR #22259, src/core/service.c service_shall_restart). On older
systemd it writes hermes-wizard-restart.conf with Restart=on-failure and RestartPreventExitStatus=0
instead (the 0-exit refusal is then not restarted, under Type=notify too; crashes still are). A missing
or broken hermes-wizard never blocks a start. launchd and s6: stop the service, repair, start it once
(the fix line gives the commands).""")
def restarts_refusal(ctx: Context) -> Iterable[Hit]:
    serving, _ = ctx.service.relevant(ctx.home, ctx.snapshot.profile)
    status = _refusal_status(ctx)
    refusing = bool(ctx.violations) or status is not None
    now = "Hermes refuses to start now, and " if refusing else ""
    for unit in serving:
        if unit.error:
            continue
        if status:  # a Hermes whose refusal exits non-zero (78, PR #57487): HW402 says where 78 still loops
            if unit.manager != "launchd" and (status == 78 or unit.restart != "always"):
                continue
        if unit.manager == "systemd":
            if not unit.restarts_refusal or unit.gate is not None:
                continue
            version = _version(unit)
            yield Hit(None, f"{now}{_where(unit)} {_why_it_loops(unit, f'Hermes {version}' if version else 'Hermes')}",
                      stop_loop_command(ctx.service, ctx.home, ctx.snapshot.profile) if refusing else
                      "hermes-wizard doctor --install-gate" + (f" --unit {unit.path}"
                                                              if ctx.service.named_unit() is unit else ""),
                      "error" if refusing else None)
        elif unit.restart == "always":
            what = "KeepAlive restarts it after any exit" if unit.manager == "launchd" else \
                "s6 restarts it after any exit but 78"
            yield Hit(None, f"{now}{_where(unit)}: {what}, so a refusal (exit {status or 0}) loops without end.",
                      "; ".join(advice(unit)), "error" if refusing else None)


def _refusal_status(ctx: Context) -> int | None:
    """The status an asked Hermes exits with when it refuses to start now (None: it does not refuse, or no model
    said otherwise; the models' Hermes exits 0)."""
    told = ctx.hermes_answer
    judged = ctx.facts.hermes
    if told is None or judged is None or not judged.asked or not told.decided or told.starts or told.error:
        return None
    return told.refusal_exit or 0


@check("HW402", "service-restarts-fatal-config", "warning",
       "Exit 78 (a fatal configuration error) does not stop the service.",
       what="""Hermes exits 78 (EX_CONFIG) for errors a restart cannot cure: a token used by another gateway,
every platform failing for good. Its unit says RestartPreventExitStatus=78 and its s6 finish script maps
78 to 125; this service lost that.""",
       why="""Without it, a fatal configuration error is retried every few seconds, forever.""",
       fix="""Either hermes-wizard drop-in (`hermes-wizard doctor --install-gate`) adds RestartPreventExitStatus=78.
For s6, restore Hermes's finish script (`hermes gateway install` in the container).""")
def restarts_fatal(ctx: Context) -> Iterable[Hit]:
    serving, _ = ctx.service.relevant(ctx.home, ctx.snapshot.profile)
    for unit in serving:
        if unit.error or unit.prevents_78 or unit.manager == "launchd" or unit.restart == "no":
            continue
        fix = "hermes-wizard doctor --install-gate" if unit.manager == "systemd" else \
            f"restore {unit.path}/finish: exit 125 when \"$1\" = \"78\""
        yield Hit(None, f"{_where(unit)} restarts the gateway after exit 78 too (no RestartPreventExitStatus=78).",
                  fix)


@check("HW403", "service-runs-other-home", "warning",
       "The service runs a different Hermes home than the one being checked.",
       what="""The service that Hermes would name for this home (hermes-gateway, or hermes-gateway-<profile>),
or the one given with --unit, starts the gateway with another HERMES_HOME or --profile.""",
       why="""Repairs written here do not change what that service starts: the gateway keeps failing while this
home looks healthy.""",
       fix="""Check and repair the home the service runs (`hermes-wizard doctor --home <its home>`), or
reinstall the service from this home (`hermes gateway install`).""")
def runs_other_home(ctx: Context) -> Iterable[Hit]:
    _, elsewhere = ctx.service.relevant(ctx.home, ctx.snapshot.profile)
    for unit in elsewhere:
        if unit.error:
            yield Hit(None, f"{unit.path} {unit.error}.", "point --unit at a readable unit file", "info")
            continue
        where = f"{unit.home}" + (f" (--profile {unit.profile})" if unit.profile else "")
        yield Hit(None, f"{_where(unit)} runs the home {where}, not {ctx.home}: repairing this home does not "
                  "change what it starts.", f"hermes-wizard doctor --home {unit.home}")


@check("HW404", "service-restart-loop", "error",
       "systemd is restarting the gateway again and again (doctor, check --service).",
       what="""From `systemctl show` (NRestarts, ActiveState, SubState, Result) and the unit's journal
("Refusing to start", "Gateway exiting cleanly", the gate's own line, "Failed with result 'protocol'"
under Type=notify), plus gateway-starts.log and gateway_state.json. Asked only by `doctor` and
`check --service`: plain `check` runs no command.  When `systemctl show` cannot answer (no user bus, run as
another user), no loop is claimed from the journal's old lines: it says the loop could not be checked, and why.""",
       why="""A loop in progress keeps every platform down and fills the journal; it is also the best evidence
of why the gateway does not start.""",
       fix="""`hermes-wizard doctor --fix --install-gate --restart`: stops the loop, repairs the home, installs
the gate, restarts once and confirms the gateway stayed up.""")
def restart_loop(ctx: Context) -> Iterable[Hit]:
    serving, _ = ctx.service.relevant(ctx.home, ctx.snapshot.profile)
    for unit in serving:
        evidence = ctx.service.evidence(unit)
        if evidence is None:
            continue
        from hermes_wizard.service import loop  # only when systemd was asked (check --service, doctor)

        if not evidence.asked:  # no state from systemd: say so, never a loop from old journal lines
            yield Hit(None, loop.unchecked(evidence) + ".", "run as the user that owns the service", "info")
            continue
        for problem in evidence.problems:
            yield Hit(None, f"{unit.name}: {problem}.", "run as the user that owns the service", "info")
        stop = stop_loop_command(ctx.service, ctx.home, ctx.snapshot.profile)
        if evidence.looping:
            yield Hit(None, loop.summary(evidence) + ".", stop)
        elif evidence.gated or evidence.restarts:
            yield Hit(None, loop.summary(evidence) + ".", stop, "info")


def _not_runnable_by_unit(unit: Unit, wizard: Path) -> str | None:
    """Why the unit's user cannot, or must not, execute the gate's hermes-wizard (decided, not run), or None."""
    try:
        uid = unit_uid(unit)
    except LookupError as exc:
        return str(exc)
    why = runnable_by(uid, wizard)
    if why is None and (foreign := foreign_code(uid, wizard)) is not None:
        why = f"{foreign}: another user's code, run with the unit's rights at every start"
    return f"as {unit.user or uid}, {why}" if why else None


@check("HW405", "gate-dropin-stale", "warning",
       "The hermes-wizard gate drop-in no longer guards this service.",
       what="""hermes-gateway.service.d/hermes-wizard-gate.conf runs a hermes-wizard that is gone (moved,
uninstalled, venv rebuilt), that the unit's user cannot execute (a venv under /root for a unit with User=: an
error), or judges another home than the unit runs.""",
       why="""By design a wizard that cannot run lets every start through, so the loop protection is silently
off.""",
       fix="""`hermes-wizard doctor --install-gate` rewrites the drop-in for the unit's home, with a hermes-wizard
the unit's user can run (it tries the gate as that user first).""")
def gate_stale(ctx: Context) -> Iterable[Hit]:
    serving, _ = ctx.service.relevant(ctx.home, ctx.snapshot.profile)
    for unit in serving:
        gate = unit.gate
        if gate is None:
            continue
        if not gate.wizard or not (os.path.isfile(gate.wizard) and os.access(gate.wizard, os.X_OK)):
            yield Hit(None, f"{gate.path} runs {gate.wizard or 'an unreadable command'}, which is not an "
                      "executable file: every start passes unchecked.", "hermes-wizard doctor --install-gate")
        elif (why := _not_runnable_by_unit(unit, Path(gate.wizard))) is not None:
            yield Hit(None, f"{gate.path} runs {gate.wizard}, which {unit.name}'s user cannot or must not run ({why}); "
                      "a gate that cannot run lets every start pass unchecked.",
                      "hermes-wizard doctor --install-gate (it picks a hermes-wizard that user can run)", "error")
        # (a serving unit runs this home: its home is never None here)
        elif not gate.home or unit.home is None or os.path.realpath(gate.home) != os.path.realpath(unit.home):
            yield Hit(None, f"{gate.path} judges the home {gate.home}, but {unit.name} runs {unit.home}.",
                      "hermes-wizard doctor --install-gate")
