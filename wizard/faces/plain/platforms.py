"""The plain face's platform steps, shared by setup and doctor — the TUI's Platforms, Platform and Access
screens as questions: choose a platform (display name and id, what is on disk), type its credentials
(masked, validated, the ones already set named but never shown), then who may use the agent, each
policy with its security meaning; open needs the platform's name typed (Session.set_access).

Every answer goes into the session (wizard/plan/session.py); nothing here writes.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.core.safetext import scrubber, visible
from hermes_wizard.faces.access_words import waiting_and_paired, who_reaches
from hermes_wizard.faces.choice_words import access_words, group_words
from hermes_wizard.faces.handover import hand_over
from hermes_wizard.faces.pair_now import can_pair, login_for, login_needed, offer_words
from hermes_wizard.faces.pairing_cmd import journalled, preview
from hermes_wizard.faces.plain.ask import Asks
from hermes_wizard.faces.sources import credentials_from, own_id_help
from hermes_wizard.faces.wording import credential_state, current_access, disk_words, plural
from hermes_wizard.hermes.verify import hermes_python
from hermes_wizard.judge.engine import HomeReport, PlatformRow
from hermes_wizard.judge.masking import secret_values
from hermes_wizard.plan.answers import (
    ACCESS_MODES,
    GROUP_POLICIES,
    credential_error,
    id_problems,
    split_ids,
)
from hermes_wizard.plan.changes import is_secret_name
from hermes_wizard.plan.session import AnswerError, Session
from hermes_wizard.write.undo import pairing_backup_words

if TYPE_CHECKING:
    from hermes_wizard.cases.fixing import Fixing

REVIEW, QUIT = "\0review", "\0quit"  # menu values no platform name can take
AGENT_WARNING = ("Everyone who gets through talks to the same agent as you: it runs terminal commands, edits files "
                 "and executes code on this machine for them.")


def platform_menu(asker: Asks, fixing: Fixing) -> bool:
    """Platforms until the user asks to review (True) or to quit (False)."""
    session = fixing.session
    while True:
        outlook = session.outlook()  # the rows as they will be, pending answers included
        rows = {row.name: row for row in outlook.rows}
        order = sorted(outlook.model.platforms(), key=lambda name: (not (name in rows and rows[name].enabled), name))
        choices = [(_title(outlook, name, rows.get(name)), name) for name in order]
        pending = session.pending()
        choices += [(f"Review the {plural(pending, 'change')} and apply" if pending else "Review", REVIEW),
                    ("Quit without changes", QUIT)]
        waiting = f" ({plural(pending, 'change')} pending)" if pending else ""
        picked = asker.choose(f"Choose a platform to set up, or review{waiting}:", choices)
        if picked in (REVIEW, QUIT):
            return picked == REVIEW
        edit_platform(asker, fixing, picked)


def _title(report: HomeReport, name: str, row: PlatformRow | None) -> str:
    label = f"{report.model.platforms()[name].label} ({name})"
    if row is None or not row.enabled:
        return f"{label} — off"
    return f"{label} — on; credentials {visible(credential_state(report, name))}; {row.verdict}"


def edit_platform(asker: Asks, fixing: Fixing, name: str) -> None:
    session = fixing.session
    report = session.report
    spec = report.model.platforms()[name]
    asker.say(f"\n{spec.label} ({name})")
    asker.say(disk_words(report, name), indent="  ")
    asker.say(credentials_from(name), indent="  ")
    offer_login(asker, fixing, name)
    report = session.report  # read again if Hermes's login ran
    typed = session.answer(name).typed
    for key in (key for key in spec.credentials if not key.endswith("_ENABLED")):
        present = bool(report.effective.environ.get(key, "").strip())
        if typed.get(key):
            hint = "typed already — Enter keeps it"
        else:
            hint = "set — Enter keeps it" if present else "not set"
        check = lambda value, key=key: credential_error(key, value)
        if is_secret_name(key):
            value = asker.secret(f"{key} ({hint}):", check)
        else:
            value = asker.text(f"{key} ({hint}):", check)
        if value:
            session.type_value(name, key, value)
    choose_access(asker, session, name)


def offer_login(asker: Asks, fixing: Fixing, name: str) -> None:
    """Where Hermes has an interactive login (WhatsApp's QR pairing, Weixin's QR login): offer it at the
    platform's step, in the TUI's words (faces/pair_now.py `offer_words`; Yes by default where it is needed:
    not set up yet, or not connecting), hand the terminal over as the TUI does (faces/handover.py), then read
    the home again through the use case; or say what to run where."""
    session = fixing.session
    if not can_pair(name):
        return
    login = login_for(session.report, name)
    if isinstance(login, str):  # the offer, and why it cannot run here: what to run where
        asker.say(f"{offer_words(name)}: {login}", indent="  ")
        return
    if not asker.confirm(f"{offer_words(name)}: run it in this terminal?",
                         default=login_needed(session.report, name)):
        return
    asker.say(login.says)
    secrets = scrubber(secret_values(session.report.snapshot))
    back = hand_over(login, Path(session.report.home), wait=False, redact=secrets)
    if back.code is None:
        asker.say(visible(back.ended()), indent="  ")
        return
    fixing.logged_in(back.shown, back.wrote)  # read again; what it wrote is named when quitting
    # its last lines stay above, as it left them: said here are how it ended and what it wrote
    asker.say("\n".join(back.words(scrubber(secret_values(session.report.snapshot)), lines=0)), indent="  ")
    asker.say(disk_words(session.report, name), indent="  ")


def pairing_step(asker: Asks, report: HomeReport, name: str) -> None:
    """Where requests wait or people are paired: approve a code or revoke a user, through Hermes's own code
    (previewed, confirmed, journalled for undo), as the TUI's access screen does.  Enter skips."""
    waiting, paired = waiting_and_paired(report.home, report.profile, name, facts=report.facts)
    python = hermes_python(report.facts.site_packages if report.facts else None)
    for action, count, question in (("approve", waiting, "Approve a pairing code (Enter: not now):"),
                                    ("revoke", paired, "Revoke a paired user's ID (Enter: nobody):")):
        if not count:
            continue
        value = asker.text(question).strip()
        if not value:
            continue
        if python is None:
            asker.say(f"Hermes's Python was not found: run hermes pairing {action} {name} {value}", indent="  ")
            continue
        ok, words = preview(report.home, report.profile, python, name, value, action, report.facts)
        asker.say(words, indent="  ")
        if not ok or not asker.confirm(f"{action.capitalize()}?", default=False):
            continue
        answer, backup, problem = journalled(report.home, python, action, name, value)
        asker.say(((answer or {}).get("said", "").strip() or problem)
                  + (" " + pairing_backup_words(action, backup) if backup else ""), indent="  ")


def choose_access(asker: Asks, session: Session, name: str) -> None:
    spec = session.report.model.platforms()[name]
    report = session.outlook()  # as the plan will leave it (the doctor's repair included), as the TUI's Access
    answer = session.answer(name)
    asker.say(who_reaches(report.home, report.profile, name, spec.label, facts=report.facts), indent="  ")
    pairing_step(asker, session.report, name)
    asker.say(f"\nWho may use the agent through {spec.label}? {AGENT_WARNING}")
    for mode in ACCESS_MODES:
        asker.say(access_words(session.report.model, name, mode), indent="  * ", hang=0)
    mode = answer.access or current_access(report, name, before=session.report)
    while True:
        mode = asker.choose(f"Access for {name}:", [(m.capitalize() + (" (recommended)" if m == "pairing" else ""),
                                                     m) for m in ACCESS_MODES], default=mode)
        ids: list[str] = []
        if mode in ("allowlist", "pairing") and spec.allowlist_env:
            listed = ", ".join(answer.ids) if answer.access else report.effective.environ.get(spec.allowlist_env, "")
            optional = " — optional with pairing" if mode == "pairing" else ""
            asker.say(own_id_help(name), indent="  ")
            ids = split_ids(asker.text(f"Allowed IDs ({spec.id_hint or 'comma separated'}){optional}:",
                                       default=listed))
            owner = report.transports.get(name)
            for problem in id_problems(spec, ids, owner.owner if owner else None):
                asker.say(f"! {problem}", indent="  ")
        typed = ""
        if mode == "open":
            typed = asker.text(f"Type {name} to confirm that anyone who can reach it may use the agent:")
        try:
            session.set_access(name, mode, ids, typed)
            break
        except AnswerError as exc:
            asker.say(str(exc), indent="  ")
    if spec.gate is not None and mode != "disabled":  # no group question for a platform turned off
        choose_group(asker, session, name)


def choose_group(asker: Asks, session: Session, name: str) -> None:
    """The group-chat question of the five platforms whose adapter has its own group policy, starting on the
    policy the adapter applies now (Hermes's default when none is set)."""
    spec = session.report.model.platforms()[name]
    row = next((r for r in session.outlook().rows if r.name == name), None)
    current = session.answer(name).group or (row.group_policy if row and row.group_policy in GROUP_POLICIES
                                             else spec.group_default or "pairing")
    mode = session.answer(name).access or "pairing"  # the DM choice just made: an open group may open DMs too
    asker.say(f"\nAnd in group chats on {spec.label}?")
    for g in GROUP_POLICIES:
        asker.say(group_words(session.report.model, name, g, mode), indent="  * ", hang=0)
    choices = [(g.capitalize() + (" (Hermes's default)" if g == spec.group_default else ""), g)
               for g in GROUP_POLICIES]
    while True:
        group = asker.choose(f"Group chats on {name}:", choices, default=current)
        chats = _group_chats(asker, session, name) if group == "allowlist" else []
        if group == current and not session.answer(name).group and chats == _listed_chats(session, name):
            return  # unchanged: nothing to write
        typed = asker.text(f"Type {name} to confirm that anyone in its groups may use the agent:") \
            if group == "open" else ""
        try:
            session.set_group(name, group, typed, chats=chats)
            return
        except AnswerError as exc:
            asker.say(str(exc), indent="  ")


def _group_chats(asker: Asks, session: Session, name: str) -> list[str]:
    """The group chats a group allowlist answers, starting on the ones chosen or listed already."""
    spec = session.report.model.platforms()[name]
    answer = session.answer(name)
    listed = ", ".join(answer.chats if answer.group == "allowlist" else _listed_chats(session, name))
    return split_ids(asker.text(f"Group chat IDs it answers ({spec.group_chat_hint or 'comma separated'}):",
                                default=listed))


def _listed_chats(session: Session, name: str) -> list[str]:
    """The group chats the adapter's own group list names in the home as read."""
    effective = session.report.effective
    return list(session.report.model.authorizer().group_chats(effective.environ, effective.platforms, name))
