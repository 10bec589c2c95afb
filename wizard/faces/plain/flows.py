"""The plain face's two flows, `setup` and `doctor`, step for step the TUI's (screens/*):

  setup   home and verdict → platforms (credentials, access) → review → apply → result
  doctor  home, verdict and findings → the safe repair, chosen as in the Findings screen (an open opt-in
          only for platforms whose name was typed: Session.needs_confirming) → optionally platforms by
          hand → review (with the service steps the doctor TUI offers) → apply → result

Review says what `check` would print for the home as it will be (Session.outlook): the masked diff, the
verdict line, every platform left open to everyone, every finding.  It asks "Apply these changes?"
with No as the default; No goes back to the choices.  A plan after which Hermes would refuse to start is
applied only when "write anyway" is typed (as in the TUI's Review).  Only `apply` writes (write/apply.py),
and "Verified" is said only when the files read back judge clean.

Contract: `setup` and `doctor` only ask (a KeyboardInterrupt or EOFError from them means nothing was
written); `apply`, called after them, asks nothing.
"""

from __future__ import annotations

from dataclasses import replace

from hermes_wizard.cases.fixing import OFFERED_SERVICE, Applied, DoctorChoices, Fixing, Proposal
from hermes_wizard.core.keyring_store import backend_name, usable_for
from hermes_wizard.core.safetext import visible
from hermes_wizard.core.values import Value, value_class
from hermes_wizard.faces.outcome import (
    WRITE_ANYWAY,
    after_apply,
    apply_off_words,
    planned,
    refusal_words,
    restart_lines,
    setting_notes,
    writes_anyway,
)
from hermes_wizard.faces.plain.ask import Asks
from hermes_wizard.faces.plain.platforms import platform_menu
from hermes_wizard.faces.wording import open_words, plural, ssh_note, tilde, verdict_words
from hermes_wizard.plan.answers import split_ids
from hermes_wizard.plan.changes import render_diff
from hermes_wizard.plan.repairs import RepairOptions
from hermes_wizard.plan.service_steps import render_service
from hermes_wizard.plan.session import Session
from hermes_wizard.write.apply import ApplyError

ECHO_WARNING = ("This terminal cannot turn echo off: what you type for a secret would be shown on screen (and "
                "kept by anything recording this session).")


@value_class
class Outcome(Value):
    applied: Applied | None = None  # None: apply refused or rolled back (it said why)


def introduce(asker: Asks, fixing: Fixing, *, ssh: bool, echo_hidden: bool) -> bool:
    """The home, its verdict, and the terminal's facts; False when the user declines visible secrets."""
    home = fixing.home
    words, _ = verdict_words(fixing.report)
    asker.say(f"Hermes home: {visible(tilde(str(home)))}")
    asker.say(words)
    for note in setting_notes(fixing.report, creates=not fixing.home_existed):  # next to the verdict
        asker.say(note)
    if ssh:
        asker.say(ssh_note(visible(tilde(str(home / ".env")))))
    if not echo_hidden:
        asker.say(ECHO_WARNING)
        return asker.confirm("Type secrets visibly anyway?", default=False)
    return True


def setup(asker: Asks, fixing: Fixing) -> Proposal | None:
    """Ask until the user confirms the review: the proposal to apply, or None when they quit."""
    asked = False
    while platform_menu(asker, fixing):
        asked = asked or where_secrets_go(asker, fixing.session)
        proposal = fixing.propose()
        if review(asker, proposal):
            return proposal
    return None


def where_secrets_go(asker: Asks, session: Session) -> bool:
    """Once the answers carry a platform secret: keep it in the OS keyring (asked only where one is usable,
    default no) or in .env at mode 0600 (said in one line where there is none).  True once asked or said."""
    if not session.typed_secrets():
        return False
    why = usable_for(session.report.home)
    if why:
        asker.say(f"The secrets go to .env, mode 0600: {why}.")
        session.secrets_in_keyring = False  # --secrets keyring cannot be honoured here: said, not failed later
        return True
    session.secrets_in_keyring = asker.confirm(
        f"Keep the secrets in the OS keyring ({backend_name()}) instead of .env? The gateway reads them through "
        "hermes-wizard's Hermes plugin, which must be installed in Hermes's venv.", default=False)
    return True


def doctor(asker: Asks, fixing: Fixing) -> Proposal | None:
    """As `setup`, with the doctor's repair chosen first and the service steps it offers."""
    report = fixing.report
    shown = [f for f in report.findings if f.severity != "info"] or report.findings
    lines = [f"{f.severity.glyph} {f.code} {visible(f.platform or 'home')}: {visible(tilde(f.message))}"
             for f in shown]
    asker.say("\n".join(lines) or "No problems found.", indent="  ")
    open_policy = dead = None
    if report.violations:
        open_policy = asker.choose("Open policies without opt-in become:", [
            ("pairing (recommended)", "pairing"), ("allowlist", "allowlist"),
            ("open, with the platform's own opt-in (you type each platform's name)", "optin")], default="pairing")
    if any(t.dead for t in report.transports.values()):
        dead = asker.choose("Platforms that cannot connect:", [("disable them (credentials kept)", "disable"),
                                                               ("leave them enabled", "keep")], default="disable")
    choices = DoctorChoices(RepairOptions(open_policy=open_policy or "pairing", dead_transport=dead or "disable"),
                            service=OFFERED_SERVICE)
    confirmed: list[str] = []
    for name in fixing.propose(choices).waiting:
        typed = asker.text(f"Type {name} to open it to everyone (Enter leaves it closed):")
        confirmed += split_ids(typed)
    choices = replace(choices, confirmed=frozenset(confirmed))
    proposal = fixing.propose(choices)
    assert proposal.repair is not None  # a doctor's proposal carries its repair
    notes = list(proposal.repair.notes) + [f"not fixed: {line}" for line in proposal.repair.unfixable]
    if proposal.waiting:
        notes.insert(0, f"Not opened, its name was not typed: {', '.join(proposal.waiting)} (Hermes "
                        "still refuses to start).")
    asker.say("\n".join(visible(tilde(note)) for note in notes) or "Nothing to fix.", indent="  ")
    asked = False
    while True:
        step = asker.choose("Next:", [("Review the fix and apply", "review"), ("Change a platform by hand", "edit"),
                                      ("Quit without changes", "quit")], default="review")
        if step == "quit" or (step == "edit" and not platform_menu(asker, fixing)):
            return None
        asked = asked or where_secrets_go(asker, fixing.session)
        proposal = fixing.propose(choices)
        if review(asker, proposal):
            steps = proposal.plan.service
            if steps and not asker.confirm("Also run the service steps above?", default=True):
                return fixing.propose(replace(choices, run_service=False))
            return proposal


def review(asker: Asks, proposal: Proposal) -> bool:
    """The plan and what `check` will say of its result; True when the user confirms (default No)."""
    plan, steps, outlook = proposal.files, proposal.plan.service, proposal.outlook  # a planned gate read as written
    asker.say()
    if plan.changes:
        asker.say(f"{plural(len(plan.changes), 'change')} in {' and '.join(plan.files())} (secrets shown as ••••••):")
        asker.show(render_diff(plan))
    else:
        asker.say("No file changes.")
    if steps:
        asker.show(render_service(steps))
    said = planned(outlook, creates_home=proposal.creates_home)
    asker.say(said.verdict)
    for note in said.notes:
        asker.say(note)
    opened = open_words(outlook)
    if opened:
        asker.say(opened)
    asker.say("\n".join(said.findings) or "No findings.", indent="  ")
    if not proposal.plan:
        asker.say("Nothing to apply.")
        return False
    if not outlook.would_start:  # never applied by accident: the words typed, as the TUI's Review asks
        asker.say(refusal_words(outlook))
        typed = asker.text(f"Type {WRITE_ANYWAY} to write them regardless (Enter goes back):")
        if typed.strip() and not writes_anyway(typed):  # a mistyped confirmation is said, never silently back
            asker.say(apply_off_words(anything=True, refused=True, typed=typed))
        return writes_anyway(typed)
    return asker.confirm("Apply these changes?", default=False)


def apply(asker: Asks, fixing: Fixing, proposal: Proposal) -> Outcome:
    """The one write: back up, write atomically, read back, judge again; then the result in words."""
    try:
        applied = fixing.apply(proposal, reason=f"hermes-wizard {fixing.mode}")
    except ApplyError as exc:
        asker.say(f"hermes-wizard: {exc}")
        return Outcome(None)
    _result(asker, applied, fixing)
    return Outcome(applied)


def _result(asker: Asks, applied: Applied, fixing: Fixing) -> None:
    result = applied.result
    report = result.report
    said = after_apply(applied, fixing.home, fixing.scope)
    asker.say(f"Written: {', '.join(result.written) or 'no file'}")
    if result.backup is not None:
        asker.say(f"Backup: {visible(tilde(str(result.backup)))}/")
    if said.hermes:
        asker.say(said.hermes)
    asker.say(said.verdict)
    for note in said.notes:
        asker.say(note)
    opened = open_words(report)
    if opened:
        asker.say(opened)
    if said.findings:
        asker.say("\n".join(said.findings), indent="  ")
    for line in (*result.service_lines, *restart_lines(result, said.clean)):
        asker.say(visible(line))
    asker.say(visible(said.next_step))
