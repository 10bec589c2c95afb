"""Backup sets of a home, and the journal that makes an apply all-or-nothing across files.

Layout: `<home>/.wizard-backups/<YYYYmmdd-HHMMSS>[-N]/` holding the old `.env` and/or
`config.yaml` (0600) and `manifest.json`: {"created", "reason", "state", "files":
{name: {"existed", "mode", "uid", "gid"}}, "new": {name: sha256 the apply writes}}.
The folder and everything in it belong to the home's owner (0700/0600), so the owner
can run `doctor` and `undo` after root did.

Journal: the manifest is written, with "state": "applying", before any file of the home
changes, and rewritten "complete" after the last one.  A run that finds an "applying"
set (an apply or undo that was killed) rolls it back under the lock — each file whose
bytes are the backup's or the journal's new ones is put back; one changed by someone
else since is left and named — then removes the set and says so in one line.  A folder
without a manifest (killed while backing up) never held a change and is removed.

Trust: the home's owner can write these folders, so a set is never trusted, it is made
harmless: only `.env` and `config.yaml` are restored, into the home through
hermes_wizard.core.homefs (no link followed); backup files and the manifest are read as regular
files without following links; a mode is used only when it is plain permission bits
(0..0o777), else the whole set is refused, and a set read from disk never makes a file looser
than its mode now or, for `.env`, than 0600 (`restored_mode`); "existed": false deletes only those two names
in the home; restored files keep their owner, or get the home's owner when new.  So a
hostile set can at most put the owner's own bytes into the owner's own files.
"""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Literal, TypedDict, overload

from hermes_wizard.core.atomic import FileOps, Lock, clean_stale_tmp, write_atomic
from hermes_wizard.core.homefs import ApplyError, At, HomeDir, digest, look, read_file, read_with_stat
from hermes_wizard.plan.changes import ENV, GATEWAY_JSON, YAML
from hermes_wizard.service.systemd import Runner
from hermes_wizard.write.keyring_apply import KeyringEntry, undo_journal
from hermes_wizard.write.service_apply import DropinEntry, put_back

BACKUP_DIR = ".wizard-backups"
SECRET_FILES = frozenset({ENV})  # restored never looser than 0600 (creds files are never restored)
KEEP_BACKUPS = 20
KNOWN = (ENV, YAML, GATEWAY_JSON)
MANIFEST = "manifest.json"


class _FileExisted(TypedDict):
    existed: bool


class FileEntry(_FileExisted, total=False):
    """A file of the set as the manifest lists it: whether it existed, and if so its mode and owner."""

    mode: int
    uid: int
    gid: int


class BackupSet:
    """An opened set folder: `at` names its entries (dir_fd = the folder).  Its manifest is JSON the home's
    owner can write, so its values are `object` until checked (`checked_files` and the journals' own checks)."""

    def __init__(self, at: At, manifest: dict[str, object]) -> None:
        self.at, self.manifest, self.path = at, manifest, at.path
        self.root: At | None = None  # the backup folder's At, for a set this run made

    def entry(self, name: str) -> At:
        return At(self.at.dir_fd, name, self.path / name)


@overload
def _root(home: HomeDir, create: Literal[True]) -> At: ...
@overload
def _root(home: HomeDir, create: Literal[False]) -> At | None: ...


def _root(home: HomeDir, create: bool) -> At | None:
    return home.subdir(home.at(BACKUP_DIR)) if create else home.opendir(home.at(BACKUP_DIR))


def make_backup(home: HomeDir, targets: dict[str, At], reason: str, new: dict[str, str | None] | None = None,
                service: list[DropinEntry] | None = None, keyring: list[KeyringEntry] | None = None,
                pairing: list[dict[str, str]] | None = None) -> BackupSet:
    """Copy `targets` into a new set; its journal stays "applying" until `close_journal`.
    `service`: the drop-in steps about to run (wizard/write/service_apply.py journal_entries)."""
    root = _root(home, create=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    # Within one second, count past every set of that second (pruned ones included, so a
    # new set never reuses an older set's name and sorts before it).
    taken = [_age(name)[1] for name in os.listdir(root.dir_fd) if name[:15] == stamp]
    set_name = f"{stamp}-{max(taken) + 1}" if taken else stamp
    folder = home.subdir(At(root.dir_fd, set_name, root.path / set_name))
    files: dict[str, dict[str, bool | int]] = {}
    manifest: dict[str, object] = {"created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "reason": reason,
                                   "state": "applying", "files": files, "new": dict(new or {})}
    if service:
        manifest["service"] = list(service)
    if keyring:  # wizard/write/keyring_apply.py journal_entries: actions and variable names, never a value
        manifest["keyring"] = list(keyring)
    if pairing:  # wizard/faces/pairing_cmd.py: approvals and revocations Hermes made ({action, platform, user_id})
        manifest["pairing"] = list(pairing)
    backup = BackupSet(folder, manifest)
    try:
        for name, target in targets.items():
            data, st = read_with_stat(target)
            entry: dict[str, bool | int] = {"existed": data is not None}
            if data is not None:
                assert st is not None  # read_with_stat gives the stat with the bytes
                entry.update(mode=stat.S_IMODE(st.st_mode), uid=st.st_uid, gid=st.st_gid)
                write_atomic(backup.entry(name), data, FileOps(), mode=0o600, owner=home)
            files[name] = entry
        # The manifest goes last: a folder without one is incomplete, never used, pruned.
        _write_manifest(home, backup)
        os.fsync(root.dir_fd)
    except BaseException:
        _remove_folder(root.dir_fd, set_name)
        raise
    backup.root = root
    return backup


def _write_manifest(home: HomeDir, backup: BackupSet) -> None:
    write_atomic(backup.entry(MANIFEST), json.dumps(backup.manifest, indent=2).encode(), FileOps(), mode=0o600,
                 owner=home)


def close_journal(home: HomeDir, backup: BackupSet) -> None:
    backup.manifest["state"] = "complete"
    _write_manifest(home, backup)
    assert backup.root is not None  # close_journal only follows this run's make_backup, which sets it
    _prune(home, backup.root)


def discard(home: HomeDir, backup: BackupSet) -> None:
    """Remove a set this run made when what it was made for did not happen (nothing to undo)."""
    assert backup.root is not None  # only a set this run's make_backup made
    _remove_folder(backup.root.dir_fd, backup.path.name)


def _prune(home: HomeDir, root: At) -> None:
    for old in _sets(home, root)[:-KEEP_BACKUPS]:
        _remove_folder(root.dir_fd, old.path.name)


def _remove_folder(dir_fd: int, name: str, depth: int = 0) -> None:
    """Remove folder `name` of `dir_fd` and what it holds, following no link; what cannot go stays.
    (`shutil.rmtree(..., dir_fd=)` is 3.11's; the project supports 3.10.)  A name that is a link or
    not a folder is left, as rmtree leaves it; so is a nest deeper than a set's, which is not ours."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)
    except OSError:
        return
    try:
        for entry in os.listdir(fd):
            try:
                if stat.S_ISDIR(os.stat(entry, dir_fd=fd, follow_symlinks=False).st_mode):
                    if depth < 8:
                        _remove_folder(fd, entry, depth + 1)
                else:
                    os.unlink(entry, dir_fd=fd)
            except OSError:
                continue
    finally:
        os.close(fd)
    try:
        os.rmdir(name, dir_fd=dir_fd)
    except OSError:
        pass


def _sets(home: HomeDir, root: At, state: str = "complete") -> list[BackupSet]:
    """Sets of `root` in `state` ("complete" includes sets written before the journal), oldest first."""
    found = []
    for name in sorted(os.listdir(root.dir_fd), key=_age):
        folder = home.opendir(At(root.dir_fd, name, root.path / name))
        if folder is None:
            continue
        try:
            manifest = json.loads(read_file(At(folder.dir_fd, MANIFEST, folder.path / MANIFEST), 1 << 16) or b"")
        except (ApplyError, ValueError, RecursionError):  # a manifest nested thousands deep is not ours
            continue
        if isinstance(manifest, dict) and manifest.get("state", "complete") == state:
            found.append(BackupSet(folder, manifest))
    return found


def backup_sets(home: Path | HomeDir) -> list[Path]:
    """Complete backup sets, oldest first (`<stamp>`, `<stamp>-2`, … `<stamp>-10` in that order)."""
    if not isinstance(home, HomeDir):
        if not os.path.isdir(home):
            return []
        with HomeDir(home) as opened:
            return backup_sets(opened)
    root = _root(home, create=False)
    return [] if root is None else [s.path for s in _sets(home, root)]


def complete_sets(home: HomeDir, state: str = "complete") -> list[BackupSet]:
    """The home's sets in `state` ("applying": an interrupted run's open journal), oldest first."""
    root = _root(home, create=False)
    return _sets(home, root, state) if root is not None else []


def latest_set(home: HomeDir) -> BackupSet | None:
    sets = complete_sets(home)
    return sets[-1] if sets else None


def _age(name: str) -> tuple[str, int]:
    """Sort key of a set named `<YYYYmmdd-HHMMSS>[-N]`."""
    counter = name[16:]
    return name[:15], int(counter) if counter.isdigit() else 1


def checked_files(backup: BackupSet) -> dict[str, FileEntry]:
    """The manifest's files, refused as a whole unless every entry is what make_backup writes."""
    files = backup.manifest.get("files")
    bad = None if isinstance(files, dict) else "no file list"
    for name, entry in files.items() if isinstance(files, dict) else ():
        mode = entry.get("mode") if isinstance(entry, dict) else None
        if name not in KNOWN:
            bad = f"it names {name!r}; hermes-wizard backs up only .env, config.yaml and gateway.json"
        elif not isinstance(entry, dict) or not isinstance(entry.get("existed"), bool):
            bad = f"the entry of {name} is malformed"
        elif entry["existed"] and not (type(mode) is int and 0 <= mode <= 0o777):
            bad = f"the mode of {name} is {mode!r}, not plain permission bits"
    if bad:
        raise ApplyError(f"backup {backup.path} was not written by hermes-wizard ({bad}); nothing was restored")
    assert isinstance(files, dict)  # else `bad` says "no file list"
    return files


def restore_files(home: HomeDir, backup: BackupSet, names: Iterable[str], ops: FileOps,
                  instead: Mapping[str, bytes] | None = None) -> list[str]:
    """Put `names` back from `backup` (`instead`: name -> bytes to put back in place of the copy)."""
    files = checked_files(backup)
    restored = []
    for name in names:
        entry = files.get(name)
        if entry is None:
            continue
        target = home.place(name)
        if entry["existed"]:
            data = (instead or {}).get(name)
            if data is None:
                data = read_file(backup.entry(name))
                if data is None:
                    raise ApplyError(f"backup {backup.path} has no copy of {name}; nothing more was restored")
            # A set this run made holds the modes it saw itself; one read from disk is the owner's to forge.
            mode = entry["mode"] if backup.root is not None else restored_mode(name, entry["mode"], _mode(home, name))
            write_atomic(target, data, ops, mode=mode, owner=home)
        elif look(home, name)[0] is not None:
            ops.unlink(target)
            ops.fsync_dir(target)
        restored.append(name)
    return restored


def restored_mode(name: str, journalled: int, now: int | None) -> int:
    """The mode a restore gives `name`: the journal's, but never looser than the file has now (`now`;
    a new file counts as having the writer's default, 0600 for secrets) nor than 0600 for a secrets
    file.  The journal is the home owner's to forge: a restore by root must not make their `.env`
    world-writable (0777 in the manifest), it may only take permissions away."""
    if now is None:
        now = 0o600 if name in SECRET_FILES else 0o644
    mode = journalled & now
    return mode & 0o600 if name in SECRET_FILES else mode


def recover(home: HomeDir) -> str | None:
    """Under the lock: roll back a set whose journal is open, prune folders without a manifest.
    Returns one line for the user when something was rolled back."""
    for name in KNOWN:  # temp files of a killed writer
        try:
            clean_stale_tmp([home.place(name)])
        except ApplyError:
            pass
    root = _root(home, create=False)
    if root is None:
        return None
    for name in os.listdir(root.dir_fd):
        folder = home.opendir(At(root.dir_fd, name, root.path / name))
        if folder is not None and _manifest_bytes(folder) is None:
            _remove_folder(root.dir_fd, name)
    lines = []
    for backup in _sets(home, root, state="applying"):
        files, new = checked_files(backup), backup.manifest.get("new")
        new = new if isinstance(new, dict) else {}  # a forged "new" is no digest: only the backup's own counts
        back, left = [], []
        for name, entry in files.items():
            now = look(home, name)[0]
            old = digest(read_file(backup.entry(name))) if entry["existed"] else None
            if now not in (old, new.get(name, old)):
                left.append(name)
            elif now != old or (old is not None and _mode(home, name) != entry["mode"]):
                back += restore_files(home, backup, [name], FileOps())
        said = _put_back_service(home, backup) + _put_back_keyring(home, backup)
        _remove_folder(root.dir_fd, backup.path.name)
        lines.append(f"An interrupted run ({backup.path.name}) was rolled back: {', '.join(back) or 'nothing'} "
                     "as before it" + (f"; {', '.join(left)} changed since and left as it is" if left else "")
                     + "".join(f" {line}" for line in said) + ".")
    return " ".join(lines) or None


def _put_back_service(home: HomeDir, backup: BackupSet) -> list[str]:
    """The drop-ins an interrupted run may have written, taken back out (nothing to do for most sets)."""
    if not backup.manifest.get("service"):
        return []

    return put_back(home.path, backup.manifest["service"], "before", Runner())[0]


def _put_back_keyring(home: HomeDir, backup: BackupSet) -> list[str]:
    """Entries an interrupted run stored, removed again (its files are back: `.env` holds the secrets)."""
    if not backup.manifest.get("keyring"):
        return []

    return undo_journal(home.path, backup.manifest["keyring"], {}, "after")


def _mode(home: HomeDir, name: str) -> int | None:
    _, st = read_with_stat(home.place(name))
    return None if st is None else stat.S_IMODE(st.st_mode)


def _manifest_bytes(folder: At) -> bytes | None:
    try:
        return read_file(At(folder.dir_fd, MANIFEST, folder.path / MANIFEST), 1 << 16)
    except ApplyError:
        return None


def recover_home(path: Path) -> str | None:
    """`recover` for a home given by path, under its lock (doctor --fix, before it plans)."""
    if not os.path.isdir(Path(path) / BACKUP_DIR):
        return None  # nothing was ever applied here: nothing to recover, and no lock file to create
    with HomeDir(path) as home, Lock(home):
        return recover(home)
