"""An answers file read only when nobody but the caller (or root) could have written it, like sudoers.

An answers file decides what is written into a home — as root, into someone else's — so it is trusted
the way sudo trusts sudoers and sshd trusts authorized_keys:

* the file belongs to the caller (the effective uid) or to root, and neither its group nor others may
  write it;
* every folder above it, from `/` down, belongs to the caller or to root, and neither its group nor
  others may write in it — unless it has the sticky bit (`/tmp`): there only an entry's owner may
  rename or remove it, and the file itself is checked to be the caller's or root's.
* "its group may write" does not count when that group is the caller's private group (no other user
  is in it, nor has it as their primary group), as Debian's sshd allows: a user whose umask is 002
  (Ubuntu's default) writes 0664 files, and nobody else can write them.

The path is walked as given, one component at a time from `/` (a relative one from the working folder's
real path), each opened through its parent's descriptor without following a link (`O_NOFOLLOW`), so what is
checked is what is read.  A component that is a symbolic link is judged as the link — whoever owns it may
point it elsewhere, so it must be the caller's or root's, in a folder already judged — and then as its
target, walked the same way (at most 40 links, as the kernel allows).  Resolving links first would judge
only where they lead: an answers file reached through a user's link (`/home/mallory/answers.yaml` ->
a root-owned file) was trusted, though Mallory chooses which file root applies.  A name swapped after
the look makes the read fail, never read elsewhere.  A FIFO or device is never opened for a blocking read.
ACLs are not read (say `getfacl` if unsure).

Contract: `read_trusted(path, limit)` returns the file's bytes (at most `limit` + 1), or one sentence
saying why not; it never raises for anything found on disk.
"""

from __future__ import annotations

import errno
import grp
import os
import pwd
import stat

from hermes_wizard.core.safetext import visible

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH
_MAX_LINKS = 40  # as the kernel: more is a loop
FIX = ("an answers file decides what is written into a home, so it and every folder above it must be writable "
       "only by you or root (e.g. `chmod go-w`, or copy it into a folder of yours); nothing was written")


def read_trusted(path: str, limit: int) -> bytes | str:
    """The bytes of the answers file `path` (at most `limit` + 1), or why it is not read."""
    shown = visible(path)
    fds: list[int] = []
    try:
        start = path if path.startswith("/") else os.path.join(os.getcwd(), path)  # getcwd: no link in it
        found = _walk(start, os.geteuid(), fds)
        if isinstance(found, str):
            return f"{shown}: {found}"
        chunks, size = [], 0
        while size <= limit and (chunk := os.read(found, 65536)):
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    except (OSError, ValueError) as exc:
        if getattr(exc, "errno", None) in (errno.ELOOP, errno.ENOTDIR):
            return f"{shown}: cannot read the answers file (it changed while being read: a link appeared)"
        return f"{shown}: cannot read the answers file ({getattr(exc, 'strerror', None) or exc})"
    finally:
        for fd in fds:
            os.close(fd)


def _walk(start: str, caller: int, fds: list[int]) -> int | str:
    """The answers file's descriptor, reached from `/` along `start` as given (see the module doc), or why not.
    Every descriptor opened is left in `fds` for the caller to close."""
    fds.append(os.open("/", _DIR))
    where = ["/"]
    names = [name for name in start.split("/") if name not in ("", ".")]
    names.reverse()  # a stack: the next component last
    hops = 0
    while names:
        name = names.pop()
        if name == "..":
            if len(fds) > 1:
                os.close(fds.pop())
                where.pop()
            continue
        why = _unsafe_folder(os.fstat(fds[-1]), caller)
        if why:
            return f"refused: {visible(where[-1])} {why}; {FIX}"
        here = os.path.join(where[-1], name)
        seen = os.stat(name, dir_fd=fds[-1], follow_symlinks=False)
        if stat.S_ISLNK(seen.st_mode):
            if seen.st_uid not in (0, caller):
                return (f"refused: {visible(here)} is a symbolic link of uid {seen.st_uid}, who could point it at "
                        f"another file; {FIX}")
            hops += 1
            if hops > _MAX_LINKS:
                return "cannot read the answers file (too many levels of symbolic links)"
            target = os.readlink(name, dir_fd=fds[-1])
            if target.startswith("/"):
                while len(fds) > 1:
                    os.close(fds.pop())
                    where.pop()
            names.extend(reversed([part for part in target.split("/") if part not in ("", ".")]))
            continue
        if names:  # a folder on the way
            fds.append(os.open(name, _DIR, dir_fd=fds[-1]))
            where.append(here)
            continue
        fd = os.open(name, _FILE, dir_fd=fds[-1])
        fds.append(fd)
        opened = os.fstat(fd)
        if (opened.st_dev, opened.st_ino) != (seen.st_dev, seen.st_ino):
            return "cannot read the answers file (it changed while being read)"
        if not stat.S_ISREG(opened.st_mode):
            return "not a regular file; an answers file is a YAML file (or `-` for stdin)"
        why = _unsafe_file(opened, caller)
        if why:
            return f"refused: the answers file {why}; {FIX}"
        return fd
    return "not a regular file; an answers file is a YAML file (or `-` for stdin)"


def _others_write(st: os.stat_result, caller: int) -> int:
    """The write bits of `st` that let someone other than the caller write (group: unless private)."""
    bits = st.st_mode & _OTHERS_WRITE
    if bits & stat.S_IWGRP and _private_group(st.st_gid, caller):
        bits &= ~stat.S_IWGRP
    return bits


def _private_group(gid: int, caller: int) -> bool:
    """Whether nobody but `caller` belongs to group `gid` (as a member or by their primary group)."""
    try:
        members, name = grp.getgrgid(gid).gr_mem, pwd.getpwuid(caller).pw_name
    except KeyError:
        return False  # a group or caller without an entry: who is in it cannot be told
    return all(member == name for member in members) and \
        all(user.pw_uid == caller for user in pwd.getpwall() if user.pw_gid == gid)


def _unsafe_folder(st: os.stat_result, caller: int) -> str | None:
    """Why someone other than the caller or root could change what this folder holds (None: nobody)."""
    if st.st_uid not in (0, caller):
        return f"belongs to uid {st.st_uid}, who could replace the file in it"
    if _others_write(st, caller) and not st.st_mode & stat.S_ISVTX:
        who = "every user" if st.st_mode & stat.S_IWOTH else f"group {st.st_gid}"
        return f"is writable by {who} (mode {stat.S_IMODE(st.st_mode):04o}, no sticky bit), who could replace " \
               "the file in it"
    return None


def _unsafe_file(st: os.stat_result, caller: int) -> str | None:
    """Why someone other than the caller or root could have written this file (None: nobody)."""
    if st.st_uid not in (0, caller):
        return f"belongs to uid {st.st_uid}, not to you (uid {caller}) or root"
    if _others_write(st, caller):
        who = "every user" if st.st_mode & stat.S_IWOTH else f"group {st.st_gid}"
        return f"is writable by {who} (mode {stat.S_IMODE(st.st_mode):04o})"
    return None
