"""A small file of a home, read as it was looked at: never waited on, never read without end.

Every reader of a home's files looks first (stat: absent? a directory? a FIFO? too large?) and says what
it found in its own words.  Between that look and the read, the home's owner can swap the name for a FIFO
(an open() that blocks for ever: root's doctor, or the gate before every start, would hang) or for a link
to /dev/zero (a read without end).  `read_as_stated` opens without blocking and reads only when the file
opened is still the regular file the look described, at most `limit` bytes; otherwise it raises OSError,
which every reader already reports as "cannot read".  Links are followed, as Hermes follows them.

Root judging another user's home judges it for that user, who runs its gateway: inside
`reading_for(uid)`, a file that uid could not read "cannot be read", as Hermes would find — a `.env` linked
to a root-only file, and just as much the user's own `.env` at mode 000 or 0200, or one in a group the user
is not in — never read by root and shown (it would be a wrong verdict, and a leak).  Who may read what is
decided as the kernel decides it for that user: wizard/core/owner_access.py.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from hermes_wizard.core.owner_access import real_path as real_path  # re-exported
from hermes_wizard.core.owner_access import why_unreadable

_READ = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_FOR_USER: list[int] = []  # the uid reads are judged for (root judging another user's home), innermost last


@contextlib.contextmanager
def reading_for(uid: int | None) -> Iterator[None]:
    """Within: `read_as_stated` reads only what `uid` could read.  Active only when this process is root
    and `uid` is another user (otherwise the kernel already decides, as for the gateway itself)."""
    active = uid is not None and uid != 0 and os.geteuid() == 0
    if active and uid is not None:
        _FOR_USER.append(uid)
    try:
        yield
    finally:
        if active:
            _FOR_USER.pop()


def read_as_stated(path: Path, seen: os.stat_result, limit: int) -> bytes:
    """The bytes of `path`, which `seen` (its stat) described as a regular file; OSError when the file
    opened is another one (or no longer regular), or holds more than `limit` bytes."""
    fd = os.open(path, _READ)
    try:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (seen.st_dev, seen.st_ino):
            raise OSError(errno.ESTALE, "it changed while being read")
        if _FOR_USER:
            _check_readable_for(_FOR_USER[-1], now, fd)
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(limit + 1 - size, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise OSError(errno.EFBIG, f"it is larger than {limit} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_regular(path: Path, limit: int) -> bytes | None:
    """A regular file's bytes (at most `limit`); None when absent; OSError when it is anything else."""
    try:
        seen = path.stat()
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(seen.st_mode):
        raise OSError(errno.EINVAL, "it is not a regular file")
    return read_as_stated(path, seen, limit)


def read_head(path: Path, limit: int) -> bytes:
    """The first `limit` bytes of a regular file (b"" when absent, unreadable or anything else): for
    metadata whose start is all that is needed (a dist-info's METADATA, entry_points.txt).  Inside
    `reading_for(uid)`, a file that uid could not read is unreadable here too."""
    try:
        fd = os.open(path, _READ)
    except OSError:
        return b""
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (_FOR_USER and unreadable_for(_FOR_USER[-1], st, fd) is not None):
            return b""
        return os.read(fd, limit)
    except OSError:
        return b""
    finally:
        os.close(fd)


def _check_readable_for(uid: int, st: os.stat_result, fd: int) -> None:
    why = unreadable_for(uid, st, fd)
    if why is not None:
        raise PermissionError(errno.EACCES, why)


def unreadable_for(uid: int, st: os.stat_result, fd: int, whose: str = "the home's owner") -> str | None:
    """Why `uid` (`whose` says who that is) could not read the open file `fd` (None: it could), decided as
    the kernel decides it for that user — their own file included (wizard/core/owner_access.py)."""
    return why_unreadable(uid, st, fd, whose)
