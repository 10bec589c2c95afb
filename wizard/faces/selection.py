"""Which homes a command acts on, from its arguments (`--home`, `--profile`, `--all-profiles`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.core.homeroot import HomeError, profile_home, profiles, resolve_root
from hermes_wizard.core.safetext import to_stderr, visible

if TYPE_CHECKING:
    from hermes_wizard.faces.fastargs import CommandArgs


def select_homes(args: CommandArgs) -> list[tuple[str, Path]] | None:
    """The (profile, home) pairs a command acts on; None after printing a usage error."""
    try:
        root = resolve_root(args.home)
        if getattr(args, "all_profiles", False):
            found, refused = profiles(root)
            for why in refused:  # said, never silently dropped: root is never led outside the home
                to_stderr(f"hermes-wizard: not used: {visible(why)}")  # the gate prints outside the guarded streams
            return found
        if args.profile:
            return [(args.profile, profile_home(root, args.profile))]
        return [(profile_name(root), root)]
    except HomeError as exc:
        to_stderr(f"hermes-wizard: {visible(str(exc))}")
        return None


def profile_name(home: Path) -> str:
    return home.name if home.parent.name == "profiles" else "default"
