"""`hermes-wizard undo`: put back the files of the latest backup set.

The current versions are backed up first (as a new set, journalled like an apply), so
an undo can itself be undone by running `undo` again, and an undo that is killed is
rolled back by the next run.  An interrupted apply found first is rolled back, and
that is all this undo does.

Contract: writes only through `wizard.write.apply`'s atomic writer, under its lock, and
restores only `.env` and `config.yaml` of this home, from a set that passes
`wizard.write.backups.checked_files` (the trust rule is stated in wizard/backups.py), and
takes out a gate drop-in the set installed (the rule for those: wizard/write/service_apply.py).
"""

from __future__ import annotations

from pathlib import Path

from wizard.core.homefs import ApplyError, DanglingLink, HomeDir, digest, read_file
from wizard.core.records import factory, record
from wizard.write.apply import FileOps, Lock
from wizard.write.backups import (
    BACKUP_DIR,
    checked_files,
    close_journal,
    latest_set,
    make_backup,
    recover,
    restore_files,
)


@record
class UndoResult:
    restored_from: Path | None
    files: list[str]
    backup: Path | None  # the state before this undo
    report: object
    recovered: str | None = None  # the line about an interrupted run rolled back instead
    service_lines: list[str] = factory(list)  # drop-ins taken out or put back (wizard/write/service_apply.py)


def undo_latest(home: Path, base_env: dict | None = None, ops: FileOps | None = None, runner=None) -> UndoResult:
    """Restore the latest set's files, and make the drop-ins it journalled what they were before it."""
    from wizard.judge.engine import evaluate
    from wizard.service.systemd import Runner
    from wizard.write.service_apply import inverse_entries, put_back

    with HomeDir(home) as opened, Lock(opened):
        recovered = recover(opened)
        if recovered:
            return UndoResult(None, [], None, evaluate(home, base_env=base_env), recovered)
        latest = latest_set(opened)
        if latest is None:
            raise ApplyError(f"no backups in {home / BACKUP_DIR}: nothing to undo")
        files = checked_files(latest)
        names = list(files)
        # Every copy is read (as a regular file, no link followed) before anything changes.
        copies = {name: read_file(latest.entry(name)) for name, entry in files.items() if entry["existed"]}
        if None in copies.values():
            raise ApplyError(f"backup {latest.path} lacks a copy its manifest lists; nothing was restored")
        try:
            places = {name: opened.place(name) for name in names}
        except DanglingLink as exc:
            raise ApplyError(f"{exc}; nothing was restored") from None
        new = {name: digest(copies.get(name)) for name in names}
        dropins = latest.manifest.get("service") or []
        before = make_backup(opened, places, f"before undo of {latest.path.name}", new=new,
                             service=inverse_entries(home, dropins, "before") if dropins else None)
        restored = restore_files(opened, latest, names, ops or FileOps(), instead=copies)
        said = put_back(home, dropins, "before", runner or Runner())[0] if dropins else []
        close_journal(opened, before)
    return UndoResult(latest.path, restored, before.path, evaluate(home, base_env=base_env), service_lines=said)
