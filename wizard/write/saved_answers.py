"""`setup --save-answers FILE`: record what a session chose as an answers file, secrets never in it.

Contract of `save_answers(session, path, secret_env_names)` — for every face (the flags path calls it
today; the TUI and the plain prompts call it after their apply, or instead of it):
  * writes, atomically (a temp file beside it, fsync, rename), the answers file that
    `setup --answers` turns back into the same Plan on the same home: one entry per platform the
    session has answers for (`render_answers`, wizard/plan/answers_file/session_io.py);
  * a secret credential (TOKEN, SECRET, PASSWORD, … in its name) is written as `{from_env: NAME}`,
    NAME being `secret_env_names[KEY]` when given (the variable the user read it from) or KEY itself
    (`TELEGRAM_BOT_TOKEN`): the value never reaches the file, so the file can be committed;
  * the file gets mode 0600 whatever existed before (it names where secrets live);
  * the doctor's repairs are not recorded: an answers file declares platforms, it repairs nothing;
  * an unwritable path raises SavedAnswersError with a sentence for the user; nothing half-written.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.core.atomic import FileOps, write_atomic
from hermes_wizard.core.homefs import ApplyError
from hermes_wizard.plan.answers_file.session_io import render_answers

if TYPE_CHECKING:
    from hermes_wizard.plan.session import Session


class SavedAnswersError(OSError):
    """The answers file could not be written (the message says where and why)."""


def save_answers(session: Session, path: Path | str, secret_env_names: dict[str, str] | None = None) -> Path:
    """Write `session`'s answers to `path` (see the module docstring); the absolute path written."""
    target = Path(path).expanduser().absolute()
    text = render_answers(session, secret_env_names)
    if target.is_dir():
        raise SavedAnswersError(f"cannot save answers to {target}: it is a directory")
    try:
        write_atomic(target, text.encode("utf-8"), FileOps(), mode=0o600)
    except (OSError, ApplyError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise SavedAnswersError(f"cannot save answers to {target}: {reason}") from None
    return target
