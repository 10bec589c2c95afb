"""`check`'s flags read without argparse, for the two commands that run often: `check` (before a start,
in scripts, in a fleet) and `check --gate` (a service's `ExecCondition=`, before every start).

argparse costs a few milliseconds to import and build, more than a whole judgement of a home. This
reader accepts only the plain spellings of `check`'s own flags and returns None for anything else —
help, abbreviations, a repeated or unknown flag, a missing value, exclusive flags together, an unknown
`--format` or `--target` — so the full parser (wizard/faces/cli.py) decides those cases and prints
its usual message. Its result has the attributes the full parser would give `check`.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING

from hermes_wizard.hermes.versions import is_modelled

if TYPE_CHECKING:
    import argparse
    from typing import TypeAlias

    # What a command runs with: the full parser's namespace, or this reader's (the same attributes, for `check`).
    CommandArgs: TypeAlias = argparse.Namespace | SimpleNamespace

_VALUED = {"--home": "home", "--profile": "profile", "--hermes-python": "hermes_python",
           "--hermes-version": "hermes_version", "--target": "target", "--unit": "unit", "--format": "format"}
_SWITCHES = {"--gate": "gate", "--all-profiles": "all_profiles", "--plain": "plain", "--inherit-env": "inherit_env",
             "--verify": "verify", "--service": "service"}
_EXCLUSIVE = (("profile", "all_profiles"), ("hermes_version", "target"))
# The gate reads only these: any other flag beside --gate is for the full parser to judge.
GATE_FLAGS = frozenset({"--gate", "--home", "--profile", "--hermes-python", "--hermes-version", "--target"})


def check_args(argv: list[str], allowed: frozenset[str] | None = None) -> SimpleNamespace | None:
    """The arguments of `check` (the words after it), or None when the full parser must read them.
    `allowed` narrows the flags accepted (the gate's entry passes GATE_FLAGS)."""
    args = SimpleNamespace(command="check", version=False, home=None, profile=None, hermes_python=None,
                           hermes_version=None, target=None, unit=None, format="text", **dict.fromkeys(
                               _SWITCHES.values(), False))
    seen: set[str] = set()
    words = iter(argv)
    for word in words:
        name, eq, value = word.partition("=")
        if name in seen or (allowed is not None and name not in allowed):
            return None
        seen.add(name)
        if name in _SWITCHES and not eq:
            setattr(args, _SWITCHES[name], True)
            continue
        if name not in _VALUED:
            return None
        if not eq:
            following = next(words, None)
            if following is None or following.startswith("-"):
                return None
            value = following
        setattr(args, _VALUED[name], value)
    if args.format not in ("text", "json"):
        return None
    if any(getattr(args, one) and getattr(args, other) for one, other in _EXCLUSIVE):
        return None
    if args.target is not None:
        if not is_modelled(args.target):
            return None
    return args
