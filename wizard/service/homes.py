"""Which Hermes home a service's gateway process ends up in.

Hermes decides it in `_apply_profile_override` (hermes_cli/main.py:474-560) before any
import: `--profile X` / `-p X` / `--profile=X` anywhere before `--` selects
`<root>/profiles/X`, where the root is what HERMES_HOME implies
(hermes_constants.get_default_hermes_root: `~/.hermes` when HERMES_HOME lies under it,
the grandparent of a `.../profiles/<name>` path, else HERMES_HOME itself); without a
profile the home is HERMES_HOME, else `~/.hermes` of the account the service runs as.
Contract: pure path arithmetic and file reads; no NSS lookups, nothing imported.
"""

from __future__ import annotations

import os
from pathlib import Path

from hermes_wizard.service.common import read_text


def profile_arg(argv: list[str]) -> str | None:
    """`--profile X`, `--profile=X` or `-p X` anywhere before `--` (Hermes scans broadly)."""
    for index, word in enumerate(argv):
        if word == "--":
            break
        if word in ("--profile", "-p") and index + 1 < len(argv):
            return argv[index + 1]
        if word.startswith("--profile="):
            return word.split("=", 1)[1]
    return None


def hermes_home_for(hermes_home: str | None, profile: str | None, owner_home: Path) -> Path:
    """The home a gateway process ends up in: `--profile` resolves against the Hermes root
    that HERMES_HOME implies (hermes_constants.get_default_hermes_root)."""
    native = owner_home / ".hermes"
    if not profile:
        return Path(hermes_home) if hermes_home else native
    if not hermes_home:
        root = native
    else:
        env_path = Path(hermes_home)
        if os.path.realpath(env_path).startswith(os.path.realpath(native) + os.sep) or \
                os.path.realpath(env_path) == os.path.realpath(native):
            root = native
        elif env_path.parent.name == "profiles":
            root = env_path.parent.parent
        else:
            root = env_path
    return root if profile == "default" else root / "profiles" / profile


def account_home(user: str | None, root: Path) -> str:
    """A system unit's account home, from <root>/etc/passwd (no NSS lookups: file reads only)."""
    if not user or user == "root":
        return "/root"
    text, _ = read_text(root / "etc" / "passwd")
    for line in (text or "").splitlines():
        parts = line.split(":")
        if len(parts) >= 6 and parts[0] == user:
            return parts[5]
    return f"/home/{user}"
