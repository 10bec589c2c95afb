"""Atomic file operations inside a home: the one way anything is written.

`write_atomic` replaces a file so that a crash at any point leaves the old or the new
bytes (temp file in the same directory, fsync, mode and owner, a last look that nobody
changed the file, rename, fsync of the directory).  `Lock` is the advisory lock two
wizards take before writing a home.  Every system call that changes a file goes through
`FileOps`, so tests can fail or kill any single step.

Used by apply and backups (wizard/write/) and by the service drop-in writer.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.core.homefs import MAX_FILE_BYTES, ApplyError, At, HomeDir, digest

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

LOCK_FILE = ".hermes-wizard.lock"
_WRITES_BEGAN = [False]  # this process took a home's lock or began an apply: Ctrl+C may have left a change


def begin_writing() -> None:
    _WRITES_BEGAN[0] = True


def writes_began() -> bool:
    """Whether anything may have been written by this process (the command line's Ctrl+C message)."""
    return _WRITES_BEGAN[0]
TMP_MARK = ".hw-tmp-"
_ANY = object()  # write_atomic's `expect` when nobody else may have changed the file


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
    """`<home>/.hermes-wizard.lock`: a regular file of the home's owner, never a link, removed on release.

    Removed only by its holder, only while still holding it, and only when the name still is the file
    locked (same device and inode; the name is never followed).  A waiter that opened the file just before
    the holder removed it locks an unlinked inode: so after locking, the name must still be the file
    locked, else the lock is dropped and taken again on whatever the name is now."""

    TRIES = 50  # each lost race means another run took the lock in between: a handful at most

    def __init__(self, home: HomeDir) -> None:
        self.home = home
        self.fd: int | None = None
        self.held = False

    def __enter__(self) -> Lock:
        path = self.home.path / LOCK_FILE
        for _ in range(self.TRIES):
            try:
                self.fd = os.open(LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                                  0o600, dir_fd=self.home.fd)
                if not stat.S_ISREG(os.fstat(self.fd).st_mode):
                    raise ApplyError(f"cannot lock {path}: it is not a regular file; remove it; nothing was written")
                self.home.give(self.fd)
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                self.__exit__()
                raise ApplyError("another hermes-wizard is writing to this home right now; try again when it is "
                                 "done") from None
            except OSError as exc:
                self.__exit__()
                why = "it is a symbolic link; remove it" if exc.errno == errno.ELOOP else exc.strerror or str(exc)
                raise ApplyError(f"cannot lock {path}: {why}; nothing was written") from None
            except ApplyError:
                self.__exit__()
                raise
            if self._still_named():
                self.held = True
                begin_writing()
                return self
            self.__exit__()  # a holder released (and removed) it between our open and our lock: again
        raise ApplyError(f"cannot lock {path}: it keeps being replaced; nothing was written")

    def _still_named(self) -> bool:
        """Whether the lock file's name in the home is the very file this lock holds."""
        assert self.fd is not None
        try:
            named = os.stat(LOCK_FILE, dir_fd=self.home.fd, follow_symlinks=False)
        except FileNotFoundError:
            return False
        held = os.fstat(self.fd)
        return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)

    def __exit__(self, *exc_info: object) -> None:
        if self.fd is None:
            return
        try:
            if self.held and self._still_named():  # remove it while still holding it: no waiter can have it
                os.unlink(LOCK_FILE, dir_fd=self.home.fd)
        except OSError:
            pass  # left behind, it is harmless: the next run locks it and removes it
        finally:
            os.close(self.fd)
            self.fd, self.held = None, False


def write_atomic(at: At | Path, data: bytes, ops: FileOps, mode: int | None = None,
                 on_replaced: Callable[[], object] | None = None, owner: HomeDir | None = None,
                 expect: str | None | object = _ANY, changed: Callable[[str, bytes], object] | None = None) -> None:
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
    uid: int | None  # None: a new file outside any home keeps the writer's owner
    gid: int | None
    try:
        st = os.stat(at.name, dir_fd=at.dir_fd, follow_symlinks=False)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", str(at.path))
        old_mode, uid, gid = stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid
    except FileNotFoundError:
        old_mode = 0o600 if at.name in (".env", "manifest.json") else 0o644  # secrets stay private
        uid, gid = (owner.uid, owner.gid) if owner is not None else (None, None)
    tmp = At(at.dir_fd, f".{at.name}{TMP_MARK}{os.getpid()}", at.path.with_name(f".{at.name}{TMP_MARK}{os.getpid()}"))
    fd = ops.open_tmp(tmp)
    held: int | None = None  # the old file, kept open across the rename to see a write that lands on it
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
            assert changed is not None, "write_atomic: `expect` needs `changed`, or the racing bytes are lost"
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


def clean_stale_tmp(targets: Iterable[At]) -> None:
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
