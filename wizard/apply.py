"""Apply: the only code that writes a Hermes home.

Order of operations, each a reason for the next:
  1. take an advisory lock (`<home>/.hermes-wizard.lock`) so two wizards never interleave;
  2. refuse, writing nothing, if any file differs from what the plan was built from;
  3. back up every file about to change into `<home>/.wizard-backups/<timestamp>/`
     (directory 0700, files 0600, a manifest with modes; the last 20 sets kept);
  4. write each file atomically: a temp file in the same directory, fsync, the old
     mode and owner, rename over the target, fsync the directory — so every file is
     at all times wholly old or wholly new;
  5. if a later file fails, put the earlier ones back from the backup;
  6. re-read what was written and judge the home again: only that verdict is reported.

All system calls go through `FileOps`, so tests can fail or kill any single step.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import time
from wizard.records import factory, record
from pathlib import Path

from wizard.plan import ENV, Plan, env_misreads, fingerprint, planned_contents, planned_env_edits, read_bytes

BACKUP_DIR = ".wizard-backups"
KEEP_BACKUPS = 20
LOCK_FILE = ".hermes-wizard.lock"
TMP_MARK = ".hw-tmp-"


class ApplyError(Exception):
    """Nothing (or nothing lasting) was written; the message says what to do."""


@record
class ApplyResult:
    backup: Path | None
    written: list[str] = factory(list)
    report: object = None  # the HomeReport judged from disk after writing


class FileOps:
    """The system calls of an apply, one method per step (tests override them)."""

    def open_tmp(self, path: Path) -> int:
        return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)

    def write(self, fd: int, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]

    def fsync(self, fd: int) -> None:
        os.fsync(fd)

    def close(self, fd: int) -> None:
        os.close(fd)

    def set_owner_mode(self, fd: int, mode: int, uid: int | None, gid: int | None) -> None:
        if uid is not None and (uid, gid) != (os.geteuid(), os.getegid()):
            try:
                os.fchown(fd, uid, gid if gid is not None else -1)
            except PermissionError:
                pass  # not root: the file keeps our ownership, as any editor would
        os.fchmod(fd, mode)

    def replace(self, src: Path, dst: Path) -> None:
        os.replace(src, dst)

    def fsync_dir(self, path: Path) -> None:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def chmod(self, path: Path, mode: int) -> None:
        os.chmod(path, mode)

    def unlink(self, path: Path) -> None:
        os.unlink(path)


class _Lock:
    def __init__(self, home: Path) -> None:
        self.path = home / LOCK_FILE
        self.fd: int | None = None

    def __enter__(self):
        import fcntl

        try:
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ApplyError("another hermes-wizard is writing to this home right now; try again when it is done")
        except OSError as exc:
            raise ApplyError(f"cannot lock {self.path}: {exc.strerror or exc}; nothing was written") from None
        return self

    def __exit__(self, *exc_info) -> None:
        if self.fd is not None:
            os.close(self.fd)


def target_of(home: Path, name: str) -> Path:
    """Where writing `name` really lands: a symlinked `.env` is written through,
    but only when the link and its target have the same owner."""
    path = home / name
    if not path.is_symlink():
        return path
    target = Path(os.path.realpath(path))
    try:
        if os.lstat(path).st_uid != os.stat(target).st_uid:
            raise ApplyError(f"{name} is a symlink to {target}, owned by another user; refusing to write through it")
    except FileNotFoundError:
        raise ApplyError(f"{name} is a symlink to {target}, which does not exist; fix the link first") from None
    return target


def apply_plan(plan: Plan, *, ops: FileOps | None = None, base_env: dict | None = None,
               reason: str = "hermes-wizard", facts=None) -> ApplyResult:
    from wizard.engine import evaluate

    ops = ops or FileOps()
    home = plan.home
    home.mkdir(mode=0o700, parents=True, exist_ok=True)  # first run: the home is created on confirmation
    with _Lock(home):
        names = plan.files()
        for name, expected in plan.fingerprints.items():  # every file the plan was judged with
            if fingerprint(home / name) != expected:
                raise ApplyError(f"{name} changed since it was read (an editor, or Hermes itself rewriting it); "
                                 "nothing was written — run the command again to plan from the new contents")
        current = {name: read_bytes(home / name) for name in (ENV, "config.yaml")}
        contents = planned_contents(plan, current)
        modes = {c.file: int(c.after, 8) for c in plan.changes if c.action == "mode"}
        targets = {name: target_of(home, name) for name in names}
        _clean_stale_tmp(targets.values())
        try:
            backup = make_backup(home, {name: targets[name] for name in names}, reason)
        except OSError as exc:
            raise ApplyError(f"could not back up the files ({_os_words(exc)}); nothing was written") from exc
        result = ApplyResult(backup)
        done: list[str] = []  # files already replaced (or re-moded): the ones a rollback must put back
        try:
            for name in names:
                if name in contents:
                    write_atomic(targets[name], contents[name], ops, mode=modes.get(name),
                                 on_replaced=lambda name=name: done.append(name))
                elif name in modes:
                    done.append(name)
                    ops.chmod(targets[name], modes[name])
        except BaseException as exc:
            try:
                _roll_back(done, backup)
            except Exception as again:  # the disk that failed the write may fail the rollback too
                raise ApplyError(f"writing failed ({_os_words(exc)}) and putting back {', '.join(done)} failed too "
                                 f"({_os_words(again)}); the originals are in {backup}: free the problem, then run "
                                 "`hermes-wizard undo`") from exc
            if not isinstance(exc, Exception):
                raise
            raise ApplyError(_failure_words(exc, backup)) from exc
        result.written = done
        for name, data in contents.items():
            written = read_bytes(targets[name])
            # Bytes equal to the plan are not enough: what counts is what Hermes reads from them.
            misread = env_misreads(written, planned_env_edits(plan)) if name == ENV and written is not None else None
            if written != data or misread:
                raise ApplyError(f"{name} does not read back as planned{f' ({misread})' if misread else ''}; "
                                 f"restore with `hermes-wizard undo` (backup: {backup})")
        result.report = evaluate(home, base_env=base_env, facts=facts)
        return result


def _os_words(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        return {errno.ENOSPC: "the disk is full", errno.EROFS: "the file system is read-only",
                errno.EACCES: "permission denied", errno.EPERM: "operation not permitted",
                errno.EISDIR: "a file was replaced by a directory"}.get(exc.errno, exc.strerror or str(exc))
    return str(exc) or type(exc).__name__


def _failure_words(exc: BaseException, backup: Path) -> str:
    return (f"writing failed ({_os_words(exc)}); every file was left as it was. The backup of the original files "
            f"is in {backup}.")


def write_atomic(path: Path, data: bytes, ops: FileOps, mode: int | None = None, on_replaced=None) -> None:
    """Replace `path` with `data` so a crash at any point leaves old or new bytes.
    `on_replaced` is called right after the rename, the point from which `path` is new."""
    try:
        st = path.stat()
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", str(path))
        old_mode, uid, gid = stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid
    except FileNotFoundError:
        old_mode, uid, gid = (0o600 if path.name == ENV else 0o644), None, None
    tmp = path.with_name(f".{path.name}{TMP_MARK}{os.getpid()}")
    fd = ops.open_tmp(tmp)
    try:
        try:
            ops.write(fd, data)
            ops.fsync(fd)
            ops.set_owner_mode(fd, mode if mode is not None else old_mode, uid, gid)
        finally:
            ops.close(fd)
        ops.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if on_replaced is not None:
        on_replaced()
    ops.fsync_dir(path.parent)


def _clean_stale_tmp(targets) -> None:
    for target in targets:
        for leftover in target.parent.glob(f".{target.name}{TMP_MARK}*"):
            try:
                leftover.unlink()
            except OSError:
                pass


def make_backup(home: Path, targets: dict[str, Path], reason: str) -> Path:
    root = home / BACKUP_DIR
    root.mkdir(mode=0o700, exist_ok=True)
    os.chmod(root, 0o700)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    # Within one second, count past every set of that second (pruned ones included, so a
    # new set never reuses an older set's name and sorts before it).
    taken = [_age(p)[1] for p in root.iterdir() if p.name[:15] == stamp]
    folder = root / (f"{stamp}-{max(taken) + 1}" if taken else stamp)
    folder.mkdir(mode=0o700)
    manifest = {"created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "reason": reason, "files": {}}
    try:
        for name, target in targets.items():
            data = read_bytes(target)
            entry = {"existed": data is not None}
            if data is not None:
                st = target.stat()
                entry.update(mode=stat.S_IMODE(st.st_mode), uid=st.st_uid, gid=st.st_gid)
                write_atomic(folder / name, data, FileOps(), mode=0o600)
            manifest["files"][name] = entry
        # The manifest goes last: a set without one is incomplete and never used.
        write_atomic(folder / "manifest.json", json.dumps(manifest, indent=2).encode(), FileOps(), mode=0o600)
        FileOps().fsync_dir(root)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    _prune(root)
    return folder


def _prune(root: Path) -> None:
    sets = backup_sets(root.parent)
    for old in sets[:-KEEP_BACKUPS]:
        shutil.rmtree(old, ignore_errors=True)


def backup_sets(home: Path) -> list[Path]:
    """Complete backup sets, oldest first (`<stamp>`, `<stamp>-2`, … `<stamp>-10` in that order)."""
    root = home / BACKUP_DIR
    if not root.is_dir():
        return []

    return sorted((p for p in root.iterdir() if (p / "manifest.json").is_file()), key=_age)


def _age(path: Path) -> tuple[str, int]:
    """Sort key of a set named `<YYYYmmdd-HHMMSS>[-N]`."""
    counter = path.name[16:]
    return path.name[:15], int(counter) if counter.isdigit() else 1


def restore_files(home: Path, folder: Path, names, ops: FileOps) -> list[str]:
    manifest = json.loads((folder / "manifest.json").read_text())
    restored = []
    for name in names:
        entry = manifest["files"].get(name)
        if entry is None:
            continue
        target = target_of(home, name)
        if entry["existed"]:
            write_atomic(target, (folder / name).read_bytes(), ops, mode=entry.get("mode"))
        elif target.exists():
            ops.unlink(target)
            ops.fsync_dir(target.parent)
        restored.append(name)
    return restored


def _roll_back(done: list[str], backup: Path) -> None:
    if done:
        restore_files(backup.parent.parent, backup, done, FileOps())
