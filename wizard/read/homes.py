"""Which Hermes home(s) to look at: `--home`, else `$HERMES_HOME`, else `~/.hermes`;
`--profile NAME` picks `<root>/profiles/NAME`; `--all-profiles` is the root plus
every profile directory.

Profile names follow Hermes (`^[a-z0-9][a-z0-9_-]{0,63}$`); `default` is the root.  A profile is
reached from its root without following a link and must belong to the root's owner
(wizard/core/homeroot.py); one that is not is refused with the reason, never used.
Contract: raises `HomeError` (a usage problem, exit 2) with a message a user can act on.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Mapping
from pathlib import Path

from hermes_wizard.core.homeroot import anchor, open_home

# Compiled on first use (re's cache): only --profile and --all-profiles need it, not a plain check.
PROFILE_NAME = r"^[a-z0-9][a-z0-9_-]{0,63}$"


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
    path = anchor(root, "profiles", name)
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
    A profile is reached from the root without following a link, and belongs to the root's owner
    (wizard/core/homeroot.py): `profiles` linked elsewhere refuses them all."""
    found, refused = [("default", root)], []
    try:
        fd = open_home(anchor(root, "profiles"))
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
        path = anchor(root, "profiles", name)
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
