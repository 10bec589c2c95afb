"""homeroot: which Hermes home to look at, its profiles, how a home folder is opened, and whose it is.

Which: `--home`, else `$HERMES_HOME`, else `~/.hermes` (`resolve_root`); `--profile NAME` picks
`<root>/profiles/NAME` (`profile_home`); `--all-profiles` is the root plus every profile directory
(`profiles`).  Profile names follow Hermes (`^[a-z0-9][a-z0-9_-]{0,63}$`); `default` is the root.

Root runs hermes-wizard on homes owned by someone else.  Whom it acts for (whose rights it reads with,
whom it runs the home's Hermes as) and where it writes are both decided from one opened folder:

* A home is opened with `O_NOFOLLOW` on its last component: a home that is a symbolic link is refused
  wherever a link could move root's action (see `open_home`).
* A profile (`<root>/profiles/<name>`) is reached from its root one component at a time, each opened
  through its parent's descriptor without following a link, and each must belong to the root's owner.
  `profiles` linked to `/`, to a root-owned folder or into a third user's home is refused with a reason,
  so root never decides "the owner" from a folder the owner pointed it at.  Every profile path this
  module hands out is recorded (`_anchor`); `open_home` then takes that road for it.

Contract: `resolve_root` and `profile_home` raise `HomeError` (a usage problem, exit 2) with a message a
user can act on; `open_home` returns a descriptor (the caller closes it) or raises `OSError` whose
`strerror` says why in words; `profiles`, `list_profiles`, `home_owner` and `foreign_owner` never raise.
"""

from __future__ import annotations

import errno
import functools
import os
import pwd
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# Compiled on first use (re's cache): only --profile and --all-profiles need it, not a plain check.
PROFILE_NAME = r"^[a-z0-9][a-z0-9_-]{0,63}$"
_ANCHORED: dict[str, tuple[str, tuple[str, ...]]] = {}  # profile path -> (its root, the names below it)


class HomeError(Exception):
    """The home or profile asked for does not exist or is not usable."""


def resolve_root(explicit: str | None, environ: Mapping[str, str] | None = None) -> Path:
    environ = os.environ if environ is None else environ
    raw = explicit if explicit is not None else (environ.get("HERMES_HOME") or "").strip()
    root = (Path(raw).expanduser() if raw else Path.home() / ".hermes").absolute()
    try:
        if not root.exists():
            raise HomeError(f"no Hermes home at {root} (use --home PATH or set HERMES_HOME)")
        if not root.is_dir():
            raise HomeError(f"{root} is not a directory; a Hermes home is a directory holding .env and config.yaml")
    except OSError as exc:
        raise HomeError(f"cannot use {root}: {exc.strerror or exc}") from None
    return root


def profile_home(root: Path, name: str) -> Path:
    if name == "default":
        return root
    if not re.match(PROFILE_NAME, name):
        raise HomeError(f"{name!r} is not a valid profile name (lower-case letters, digits, - and _)")
    path = _anchor(root, "profiles", name)
    why = _unusable(path)
    if why == "absent":
        known = ", ".join(n for n, _ in list_profiles(root)) or "none"
        raise HomeError(f"profile {name!r} does not exist under {root / 'profiles'} (profiles: {known})")
    if why:
        raise HomeError(f"profile {name!r} is not used: {why}")
    return path


def list_profiles(root: Path) -> list[tuple[str, Path]]:
    """The root (as `default`) and every usable profile directory, sorted by name."""
    return profiles(root)[0]


def profiles(root: Path) -> tuple[list[tuple[str, Path]], list[str]]:
    """(the root as `default` and every usable profile, sorted by name; why each other profile is not used).
    A profile is reached from the root without following a link, and belongs to the root's owner (see the
    module doc): `profiles` linked elsewhere refuses them all."""
    found, refused = [("default", root)], []
    try:
        fd = open_home(_anchor(root, "profiles"))
    except OSError as exc:
        if exc.errno != errno.ENOENT:
            refused.append(f"{root / 'profiles'}: {exc.strerror or exc}")
        return found, refused
    try:
        names = sorted(os.listdir(fd))
    except OSError:
        names = []
    finally:
        os.close(fd)
    for name in names:
        if not re.match(PROFILE_NAME, name):
            continue
        path = _anchor(root, "profiles", name)
        why = _unusable(path)
        if not why:
            found.append((name, path))
        elif why != "not a directory":
            refused.append(f"profile {name}: {why}")
    return found, refused


def _unusable(path: Path) -> str | None:
    """None for a profile folder `open_home` opens; else why not ("absent", "not a directory", or words)."""
    try:
        os.close(open_home(path))
    except FileNotFoundError:
        return "absent"
    except OSError as exc:
        if exc.errno == errno.ENOTDIR:
            return "not a directory"
        return exc.strerror or str(exc)
    return None


def _anchor(root: Path, *parts: str) -> Path:
    """`root/parts...`, recorded as reached from `root` one component at a time (see the module doc)."""
    path = Path(root, *parts)
    _ANCHORED[str(path)] = (str(root), parts)
    return path

def open_home(path: Path) -> int:
    """The home folder, opened without following a link on its last component; a recorded profile
    without following one on any component below its root, each owned by the root's owner."""
    road = _ANCHORED.get(str(path))
    if road is None:
        return _open_dir(os.open, str(path), path)
    root, parts = road
    fd = _open_dir(os.open, root, Path(root))
    try:
        owner = os.fstat(fd).st_uid
        here = Path(root)
        for part in parts:
            here = here / part
            child = _open_dir(functools.partial(os.open, dir_fd=fd), part, here)
            os.close(fd)
            fd = child
            uid = os.fstat(fd).st_uid
            if uid != owner:
                raise OSError(errno.EPERM, f"{here} belongs to uid {uid}, not to uid {owner} who owns the Hermes "
                                           f"home {root}; a profile is used only when the home's owner owns it")
        return fd
    except BaseException:
        os.close(fd)
        raise


def _open_dir(opener: Callable[[str, int], int], name: str, shown: Path) -> int:
    try:
        return opener(name, DIR_FLAGS)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR) and _is_link(opener, name):
            raise OSError(errno.ELOOP, f"{shown} is a symbolic link; a home and its profiles are never "
                                       "reached through a link") from None
        raise


def _is_link(opener: Callable[[str, int], int], name: str) -> bool:
    try:
        fd = opener(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        return stat.S_ISLNK(os.fstat(fd).st_mode)
    finally:
        os.close(fd)


def home_owner(path: Path) -> int | None:
    """The uid that owns the home folder as `open_home` opens it.  A home that is itself a link (allowed
    for reading): the link's owner, who could point it anywhere, unless root made it (then its target's).
    None when there is no such folder."""
    try:
        fd = open_home(path)
    except OSError as exc:
        if exc.errno != errno.ELOOP or str(path) in _ANCHORED:
            return None
        try:
            link_owner = os.lstat(path).st_uid
            return link_owner if link_owner != 0 else os.stat(path).st_uid
        except OSError:
            return None
    try:
        return os.fstat(fd).st_uid
    finally:
        os.close(fd)


def foreign_owner(path: Path) -> str | None:
    """The login name of the home's owner (as `home_owner` decides it) when that is not this process's user;
    None when it is ours or there is no such folder ("#UID" for a uid without a passwd entry)."""
    owner = home_owner(path)
    if owner is None or owner == os.geteuid():
        return None
    try:
        return pwd.getpwuid(owner).pw_name
    except KeyError:
        return f"#{owner}"
