"""Whether a user may read a file (or pass through a folder), decided as the kernel decides it for that user.

Root judges another user's home for that user, who runs its gateway: what the user could not open, the
gateway cannot open either, so root must not read it and judge by it (a wrong verdict, and a leak).  The
rule reproduced is Linux's own (fs/namei.c `generic_permission`, fs/posix_acl.c `posix_acl_permission`):

* the owner class first: the file's owner gets the owner bits and nothing else — a `.env` of their own at
  mode 000, 0200 or 0040 is unreadable to them, whatever its group or others may do;
* then the group class: the file's group or a named user or group of its POSIX ACL, an ACL's entries
  limited by its mask; a user is in every group the system gives them at login (the primary group and
  every supplementary one, `getgrouplist`: what systemd's `User=`, `login` and `sudo -u` set up);
* then others;
* every folder above the file must grant search (x) the same way.

Not reproduced: capabilities (an unprivileged account has none), LSMs (AppArmor, SELinux), and mount
options such as `noexec`; they can only deny more.

Contract: never raises; an ACL that cannot be read counts as none (the mode bits decide).
"""

from __future__ import annotations

import functools
import os
import pwd
import stat
from pathlib import Path

from hermes_wizard.core.safetext import visible
from hermes_wizard.core.values import Value, value_class

READ, WRITE, SEARCH = 4, 2, 1
_ACL = "system.posix_acl_access"
_USER_OBJ, _USER, _GROUP_OBJ, _GROUP, _MASK, _OTHER = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20


@value_class
class Reader(Value):
    """A user as the kernel sees their process: a uid and every group it is in."""

    uid: int
    groups: frozenset[int]


@functools.lru_cache(maxsize=32)
def reader(uid: int) -> Reader:
    """`uid` with the groups a login gives it; a uid without an account is in no group."""
    try:
        entry = pwd.getpwuid(uid)
        return Reader(uid, frozenset(os.getgrouplist(entry.pw_name, entry.pw_gid)))
    except (KeyError, OSError):
        return Reader(uid, frozenset())


def acl_of(target: int | str) -> bytes | None:
    """The POSIX access ACL of an open file or a path (None: it has none, or it cannot be read)."""
    try:
        return os.getxattr(target, _ACL)
    except OSError:  # ENODATA: none; ENOTSUP: a file system without ACLs
        return None


def permits(who: Reader, st: os.stat_result, want: int, acl: bytes | None = None) -> bool:
    """Whether `who` gets every permission in `want` (READ, WRITE, SEARCH bits) on the file `st` describes."""
    entries = _entries(acl) if acl else None
    if not entries:
        if st.st_uid == who.uid:
            granted = st.st_mode >> 6
        elif st.st_gid in who.groups:
            granted = st.st_mode >> 3
        else:
            granted = st.st_mode
        return granted & want == want
    mask = next((perm for tag, perm, _ in entries if tag == _MASK), 7)
    found = False
    for tag, perm, ident in entries:
        if tag == _USER_OBJ and st.st_uid == who.uid:
            return perm & want == want
        if tag == _USER and ident == who.uid:
            return perm & mask & want == want
        if tag in (_GROUP_OBJ, _GROUP) and (st.st_gid if tag == _GROUP_OBJ else ident) in who.groups:
            found = True
            if perm & want == want:
                return perm & mask & want == want
        if tag == _OTHER:
            return not found and perm & want == want
    return False


def _entries(acl: bytes) -> list[tuple[int, int, int]]:
    """(tag, permissions, id) of each entry of an ACL xattr (version 2: 4-byte header, 8-byte entries)."""
    if len(acl) < 4 or int.from_bytes(acl[:4], "little") != 2:
        return []
    return [(int.from_bytes(acl[i:i + 2], "little"), int.from_bytes(acl[i + 2:i + 4], "little") & 7,
             int.from_bytes(acl[i + 4:i + 8], "little")) for i in range(4, len(acl) - 7, 8)]


def why_unreadable(uid: int, st: os.stat_result, fd: int, whose: str = "the home's owner") -> str | None:
    """Why `uid` (`whose` says who that is) could not open the open file `fd` for reading (None: it could):
    every folder above it first — what lies in one the user may not enter is not described — then the file."""
    who = reader(uid)
    where = real_path(fd)
    if not where.startswith("/"):  # no /proc: where it is cannot be told, so it is not read
        return f"uid {uid}, {whose}, may not read it: where it lies cannot be told"
    for folder in reversed(Path(where).parents):
        try:
            info = os.stat(folder)
        except OSError:
            return f"uid {uid}, {whose}, may not reach it: {visible(str(folder))} cannot be examined"
        if not permits(who, info, SEARCH, acl_of(str(folder))):
            return f"uid {uid}, {whose}, may not enter {visible(str(folder))}"
    if not permits(who, st, READ, acl_of(fd)):
        return (f"uid {uid}, {whose}, may not read {visible(where)}: a file of uid {st.st_uid}, group "
                f"{st.st_gid}, mode {stat.S_IMODE(st.st_mode):04o}")
    return None



def real_path(fd: int) -> str:
    """Where an open file really is ("?" without /proc)."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return "?"
