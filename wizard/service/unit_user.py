"""Whom a unit runs as, and whether that user may execute a file: decided from disk, nothing run.

`check` asks this of an installed gate (HW405): the drop-in turns a hermes-wizard its user cannot execute into
a start, so such a gate guards nothing.  `runnable_by` decides execute permission for that user on the file and
on the interpreter its `#!` line names, and search permission on every folder above both (as written, and where
links lead), as the kernel decides it (wizard/core/owner_access.py).  `foreign_code` says whether running a file
as a user would run code another user controls (a gate for a root unit naming a file in someone's home).
Installing a gate proves it by running it (wizard/service/gate_proof.py).

Contract: never raises; `unit_uid` raises LookupError (a sentence) for a user this system does not know.
"""

from __future__ import annotations

import os
import pwd
import stat
from pathlib import Path

from hermes_wizard.core.owner_access import Reader, acl_of, permits, reader
from hermes_wizard.core.safetext import visible
from hermes_wizard.core.smallfile import read_head
from hermes_wizard.service.common import Unit

READ, SEARCH = 4, 1  # permission bits as owner_access.permits takes them (execute is search on a file)


def unit_uid(unit: Unit) -> int:
    """The uid the unit's processes run as (LookupError: a user this system does not know, or unreadable)."""
    if unit.scope == "system":
        name = unit.user or "root"
        try:
            return (pwd.getpwuid(int(name)) if name.isdigit() else pwd.getpwnam(name)).pw_uid
        except (KeyError, OverflowError, ValueError):
            raise LookupError(f"{unit.name} runs as {visible(name)}, a user this system does not know") from None
    try:
        return os.stat(unit.path.parent).st_uid
    except OSError as exc:
        raise LookupError(f"whose {unit.name} is cannot be read ({exc.strerror})") from None


def runnable_by(uid: int, path: Path) -> str | None:
    """None when `uid` may execute `path` and the interpreter its `#!` names; else why (nothing is run)."""
    who = reader(uid)
    for target, what in ((path, "it"), (_interpreter(path), "its interpreter")):
        if target is None:
            continue
        why = _blocked(who, target)
        if why is not None:
            return f"{what} {why}"
    return None


def _blocked(who: Reader, path: Path) -> str | None:
    """Why `who` cannot execute `path` (as written, and where its links lead), or None."""
    for shown in (path, Path(os.path.realpath(path))):
        for folder in reversed(shown.parents):
            try:
                if who.uid != 0 and not permits(who, os.stat(folder), SEARCH, acl_of(str(folder))):
                    return f"lies under {folder}, which that user may not enter"
            except OSError:
                return f"lies under {folder}, which cannot be read"
    try:
        st = os.stat(path)
    except OSError:
        return "does not exist"
    if who.uid == 0:  # root: any execute bit
        return None if st.st_mode & 0o111 else "is not executable"
    if not permits(who, st, SEARCH | READ, acl_of(str(path))):  # a script is read by its interpreter too
        return "is not executable and readable by that user"
    return None


def foreign_code(uid: int, path: Path) -> str | None:
    """Why running `path` (and the interpreter its `#!` names) as `uid` would run code someone else controls, or
    None: every file, link and folder on the way (as written, and where links lead) must belong to `uid` or root,
    and no folder may be writable by others (a sticky folder of root's, like /tmp, excepted).  A gate run as
    root must never run a file a home's owner can change: that would hand them root at the next start."""
    for target, what in ((path, "it"), (_interpreter(path), "its interpreter")):
        if target is None:
            continue
        for shown in (target, Path(os.path.realpath(target))):
            for part in (shown, *shown.parents):
                try:
                    st = os.lstat(part)
                except OSError:
                    return f"{what} lies under {part}, which cannot be read"
                why = _not_theirs(st, uid)
                if why is not None:
                    return f"{what} lies at {part}, which {why}" if part != shown else f"{what} {why}"
    return None


def _not_theirs(st: os.stat_result, uid: int) -> str | None:
    if st.st_uid not in (0, uid):
        return f"belongs to uid {st.st_uid}"
    if stat.S_ISLNK(st.st_mode):
        return None
    sticky_roots = stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX and st.st_uid == 0
    if st.st_mode & 0o022 and not sticky_roots:
        return "others may write"
    return None


def _interpreter(path: Path) -> Path | None:
    """The absolute interpreter of a `#!` script (a user unit's gate names whatever its owner wrote: read
    without waiting on a FIFO, and only its head)."""
    first = read_head(path, 256).split(b"\n", 1)[0]
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode(errors="replace").split()
    return Path(words[0]) if words and words[0].startswith("/") else None
