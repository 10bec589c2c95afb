"""Runtime evidence: is a restart loop already going on?"""

from __future__ import annotations

import time
from collections.abc import Iterable

from hermes_wizard.judge.checks.registry import Context, Hit, check
from hermes_wizard.judge.checks.service import stop_loop_command


@check("HW301", "restart-loop", "error",
       "The gateway's own files show it failing to start, again and again.",
       what="""gateway_state.json records `startup_failed` with an exit_reason; gateway-starts.log records every
start (the last 40). Starts seconds apart mean a supervisor is restarting a gateway that exits at once.""",
       why="""Each start costs a full gateway boot (~1.2 s, ~90 MiB); every platform, healthy ones included, is
down the whole time.""",
       fix="""Fix the reason named (usually `hermes-wizard doctor`), then restart the service once.""")
def restart_loop(ctx: Context) -> Iterable[Hit]:
    state = ctx.snapshot.runtime_state
    data = state.data if isinstance(state.data, dict) else {}
    starts = sorted(ctx.snapshot.starts_log.starts)
    burst = _burst(starts)
    failed = data.get("gateway_state") == "startup_failed"
    reason = data.get("exit_reason")
    if not failed and burst < 6:
        return
    parts = []
    if failed:
        parts.append(f"gateway_state.json says startup_failed ({reason or 'no reason recorded'})")
    if burst >= 6:
        last = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(starts[-1]))
        parts.append(f"gateway-starts.log has {burst} starts less than a minute apart (last {last})")
    still = "" if ctx.violations or ctx.effective.crash else " — the current config would start, so restart it once"
    yield Hit(reason.split(":", 1)[0] if isinstance(reason, str) and ":" in reason else None,
              "; ".join(parts) + still + ".",
              stop_loop_command(ctx.service, ctx.home, ctx.snapshot.profile, starts=bool(still)),  # as every loop
              None if (ctx.violations or ctx.effective.crash) else "warning")


def _burst(starts: list[float]) -> int:
    """The longest run of starts each within 60 s of the previous one."""
    best = run = 1 if starts else 0
    for before, after in zip(starts, starts[1:]):
        run = run + 1 if after - before <= 60 else 1
        best = max(best, run)
    return best


@check("HW302", "runtime-files-unreadable", "info",
       "gateway_state.json or gateway-starts.log exists but cannot be read.",
       what="""These files are written by the gateway; corruption usually means a crash mid-write.""",
       why="""Restart-loop evidence cannot be read.""",
       fix="""Delete the file; the gateway recreates it at its next start.""")
def runtime_unreadable(ctx: Context) -> Iterable[Hit]:
    state = ctx.snapshot.runtime_state
    if state.exists and state.error:
        yield Hit(None, f"gateway_state.json {state.error}.", f"rm {state.path}")
    if ctx.snapshot.starts_log.garbage_lines:
        garbage = ctx.snapshot.starts_log.garbage_lines
        yield Hit(None, f"gateway-starts.log has {garbage} line{'s' if garbage != 1 else ''} that "
                  f"{'are' if garbage != 1 else 'is'} not {'timestamps' if garbage != 1 else 'a timestamp'}.",
                  "delete gateway-starts.log")
