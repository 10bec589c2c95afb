"""`hermes-wizard undo`: put back the files of the latest backup set.

The current versions are backed up first (as a new set), so an undo can itself be
undone by running `undo` again.

Contract: writes only through `wizard.apply`'s atomic writer, under its lock.
"""

from __future__ import annotations

import json
from wizard.records import record
from pathlib import Path

from wizard.apply import ApplyError, FileOps, _Lock, backup_sets, make_backup, restore_files, target_of


@record
class UndoResult:
    restored_from: Path
    files: list[str]
    backup: Path  # the state before this undo
    report: object


def undo_latest(home: Path, base_env: dict | None = None, ops: FileOps | None = None) -> UndoResult:
    from wizard.engine import evaluate

    with _Lock(home):
        sets = backup_sets(home)
        if not sets:
            raise ApplyError(f"no backups in {home / '.wizard-backups'}: nothing to undo")
        latest = sets[-1]
        try:
            names = list(json.loads((latest / "manifest.json").read_text())["files"])
        except (OSError, ValueError, KeyError) as exc:
            raise ApplyError(f"backup {latest} is damaged ({exc}); nothing was restored") from None
        before = make_backup(home, {name: target_of(home, name) for name in names}, f"before undo of {latest.name}")
        restored = restore_files(home, latest, names, ops or FileOps())
    return UndoResult(latest, restored, before, evaluate(home, base_env=base_env))
