"""`hermes-wizard undo`: put back the files of the latest backup set, after showing what it would do.

`list_sets` describes every complete set (newest first); `preview_latest` reads the latest
set's copies (read-only, no lock: nothing is written) and judges the home as the restore
would leave it; `undo_latest(expect=...)` restores only the set that was previewed.

The current versions are backed up first (as a new set, journalled like an apply), so
an undo can itself be undone by running `undo` again, and an undo that is killed is
rolled back by the next run.  An interrupted apply found first is rolled back, and
that is all this undo does.

Contract: writes only through `hermes_wizard.write.apply`'s atomic writer, under its lock, and
restores only `.env` and `config.yaml` of this home, from a set that passes
`hermes_wizard.write.backups.checked_files` (the trust rule is stated in wizard/write/backups.py), and
takes out a gate drop-in the set installed (the rule for those: wizard/write/service_apply.py).  A set that
journalled keyring steps is refused whole on a home of someone else's (root on a user's home): the keyring is
per user, so only the owner undoes it, and the refusal names the command they run.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.core.atomic import FileOps, Lock
from hermes_wizard.core.frozenmap import FrozenMap
from hermes_wizard.core.homefs import ApplyError, DanglingLink, HomeDir, digest, look, read_file
from hermes_wizard.core.safetext import visible
from hermes_wizard.core.values import Value, value_class
from hermes_wizard.hermes import verify
from hermes_wizard.hermes.loader.plugins import HostFacts
from hermes_wizard.hermes.pairing_run import run_pairing
from hermes_wizard.judge.engine import HomeReport, evaluate
from hermes_wizard.judge.masking import is_secret_name
from hermes_wizard.read.snapshot import take_snapshot
from hermes_wizard.service.systemd import Runner
from hermes_wizard.write.backups import (
    BACKUP_DIR,
    BackupSet,
    checked_files,
    close_journal,
    complete_sets,
    latest_set,
    make_backup,
    recover,
    restore_files,
)
from hermes_wizard.write.keyring_apply import KeyringEntry, not_the_owners, undo_journal
from hermes_wizard.write.service_apply import inverse_entries, put_back, will_leave

if TYPE_CHECKING:
    from collections.abc import Mapping


@value_class
class UndoResult(Value):
    restored_from: Path | None
    files: tuple[str, ...]
    backup: Path | None  # the state before this undo
    report: HomeReport  # the engine's report of the home as the undo left it
    recovered: str | None = None  # the line about an interrupted run rolled back instead
    # drop-ins taken out or put back (wizard/write/service_apply.py)
    service_lines: tuple[str, ...] = ()
    service_left: bool = False  # a drop-in the set journalled was left as it is (a refused folder, a unit gone)


@value_class
class SetSummary(Value):
    name: str
    reason: str  # from the set's manifest: attacker-writable text, escaped where printed
    files: tuple[str, ...]  # empty with `refused` when the set fails checked_files
    service: bool  # the set journalled a service drop-in that undo would take out or put back
    refused: str | None = None


@value_class
class UndoPreview(Value):
    set_name: str | None  # None: an interrupted run would be rolled back instead (`interrupted`)
    reason: str
    current: Mapping[str, bytes | None]  # the home's files now (a FrozenMap)
    restored: Mapping[str, bytes | None]  # (a FrozenMap) what the restore leaves (None: the file is removed)
    service: bool
    report: HomeReport  # the engine's report of the home as the restore leaves it
    interrupted: str | None = None
    # .env secrets whose (masked, so unseen) value the restore changes
    secrets_changed: tuple[str, ...] = ()
    service_left: tuple[str, ...] = ()  # the journalled drop-ins the restore would leave, and why
    pairing: tuple[str, ...] = ()  # what the undo does to the pairing store, in words


def list_sets(home: Path) -> list[SetSummary]:
    """Every complete backup set of `home`, newest first; a set undo would refuse says why."""
    if not os.path.isdir(home):
        return []
    out = []
    with HomeDir(home) as opened:
        for backup in reversed(complete_sets(opened)):
            try:
                files, refused = tuple(checked_files(backup)), None
            except ApplyError as exc:
                files, refused = (), str(exc)
            out.append(SetSummary(backup.path.name, str(backup.manifest.get("reason") or ""), files,
                                  bool(backup.manifest.get("service")), refused))
    return out


def preview_latest(home: Path, base_env: dict[str, str] | None = None) -> UndoPreview:
    """What `undo_latest` would do now, judged by the engine on the restored contents; writes nothing."""
    with HomeDir(home) as opened:
        interrupted = complete_sets(opened, "applying")
        if interrupted:
            return UndoPreview(None, "", FrozenMap(), FrozenMap(), False, evaluate(home, base_env=base_env),
                               interrupted[-1].path.name)
        latest = latest_set(opened)
        if latest is None:
            raise ApplyError(f"no backups in {home / BACKUP_DIR}: nothing to undo")
        _refuse_anothers_keyring(home, latest)
        copies = _copies(latest)
        current = {name: look(opened, name)[1] for name in copies}
    # A file the set says did not exist is removed; the engine judges it as an empty one.
    overrides = {name: data if data is not None else b"" for name, data in copies.items()}
    report = evaluate(home, base_env=base_env, overrides=overrides)
    now, then = take_snapshot(home).env.values, report.snapshot.env.values
    secrets = sorted(name for name in now.keys() | then.keys()
                     if is_secret_name(name) and now.get(name) != then.get(name))
    dropins = latest.manifest.get("service") or []
    return UndoPreview(latest.path.name, str(latest.manifest.get("reason") or ""), FrozenMap(current),
                       FrozenMap(copies), bool(dropins), report, secrets_changed=tuple(secrets),
                       service_left=tuple(will_leave(home, dropins, "before")) if dropins else (),
                       pairing=tuple(_pairing_words(entry) for entry in _pairing_entries(latest)))


def _refuse_anothers_keyring(home: Path, backup: BackupSet) -> None:
    """A set that journalled keyring steps is undone by the home's owner alone, whole: its files without its keyring
    steps would leave a secret in neither place (wizard/write/keyring_apply.py `not_the_owners`)."""
    if why := not_the_owners(home, backup.manifest.get("keyring")):
        raise ApplyError(f"{backup.path.name}: {why}  (Nothing was restored.)")


def _pairing_entries(backup: BackupSet) -> list[dict[str, str]]:
    """The set's pairing journal, each entry checked (the owner can write the set: a string is all we take)."""
    journal = backup.manifest.get("pairing")
    entries = journal if isinstance(journal, list) else []
    return [e for e in entries if isinstance(e, dict) and e.get("action") in ("approve", "revoke")
            and all(isinstance(e.get(k), str) and e.get(k) for k in ("platform", "user_id"))]


def _pairing_words(entry: dict[str, str]) -> str:
    who, platform = visible(entry["user_id"]), visible(entry["platform"])
    if entry["action"] == "approve":
        return f"It revokes {who}'s pairing on {platform} through Hermes (the approval this set made)."
    return (f"It cannot give {who} back their pairing on {platform} (Hermes approves only a code): they ask again "
            "and you approve the new code.")


def pairing_backup_words(action: str, backup: str) -> str:
    """What every face says after a journalled pairing `action` made the set `backup`: what `undo` will really
    do with it (`_pairing_words`) — an approval it takes back through Hermes, a revocation it cannot (Hermes
    approves only a code), so the words say how the person gets back in instead."""
    if action == "approve":
        return f"Backup: {backup}/ (hermes-wizard undo takes it back, through Hermes)"
    return (f"Backup: {backup}/ (of .env; undo cannot give the pairing back, as Hermes approves only a code: "
            "to let them in again, they ask the bot again and you approve the new code)")


def _undo_pairing(home: Path, entries: list[dict[str, str]], hermes: str | None) -> list[str]:
    """Approvals taken back through Hermes's own pairing code, run as the home's owner (never by writing the
    store's files); what was done, in words."""
    if not entries:
        return []
    python = verify.hermes_python(HostFacts.detect(home, hermes_python=hermes).site_packages)
    said = []
    for entry in entries:
        who, platform = visible(entry["user_id"]), visible(entry["platform"])
        if entry["action"] != "approve":
            said.append(_pairing_words(entry))
        elif python is None:
            said.append(f"Could not revoke {who} on {platform}: Hermes's Python was not found; run hermes pairing "
                        f"revoke {platform} {who} (or undo again with --hermes-python)")
        else:
            answer = run_pairing(home, python, "revoke", entry["platform"], entry["user_id"])
            said.append(f"Revoked {who}'s pairing on {platform} through Hermes." if not answer.get("failure")
                        else f"Could not revoke {who} on {platform}: {visible(str(answer['failure']))}")
    return said


def _inverse_keyring(journal: object) -> list[KeyringEntry] | None:
    """The undo's own journal: what undoing it again (a second `undo`) must do to the keyring."""
    flip = {"store": "delete", "delete": "store"}
    entries = journal if isinstance(journal, list) else []
    inverse: list[KeyringEntry] = [{"action": flip[e["action"]], "variable": e["variable"]} for e in entries
                                   if isinstance(e, dict) and e.get("action") in flip
                                   # an entry undo leaves in place needs nothing to redo:
                                   and isinstance(e.get("variable"), str) and e.get("existed") is not True]
    return inverse or None


def _copies(backup: BackupSet) -> dict[str, bytes | None]:
    """The set's files as the restore writes them (None: removed), each copy read as a regular file."""
    files = checked_files(backup)
    copies = {name: read_file(backup.entry(name)) if entry["existed"] else None for name, entry in files.items()}
    if any(copies[name] is None for name, entry in files.items() if entry["existed"]):
        raise ApplyError(f"backup {backup.path} lacks a copy its manifest lists; nothing was restored")
    return copies


def undo_latest(home: Path, base_env: dict[str, str] | None = None, ops: FileOps | None = None,
                runner: Runner | None = None,
                expect: str | None = None, hermes_python: str | None = None) -> UndoResult:
    """Restore the latest set's files, and make the drop-ins it journalled what they were before it.
    `expect`: the set name the user was shown; another latest set (a run in between) is refused."""
    with HomeDir(home) as opened, Lock(opened):
        recovered = recover(opened)
        if recovered:
            return UndoResult(None, (), None, evaluate(home, base_env=base_env), recovered)
        latest = latest_set(opened)
        if latest is None:
            raise ApplyError(f"no backups in {home / BACKUP_DIR}: nothing to undo")
        if expect is not None and latest.path.name != expect:
            raise ApplyError(f"the latest backup is now {latest.path.name}, not the {expect} shown; nothing was "
                             "restored (run undo again to see it)")
        _refuse_anothers_keyring(home, latest)
        # Every copy is read (as a regular file, no link followed) before anything changes.
        copies = {name: data for name, data in _copies(latest).items() if data is not None}
        names = list(checked_files(latest))
        try:
            places = {name: opened.place(name) for name in names}
        except DanglingLink as exc:
            raise ApplyError(f"{exc}; nothing was restored") from None
        new = {name: digest(copies.get(name)) for name in names}
        dropins = latest.manifest.get("service") or []
        kept = latest.manifest.get("keyring") or []
        before = make_backup(opened, places, f"before undo of {latest.path.name}", new=new,
                             service=inverse_entries(home, dropins, "before") if dropins else None,
                             keyring=_inverse_keyring(kept))
        said = undo_journal(home, kept, take_snapshot(home).env.values, "before") if kept else []
        restored = restore_files(opened, latest, names, ops or FileOps(), instead=copies)
        service_lines, _, left = put_back(home, dropins, "before", runner or Runner()) if dropins else ([], [], False)
        said += service_lines + (undo_journal(home, kept, {}, "after") if kept else [])
        said += _undo_pairing(home, _pairing_entries(latest), hermes_python)
        close_journal(opened, before)
    return UndoResult(latest.path, tuple(restored), before.path, evaluate(home, base_env=base_env),
                      service_lines=tuple(said),
                      service_left=left)
