"""The one outcome sentence: what every face says after planning or applying, built here and only here.

Every face (the TUI's Review and Result, the plain prompts, answers files and flags, the doctor, the Hermes
plugin) takes its last words from `planned(report)` (the home as the plan will leave it, `Session.outlook`)
or `written(report, home)` (the files read back after apply) and prints them verbatim:

  * `verdict` — `check`'s own verdict line for that report (wizard/judge/report.py `verdict_line`).  Once
    written, it begins "Verified: " exactly when the report is clean, i.e. when `check` would exit 0 for it;
    otherwise it IS the line `check` prints ("Verdict: …; 1 problem needs attention.").  Before writing it
    begins "After these changes: " and says nothing is verified.
  * `findings` — every finding `check` lists (notes included), each followed by its Fix line.
  * `next_step` (written only) — chosen from the findings and what the service steps did: the fix a platform
    needs before a restart can help (pair WhatsApp with `hermes whatsapp`), else a service step that failed
    here (a restart or the gate: no user bus, no permission), to be run where systemctl reaches the unit,
    else the restart, else nothing when the gateway runs.  After apply every face takes it from
    `after_apply(result, home, scope)`, so they all name the same next command.

Contract: pure words from a HomeReport (the restart command is looked up from the home's service files);
no UI imports.  A face may style these lines, never reword them.
"""

from __future__ import annotations

import shlex
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.core.kinds import Severity
from hermes_wizard.core.safetext import visible
from hermes_wizard.core.values import Value, value_class
from hermes_wizard.faces.wording import STATE_FIXES, restart_hint, tilde
from hermes_wizard.judge.report import verdict_line

if TYPE_CHECKING:
    from hermes_wizard.cases.fixing import Applied
    from hermes_wizard.judge.engine import HomeReport
    from hermes_wizard.service.scope import ServiceScope
    from hermes_wizard.write.apply import ApplyResult

VERIFIED = "Verified: "
VERDICT = "Verdict: "
AFTER = "After these changes: "
NO_HERMES = ("Hermes is not installed here (none in the home's venv or on PATH): this verdict is about the files "
             "alone; no gateway runs until Hermes is installed.")
HERMES_DISAGREES = ("Written, but the installed Hermes disagrees with hermes-wizard: trust Hermes, and report it "
                    "(`hermes-wizard check --verify --format json`).")


@value_class
class Outcome(Value):
    verdict: str
    clean: bool  # what `check` would exit 0 for
    starts: bool  # Hermes would start the gateway (even with problems left)
    findings: tuple[str, ...] = ()  # each finding, its Fix line indented under it
    next_step: str = ""
    hermes: str = ""  # after apply: the installed Hermes's own verdict on the written files, or why not asked
    notes: tuple[str, ...] = ()  # said next to the verdict: the home created (or to be), no Hermes installed

    def lines(self) -> list[str]:
        return ([self.hermes] if self.hermes else []) + [self.verdict, *self.notes, *self.findings] + (
            [self.next_step] if self.next_step else [])


def is_clean(report: HomeReport) -> bool:
    """The report `check` would exit 0 for (no refusal, no error finding, Hermes itself not disagreeing)."""
    return int(report.exit_code()) == 0


def verdict_body(report: HomeReport) -> str:
    """`check`'s verdict line without its "Verdict: " label."""
    return verdict_line(report).removeprefix(VERDICT)


def planned(report: HomeReport, *, creates_home: bool = False) -> Outcome:
    """What `check` will say of the home once the plan is written (nothing is verified yet); `creates_home`:
    the home does not exist yet (cases/fixing.py `Proposal.creates_home`)."""
    return Outcome(AFTER + verdict_body(report), is_clean(report), report.would_start, finding_lines(report),
                   notes=setting_notes(report, creates=creates_home))


def hermes_installed(report: HomeReport) -> bool:
    """Whether a Hermes was found that runs this home (its venv, --hermes-python, or `hermes` on PATH)."""
    judged = getattr(report.facts, "hermes", None)
    return judged is not None and judged.found_at is not None


def setting_notes(report: HomeReport, *, creates: bool = False, created: bool = False) -> tuple[str, ...]:
    """What every face says next to a verdict about where it applies: the home will be (or was) created, and
    no Hermes is installed (the verdict is about the files: it must not read as a gateway that will run)."""
    home = visible(tilde(str(report.home)))
    notes = [f"{home} does not exist yet: applying creates it." if creates else "",
             f"Created {home} (it did not exist)." if created else "",
             "" if hermes_installed(report) else NO_HERMES]
    return tuple(note for note in notes if note)


def written(report: HomeReport, home: Path, *, running: bool | None = None, restart: str | None = None,
            failed: Failed | None = None) -> Outcome:
    """What `check` says of the files just written and read back, and the real next step.
    `running`: the service was restarted and watched (True: it stayed up); `restart`: the command that
    restarts this home's gateway (default: wording.restart_hint); `failed`: the service steps that failed."""
    clean = is_clean(report)
    verdict = VERIFIED + verdict_body(report) if clean else verdict_line(report)
    return Outcome(verdict, clean, report.would_start, finding_lines(report),
                   next_step(report, home, running=running, restart=restart, failed=failed),
                   notes=setting_notes(report))


@value_class
class Failed(Value):
    """The service steps of an apply that did not run here (their command failed), which the next step names."""

    restart: bool = False  # a `systemctl restart` that failed (not one that ran and looped again)
    gate: bool = False  # the gate drop-in was not installed (written, then taken back: systemd did not read it)

    def __bool__(self) -> bool:
        return self.restart or self.gate


def failed_steps(result: ApplyResult) -> Failed:
    """Which of `result`'s service steps failed to run.  A stop that failed is not named: the restart after
    the repair is what ends the loop, and it is planned whenever a stop is."""
    return Failed(restart=any(o.unrun for o in result.restarts), gate=bool(result.gate_not_done))


def after_apply(applied: Applied, home: Path, scope: ServiceScope | None = None) -> Outcome:
    """The outcome of an apply, as every face says it: `written` for the files read back, the restart command
    looked up among the units of `scope` (the session's), the next step knowing which service step failed, and
    what the installed Hermes said of the written files (`hermes`; when it refuses what we call a start, the
    verdict says to trust it, and nothing is "Verified")."""
    result = applied.result
    said = written(result.report, home, running=result.running, restart=restart_hint(home, scope),
                   failed=failed_steps(result))
    said = replace(said, hermes=hermes_words(applied),
                   notes=setting_notes(result.report, created=applied.created_home))
    if applied.hermes_disagrees:
        said = replace(said, verdict=HERMES_DISAGREES, clean=False)
    return said


def hermes_words(applied: Applied) -> str:
    """The installed Hermes's own verdict on a copy of the written files, or why it was not asked ("" when no
    Hermes is installed, or nothing was written)."""
    if applied.hermes_not_asked:
        return visible(f"Hermes itself was not asked: {applied.hermes_not_asked}.")
    told = applied.hermes
    if told is None:
        return ""
    who = f"Hermes {told.version}" if told.version else "Hermes"
    return visible(f"{who} itself, asked on a copy of the written files: {told.verdict()}")


def finding_lines(report: HomeReport) -> tuple[str, ...]:
    """Every finding as `check` lists it (mark, code, platform, message; the home as ~), and its Fix."""
    lines: list[str] = []
    for f in report.findings:
        lines.append(f"{f.severity.glyph} {f.code} {visible(f.platform or 'home')}: {visible(tilde(f.message))}")
        if f.fix:
            lines.append(f"    Fix: {visible(tilde(f.fix))}")
    return tuple(lines)


def next_step(report: HomeReport, home: Path, *, running: bool | None = None, restart: str | None = None,
              failed: Failed | None = None) -> str:
    """The one thing to do now, chosen from the findings: a platform that cannot connect is repaired before
    a restart (a restart would not bring it up); an error's own fix comes before the restart too; then a
    service step that failed here, run again where systemctl can reach the unit."""
    if not report.would_start:
        return "Next: run hermes-wizard doctor again to see what is left."
    restart = visible(tilde(restart or restart_hint(home)))
    restart_words = f"restart the gateway once: {restart}"
    for name, transport in sorted(report.transports.items()):
        if transport.dead and transport.state in STATE_FIXES:
            return f"Next: repair {name} first ({_plain(STATE_FIXES[transport.state])}); then {restart_words}"
    first = next((f for f in report.findings if f.severity == Severity.ERROR and f.fix), None)
    if first is not None:
        return f"Next: fix {first.code} {visible(first.platform or 'home')} first ({_plain(visible(first.fix))}); " \
               f"then {restart_words}"
    if failed:
        return _after_failure(failed, home, restart)
    if running:
        return "Next: nothing — the gateway is running."
    return f"Next: {restart_words}"


def _after_failure(failed: Failed, home: Path, restart: str) -> str:
    """The next command after a service step failed here (said above, with why: no user bus, no permission)."""
    where = "from a shell where systemctl reaches the unit (it failed here, see above)"
    gate = "hermes-wizard doctor --install-gate" + ("" if str(home).endswith("/.hermes")
                                                    else f" --home {visible(tilde(shlex.quote(str(home))))}")
    if failed.restart:
        return f"Next: restart the gateway once {where}: {restart}" + (f"; then add the gate: {gate}"
                                                                       if failed.gate else "")
    return f"Next: add the gate {where}: {gate}"


def _plain(words: str) -> str:
    """A fix quoted in a sentence, without the Markdown backticks around its commands (a screen shows them
    literally; the command reads the same without them)."""
    return words.replace("`", "")


# A plan after which Hermes would refuse to start is never applied by accident: every interactive face keeps
# Apply off and says why, until the user types these words (the answers face refuses such a plan outright).
WRITE_ANYWAY = "write anyway"


def refusal_words(report: HomeReport) -> str:
    """Why Apply is off for the home as the plan would leave it (`report.would_start` is False)."""
    return ("Apply is off: with these changes Hermes would refuse to start, and a service manager would restart it "
            "in a loop. Go back and change the answers, or type " + WRITE_ANYWAY + " to write them regardless.")


def writes_anyway(typed: str) -> bool:
    """Whether the confirmation typed is the words that let a plan Hermes would refuse be written."""
    return typed.strip().lower() == WRITE_ANYWAY


def apply_off_words(*, anything: bool, refused: bool, typed: str) -> str:
    """Why Apply did nothing when asked for (a key pressed while it is off): nothing to apply, a confirmation
    that is not the words (quoted back, escaped: it was typed), or none typed yet."""
    if not anything:
        return "Nothing to apply: no answer changes a file, and no service step is asked for."
    if refused and typed.strip() and not writes_anyway(typed):
        return (f"Apply stays off: '{visible(typed.strip())}' is not '{WRITE_ANYWAY}'. Type exactly "
                f"{WRITE_ANYWAY} to write changes Hermes would refuse to start with, or go back.")
    return (f"Apply is off: Hermes would refuse to start with these changes. Type {WRITE_ANYWAY} in the box above "
            "to write them regardless, or go back and change the answers.")


def restart_lines(result: ApplyResult, clean: bool) -> list[str]:
    """What each watched restart came to.  "Verified" is kept for a clean home (what `check` exits 0 for): a
    gateway that runs with a problem left (an unpaired WhatsApp) is "Running", never "Verified"."""
    ok = VERIFIED if clean else "Running: "
    return [f"{ok if o.ok else 'Not fixed: '}{o.words}." for o in result.restarts]
