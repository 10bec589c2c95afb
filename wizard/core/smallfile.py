"""A small file of a home, read as it was looked at: never waited on, never read without end.

Every reader of a home's files looks first (stat: absent? a directory? a FIFO? too large?) and says what
it found in its own words.  Between that look and the read, the home's owner can swap the name for a FIFO
(an open() that blocks for ever: root's doctor, or the gate before every start, would hang) or for a link
to /dev/zero (a read without end).  `read_as_stated` opens without blocking and reads only when the file
opened is still the regular file the look described, at most `limit` bytes; otherwise it raises OSError,
which every reader already reports as "cannot read".  Links are followed, as Hermes follows them.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_READ = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


def read_as_stated(path: Path, seen: os.stat_result, limit: int) -> bytes:
    """The bytes of `path`, which `seen` (its stat) described as a regular file; OSError when the file
    opened is another one (or no longer regular), or holds more than `limit` bytes."""
    fd = os.open(path, _READ)
    try:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (seen.st_dev, seen.st_ino):
            raise OSError(errno.ESTALE, "it changed while being read")
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
    metadata whose start is all that is needed (a dist-info's METADATA, entry_points.txt)."""
    try:
        fd = os.open(path, _READ)
    except OSError:
        return b""
    try:
        return os.read(fd, limit) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
    except OSError:
        return b""
    finally:
        os.close(fd)
