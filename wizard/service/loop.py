"""Loop evidence: is this service restarting a gateway that refuses to start, and why?

Sources, each optional:
  systemd  `systemctl [--user] show -p NRestarts,ActiveState,SubState,Result,ExecMainStatus,
           ExecMainCode <unit>` and `journalctl [--user] -u <unit> -o cat -n 200`: Hermes's
           "Refusing to start: X has dm_policy/group_policy set to 'open' ..." and
           "Gateway exiting cleanly: <reason>" lines (0.20.1 on: after a timestamp), our gate's
           line, systemd's "Skipped due to 'exec-condition'" and "Failed with result '<result>'";
  home     gateway-starts.log (starts in the last hour) and gateway_state.json (exit_reason).

`summary()` says it in one sentence: "hermes-gateway.service has restarted 1,705 times;
last reason: weixin open policy without opt-in".  The verdict rests on the restart counter, the
state and the journal, never on one `Result=`: under `Type=notify` a refusal is not a clean exit but a
failed start (`Result=protocol`: the gateway exited before READY=1, measured on systemd 252), and each
turn's new start resets `Result=` to `success` while it runs.  Contract: never raises; a command that
fails leaves its fields None and its reason in `problems`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from hermes_wizard.core.frozenmap import FrozenMap
from hermes_wizard.core.values import Value, value_class
from hermes_wizard.read.snapshot import read_json_file, read_starts_log
from hermes_wizard.service.common import Unit
from hermes_wizard.service.systemd import Runner, int_or_none, journal_argv, journal_lines, parse_show, show_argv

REFUSING = re.compile(r"Refusing to start: (\S+) has dm_policy/group_policy set to 'open'")
EXITING = re.compile(r"Gateway exiting cleanly: (.+)$")
GATE_LINE = re.compile(r"hermes-wizard gate: Hermes would refuse to start \((\w+):")
SKIPPED = "Skipped due to 'exec-condition'"
COUNTER = re.compile(r"restart counter is at (\d+)")
FAILED = re.compile(r"Failed with result '([\w-]+)'")
STAMP = re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)? ")  # Hermes >= 0.20.1 logs a timestamp first
# why a start failed, for the summary (systemd.service(5) results; protocol and timeout measured under Type=notify)
FAILED_WORDS = {"protocol": "each start fails with result 'protocol': the gateway exits before it reports ready "
                            "(Type=notify)",
                "timeout": "its starts time out before the gateway reports ready (Type=notify)"}


@value_class
class Evidence(Value):
    unit: str
    props: Mapping[str, str] = FrozenMap()  # `systemctl show`'s properties
    refusals: tuple[str, ...] = ()  # Hermes's refusal lines, oldest first
    gate_lines: tuple[str, ...] = ()  # our gate's one-liners
    skips: int = 0  # starts skipped by ExecCondition=
    counter: int | None = None  # the last "restart counter is at N" in the journal
    failed_result: str | None = None  # the last "Failed with result 'X'" in the journal
    state_reason: str | None = None  # gateway_state.json exit_reason of a failed start
    starts_last_hour: int = 0
    last_reason: str | None = None
    problems: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.props, FrozenMap):  # a caller's dict never stays shared with the evidence
            object.__setattr__(self, "props", FrozenMap(self.props))

    @property
    def restarts(self) -> int | None:
        value = int_or_none(self.props.get("NRestarts"))
        return value if value is not None else self.counter

    @property
    def restarting_now(self) -> bool:
        return self.props.get("SubState") == "auto-restart" or (
            self.props.get("ActiveState") in ("activating", "failed") and (self.restarts or 0) > 0)

    @property
    def asked(self) -> bool:
        """systemd answered `systemctl show`: without its state, old journal lines are no loop in progress."""
        return bool(self.props)

    @property
    def looping(self) -> bool:
        """Restarted again and again with a refusal (or a failed start) as the reason; never claimed when systemd
        could not be asked (`asked`)."""
        if not self.asked:
            return False
        many = (self.restarts or 0) >= 3
        if self.restarting_now:
            return many or bool(self.refusals)
        return many and bool(self.refusals) and not self.running  # running now: a loop that ended

    @property
    def may_be_looping(self) -> bool:
        """Restarted since its last start, with refusals in its journal: maybe between two turns of a loop
        (Hermes sleeps between starts when they come too fast, and a turn runs a second before refusing).
        Before files change under it, doctor stops such a unit; it restarts it once they pass.  Never claimed
        when systemd could not be asked (`asked`): the journal's refusals and counter may be weeks old."""
        if not self.asked:
            return False
        return self.looping or self.restarting_now or (bool(self.refusals) and (self.restarts or 0) > 0)

    @property
    def gated(self) -> bool:
        """The last start was skipped by our gate (the loop stopped at its first turn)."""
        return self.props.get("Result") == "exec-condition" or (bool(self.gate_lines) and self.skips > 0)

    @property
    def running(self) -> bool:
        return self.props.get("ActiveState") == "active" and self.props.get("SubState") == "running"


def reason_words(line: str) -> str | None:
    """A refusal line in few words, as the loop summary says it: "weixin open policy without opt-in"."""
    for pattern in (REFUSING, GATE_LINE):
        found = pattern.search(line)
        if found:
            return f"{found.group(1)} open policy without opt-in"
    found = EXITING.search(line)
    if found:
        reason = found.group(1).strip()
        head, _, tail = reason.partition(": ")
        if tail.startswith("open policy without"):
            return f"{head} open policy without opt-in"
        return reason
    return None


def read_journal(evidence: Evidence, lines: list[str]) -> Evidence:
    """`evidence` with what the journal's `lines` add (refusals, gate lines, skips, the last counter, result
    and reason)."""
    refusals, gate_lines, skips = list(evidence.refusals), list(evidence.gate_lines), evidence.skips
    counter, failed_result, last_reason = evidence.counter, evidence.failed_result, evidence.last_reason
    for line in lines:
        if REFUSING.search(line) or EXITING.search(line):
            refusals.append(line)
        if GATE_LINE.search(line):
            gate_lines.append(line)
        if SKIPPED in line:
            skips += 1
        found = COUNTER.search(line)
        if found:
            counter = int(found.group(1))
        failed = FAILED.search(line)
        if failed:
            failed_result = failed.group(1)
        words = reason_words(line)
        if words:
            last_reason = words
    return replace(evidence, refusals=tuple(refusals), gate_lines=tuple(gate_lines), skips=skips, counter=counter,
                   failed_result=failed_result, last_reason=last_reason)


def read_home(evidence: Evidence, home: Path | None) -> Evidence:
    """`evidence` with gateway_state.json and gateway-starts.log: the gateway's own record of its starts."""
    if home is None:
        return evidence
    # The snapshot's own readers: a FIFO or a link to /dev/zero in the home is judged, not waited on.
    state = read_json_file(home / "gateway_state.json").data
    state_reason = evidence.state_reason
    if isinstance(state, dict) and state.get("gateway_state") == "startup_failed":
        state_reason = str(state.get("exit_reason") or "") or None
    starts = read_starts_log(home / "gateway-starts.log").starts
    starts_last_hour = evidence.starts_last_hour
    if starts:
        latest = max(starts)
        starts_last_hour = sum(1 for s in starts if latest - s <= 3600)
    last_reason = evidence.last_reason
    if last_reason is None and state_reason:
        last_reason = reason_words(f"Gateway exiting cleanly: {state_reason}")
    return replace(evidence, state_reason=state_reason, starts_last_hour=starts_last_hour, last_reason=last_reason)


def gather(unit: Unit, runner: Runner, home: Path | None = None, lines: int = 200) -> Evidence:
    """Ask systemd about one unit (two commands through `runner`) and read the home's files."""
    props: Mapping[str, str] = FrozenMap()
    problems = []
    show = runner.run(show_argv(unit.scope, unit.name))
    if show.ok:
        props = FrozenMap(parse_show(show.stdout))
    elif show.ran:
        problems.append(f"systemctl show failed: {show.why()}")
    journal = runner.run(journal_argv(unit.scope, unit.name, lines))
    if not journal.ok and journal.ran:
        problems.append(f"journalctl failed: {journal.why()}")
    evidence = Evidence(unit.name, props, problems=tuple(problems))
    if journal.ok:
        evidence = read_journal(evidence, journal_lines(journal.stdout))
    return read_home(evidence, home if home is not None else unit.home)


def unchecked(evidence: Evidence) -> str:
    """One sentence for check and doctor when systemd could not be asked: the loop is not claimed either way."""
    why = "; ".join(evidence.problems) or "systemctl show said nothing"
    said = f"; its journal's last refusal: {_clip(evidence.refusals[-1])}" if evidence.refusals else ""
    return f"{evidence.unit}: whether systemd restarts it in a loop could not be checked ({why}){said}"


def summary(evidence: Evidence) -> str:
    """One sentence for check and doctor."""
    n = evidence.restarts
    reason = f"; last reason: {evidence.last_reason}" if evidence.last_reason else ""
    if evidence.gated and not evidence.looping:
        line = evidence.gate_lines[-1] if evidence.gate_lines else "its ExecCondition= failed"
        return f"{evidence.unit} was not started: the hermes-wizard gate stopped it ({line})"
    if n:
        status = evidence.props.get("ExecMainStatus")
        notes = (["restarting now"] if evidence.restarting_now else []) + (
            [f"last exit status {status}"] if status not in (None, "") else []) + (
            [FAILED_WORDS[evidence.failed_result]] if evidence.failed_result in FAILED_WORDS else []) + (
            [f"{evidence.starts_last_hour} starts within an hour in gateway-starts.log"]
            if evidence.starts_last_hour > 5 else [])
        named = [line for line in evidence.refusals if REFUSING.search(line)] or evidence.refusals
        said = f"; its journal's last refusal: {_clip(named[-1])}" if named else ""
        return (f"{evidence.unit} has restarted {n:,} times{reason}" + (f" ({'; '.join(notes)})" if notes else "")
                + said)
    state = evidence.props.get("ActiveState")
    return f"{evidence.unit} is {state or 'in an unknown state'}{reason}"


def _clip(line: str, width: int = 160) -> str:
    """A journal line as quoted in a finding: its message after any timestamp and `LEVEL logger:` prefix,
    at most `width`."""
    stamp = STAMP.match(line)
    line = line[stamp.end():] if stamp else line
    text = line.split(": ", 1)[1] if line.split(" ", 1)[0].isupper() and ": " in line else line
    return f'"{text if len(text) <= width else text[:width - 1] + "…"}"'
