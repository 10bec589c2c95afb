"""Apply: the only code that writes a Hermes home.

Order of operations, each a reason for the next:
  1. open the home directory (wizard.homefs: every later call is relative to it, no
     link followed) and take an advisory lock (`<home>/.hermes-wizard.lock`) so two
     wizards never interleave; finish off an apply an earlier run was killed in;
  2. refuse, writing nothing, if any file differs from what the plan was built from;
  3. back up every file about to change into `<home>/.wizard-backups/<timestamp>/`
     (wizard.backups; its manifest is the journal: "applying" until every file is done);
  4. write each file atomically: a temp file in the same directory, fsync, the old
     mode and owner, a last look that nobody changed the file since it was read, rename
     over the target, fsync the directory — so every file is at all times wholly old or
     wholly new, and the set is closed ("complete") only after the last one;
  5. if a later file fails, put the earlier ones back from the backup;
  6. re-read what was written and judge the home again: only that verdict is reported.

All system calls that change the home go through `FileOps`, so tests can fail or
kill any single step.  Everything created belongs to the home's owner.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from wizard.homefs import MAX_FILE_BYTES, ApplyError, At, HomeDir, digest, look, read_file
from wizard.plan import ENV, YAML, Plan, env_misreads, planned_contents, planned_env_edits
from wizard.records import factory, record

LOCK_FILE = ".hermes-wizard.lock"
TMP_MARK = ".hw-tmp-"
_ANY = object()  # write_atomic's `expect` when nobody else may have changed the file


@record
class ApplyResult:
    backup: Path | None
    written: list[str] = factory(list)
    report: object = None  # the HomeReport judged from disk after writing


class FileOps:
    """The system calls of an apply, one method per step (tests override them).
    Every path argument is an `At`: a name relative to an open directory."""

    def open_tmp(self, at: At) -> int:
        return os.open(at.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                       dir_fd=at.dir_fd)

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

    def replace(self, src: At, dst: At) -> None:
        os.replace(src.name, dst.name, src_dir_fd=src.dir_fd, dst_dir_fd=dst.dir_fd)

    def fsync_dir(self, at: At) -> None:
        os.fsync(at.dir_fd)

    def chmod(self, at: At, mode: int) -> None:
        """Through the opened file, so a link swapped in for the name is never followed."""
        fd = os.open(at.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=at.dir_fd)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ApplyError(f"{at.path} is no longer a regular file")
            os.fchmod(fd, mode)
        finally:
            os.close(fd)

    def unlink(self, at: At) -> None:
        os.unlink(at.name, dir_fd=at.dir_fd)


class Lock:
    """`<home>/.hermes-wizard.lock`: a regular file of the home's owner, never a link."""

    def __init__(self, home: HomeDir) -> None:
        self.home, self.fd = home, None

    def __enter__(self):
        import fcntl

        path = self.home.path / LOCK_FILE
        try:
            self.fd = os.open(LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                              0o600, dir_fd=self.home.fd)
            if not stat.S_ISREG(os.fstat(self.fd).st_mode):
                raise ApplyError(f"cannot lock {path}: it is not a regular file; remove it; nothing was written")
            self.home.give(self.fd)
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.__exit__()
            raise ApplyError("another hermes-wizard is writing to this home right now; try again when it is done")
        except OSError as exc:
            self.__exit__()
            why = "it is a symbolic link; remove it" if exc.errno == errno.ELOOP else exc.strerror or str(exc)
            raise ApplyError(f"cannot lock {path}: {why}; nothing was written") from None
        except ApplyError:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc_info) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def apply_plan(plan: Plan, *, ops: FileOps | None = None, base_env: dict | None = None,
               reason: str = "hermes-wizard", facts=None) -> ApplyResult:
    from wizard import backups
    from wizard.engine import evaluate

    ops = ops or FileOps()
    with HomeDir(plan.home, create=True) as home, Lock(home):
        backups.recover(home)  # an earlier apply killed half-way is rolled back first (its files then differ)
        names = plan.files()
        seen = {name: look(home, name) for name in (ENV, YAML)}
        current = {name: data for name, (_, data) in seen.items()}
        for name, expected in plan.fingerprints.items():  # every file the plan was judged with
            if seen[name][0] != expected:
                raise ApplyError(f"{name} changed since it was read (an editor, or Hermes itself rewriting it); "
                                 "nothing was written — run the command again to plan from the new contents")
        targets = {name: home.place(name) for name in names}
        contents = planned_contents(plan, current)
        modes = {c.file: int(c.after, 8) for c in plan.changes if c.action == "mode"}
        clean_stale_tmp(targets[name] for name in names)
        try:
            backup = backups.make_backup(home, {name: targets[name] for name in names}, reason,
                                         new={name: digest(contents.get(name, current[name])) for name in names})
        except OSError as exc:
            raise ApplyError(f"could not back up the files ({_os_words(exc)}); nothing was written") from exc
        result = ApplyResult(backup.path)
        done: list[str] = []  # files already replaced (or re-moded): the ones a rollback must put back
        latest: dict[str, bytes] = {}  # a file someone appended to while it was being replaced
        try:
            for name in names:
                if name in contents:
                    write_atomic(targets[name], contents[name], ops, mode=modes.get(name), owner=home,
                                 on_replaced=lambda name=name: done.append(name),
                                 expect=plan.fingerprints.get(name, _ANY), changed=latest.setdefault)
                elif name in modes:
                    done.append(name)
                    ops.chmod(targets[name], modes[name])
        except BaseException as exc:
            try:
                backups.restore_files(home, backup, done, FileOps(), instead=latest)
                backups.close_journal(home, backup)
            except Exception as again:  # the disk that failed the write may fail the rollback too
                raise ApplyError(f"writing failed ({_os_words(exc)}) and putting back {', '.join(done)} failed too "
                                 f"({_os_words(again)}); the originals are in {backup.path}: free the problem, then "
                                 "run `hermes-wizard undo`") from exc
            if not isinstance(exc, Exception):
                raise
            raise ApplyError(_failure_words(exc, backup.path)) from exc
        backups.close_journal(home, backup)
        result.written = done
        for name, data in contents.items():
            written = read_file(targets[name])
            # Bytes equal to the plan are not enough: what counts is what Hermes reads from them.
            misread = env_misreads(written, planned_env_edits(plan)) if name == ENV and written is not None else None
            if written != data or misread:
                raise ApplyError(f"{name} does not read back as planned{f' ({misread})' if misread else ''}; "
                                 f"restore with `hermes-wizard undo` (backup: {backup.path})")
    result.report = evaluate(plan.home, base_env=base_env, facts=facts)
    return result


def _os_words(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        return {errno.ENOSPC: "the disk is full", errno.EROFS: "the file system is read-only",
                errno.EACCES: "permission denied", errno.EPERM: "operation not permitted",
                errno.EISDIR: "a file was replaced by a directory"}.get(exc.errno, exc.strerror or str(exc))
    return str(exc) or type(exc).__name__


def _failure_words(exc: BaseException, backup: Path) -> str:
    if isinstance(exc, ApplyError):
        return f"{exc}; every file was left as it was. The backup of the original files is in {backup}."
    return (f"writing failed ({_os_words(exc)}); every file was left as it was. The backup of the original files "
            f"is in {backup}.")


def write_atomic(at: At | Path, data: bytes, ops: FileOps, mode: int | None = None, on_replaced=None,
                 owner: HomeDir | None = None, expect=_ANY, changed=None) -> None:
    """Replace `at` with `data` so a crash at any point leaves old or new bytes.

    A new file gets `owner`'s owner (the home's).  `expect`: the sha256 the file must
    still have just before the rename (None: absent), else ApplyError "changed since it
    was read"; `changed(name, bytes)` receives what reached the old file after that look
    (an append racing the rename), which the caller puts back.  `on_replaced` is called
    right after the rename, the point from which the file is new."""
    if isinstance(at, Path):  # a file outside any home (the service drop-in): its directory is trusted
        parent = os.open(at.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            return write_atomic(At(parent, at.name, at), data, ops, mode, on_replaced, owner, expect, changed)
        finally:
            os.close(parent)
    try:
        st = os.stat(at.name, dir_fd=at.dir_fd, follow_symlinks=False)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", str(at.path))
        old_mode, uid, gid = stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid
    except FileNotFoundError:
        old_mode = 0o600 if at.name in (ENV, "manifest.json") else 0o644
        uid, gid = (owner.uid, owner.gid) if owner is not None else (None, None)
    tmp = At(at.dir_fd, f".{at.name}{TMP_MARK}{os.getpid()}", at.path.with_name(f".{at.name}{TMP_MARK}{os.getpid()}"))
    fd = ops.open_tmp(tmp)
    held = None  # the old file, kept open across the rename to see a write that lands on it
    try:
        try:
            ops.write(fd, data)
            ops.fsync(fd)
            ops.set_owner_mode(fd, mode if mode is not None else old_mode, uid, gid)
        finally:
            ops.close(fd)
        if expect is not _ANY:
            held, seen = _hold(at)
            if digest(seen) != expect:
                raise ApplyError(f"{at.name} changed since it was read (another program wrote to it); "
                                 "run the command again to plan from the new contents")
        ops.replace(tmp, at)
    except BaseException:
        _close(held)
        try:
            os.unlink(tmp.name, dir_fd=tmp.dir_fd)
        except OSError:
            pass
        raise
    try:
        if on_replaced is not None:
            on_replaced()
        ops.fsync_dir(at)
        if held is not None and digest(last := _read_fd(held)) != expect:
            changed(at.name, last)
            raise ApplyError(f"{at.name} changed since it was read (another program wrote to it while it was "
                             "being replaced); its latest contents were put back")
    finally:
        _close(held)


def _hold(at: At) -> tuple[int | None, bytes | None]:
    try:
        fd = os.open(at.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=at.dir_fd)
    except FileNotFoundError:
        return None, None
    except OSError:
        return None, b"<not a file any more>"
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        return fd, b"<not a file any more>"
    return fd, _read_fd(fd)


def _read_fd(fd: int) -> bytes:
    chunks, offset = [], 0
    while offset <= MAX_FILE_BYTES and (chunk := os.pread(fd, 1 << 20, offset)):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def _close(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)


def clean_stale_tmp(targets) -> None:
    for at in targets:
        try:
            names = os.listdir(at.dir_fd)
        except OSError:
            continue
        for name in names:
            if name.startswith(f".{at.name}{TMP_MARK}"):
                try:
                    os.unlink(name, dir_fd=at.dir_fd)
                except OSError:
                    pass
