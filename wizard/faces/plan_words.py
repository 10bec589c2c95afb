"""What the doctor's screens say it will do, derived from the session's plan — never from notes the repair
wrote before the user answered anything.

The repair (wizard/plan/repairs.py) words each fix when it is planned ("weixin: dm_policy open → pairing …").
Once the user answers for a platform on its own screens, that answer replaces the repair for it
(wizard/plan/session.py), and an opt-in nobody confirmed by typing the name is not in the plan at all.  So:

  * a repair note stays only while the plan still holds that platform's repair changes;
  * a platform the user answered for is described by the plan's own changes for it ("weixin (your answer):
    WEIXIN_ALLOW_ALL_USERS unset → true");
  * an opt-in waiting for its typed name is said once, by the face's own "not opened" line.

Contract: pure words from a Session and a Repair; secret values are never shown (••••••).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermes_wizard.core.safetext import visible

if TYPE_CHECKING:
    from hermes_wizard.plan.changes import Change
    from hermes_wizard.plan.repairs import Repair
    from hermes_wizard.plan.session import Session

MASK = "••••••"


def change_words(change: Change) -> str:
    """One change as "KEY before → after" (unset / removed for a missing side; a secret masked)."""
    def side(value: str | None, missing: str) -> str:
        if value is None:
            return missing
        return MASK if change.secret else visible(value)

    return f"{visible(change.key)} {side(change.before, 'unset')} → {side(change.after, 'removed')}"


def plan_notes(session: Session, repair: Repair) -> list[str]:
    """The repair's notes that the plan still carries out, then each answered platform's planned changes."""
    planned = session.changes()
    kept = {id(c) for c in planned}
    carried = {c.platform for c in repair.plan.changes if id(c) in kept and c.platform}
    answered = sorted(name for name, answer in session.platforms.items() if answer.access or answer.group
                      or any(answer.typed.values()))
    notes = []
    for note in repair.notes:
        platform = note.split(":", 1)[0]
        if platform in answered or (platform in session.report.model.platforms() and platform not in carried):
            continue  # replaced by the user's own answer, or (an unconfirmed opt-in) not in the plan
        notes.append(note)
    for name in answered:
        words = [change_words(c) for c in planned if c.platform == name]
        notes.append(f"{name} (your answer): " + ("; ".join(words) if words else "no change"))
    return notes
