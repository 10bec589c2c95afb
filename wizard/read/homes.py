"""Which Hermes home(s) to look at: `--home`, else `$HERMES_HOME`, else `~/.hermes`;
`--profile NAME` picks `<root>/profiles/NAME`; `--all-profiles` is the root plus
every profile directory.

Profile names follow Hermes (`^[a-z0-9][a-z0-9_-]{0,63}$`); `default` is the root.
Contract: raises `HomeError` (a usage problem, exit 2) with a message a user can act on.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

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
    path = root / "profiles" / name
    if not path.is_dir():
        known = ", ".join(n for n, _ in list_profiles(root)) or "none"
        raise HomeError(f"profile {name!r} does not exist under {root / 'profiles'} (profiles: {known})")
    return path


def list_profiles(root: Path) -> list[tuple[str, Path]]:
    """The root (as `default`) and every valid profile directory, sorted by name."""
    found = [("default", root)]
    profiles = root / "profiles"
    try:
        entries = sorted(profiles.iterdir()) if profiles.is_dir() else []
    except OSError:
        entries = []
    for entry in entries:
        if re.match(PROFILE_NAME, entry.name) and entry.is_dir():
            found.append((entry.name, entry))
    return found
