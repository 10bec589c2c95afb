"""The startup gate: Hermes 0.19's open-policy refusal, and nothing else.

Mirrors `_own_policy_open_startup_violation` (gateway/run.py:1962-2001): for each
*enabled* platform among weixin, whatsapp, wecom, qqbot, yuanbao, in
`config.platforms` order, the DM and group policies are taken from
`extra` first, then the env var, then "pairing"; stripped and lower-cased.  If
either is "open", the platform needs GATEWAY_ALLOW_ALL_USERS or its own allow-all
flag with a value whose lower-case form is exactly true/1/yes (not stripped, not
"on").  Hermes stops at the first violation; `violations` returns all of them, in
Hermes's order, so `violations(...)[0]` is the platform Hermes names.

`check --gate` decides on this module alone, so nothing else can block a start.
"""

from __future__ import annotations

from hermes_wizard.core.values import Value, value_class
from hermes_wizard.hermes.loader.catalog import PLATFORMS, Spec
from hermes_wizard.hermes.loader.envrules import allow_all
from hermes_wizard.hermes.loader.state import Effective, PlatformState


@value_class
class Policies(Value):
    """A platform's DM and group policies as the startup gate reads them, and whether each came from `extra`."""

    dm: str
    group: str
    dm_from_extra: bool
    group_from_extra: bool


@value_class
class Violation(Value):
    """One platform the startup gate refuses: an open policy without its allow-all opt-in."""

    platform: str
    dm: str
    group: str
    allow_all_env: str

    @property
    def reason(self) -> str:
        """Hermes's own exit reason string (gateway_state.json `exit_reason`)."""
        return f"{self.platform}: open policy without allow-all opt-in"

    def open_sides(self) -> list[str]:
        return [side for side, value in (("dm_policy", self.dm), ("group_policy", self.group)) if value == "open"]


def policies(name: str, state: PlatformState, environ: dict[str, str],
             platforms: dict[str, Spec] = PLATFORMS) -> Policies | None:
    """The policies the gate sees for a gated platform (None for the others) of `platforms` (a model's)."""
    spec = platforms.get(name)
    if spec is None or spec.gate is None:
        return None
    extra = state.extra or {}

    def pick(key: str, env_name: str | None) -> tuple[str, bool]:
        from_extra = extra.get(key)
        if from_extra:
            return str(from_extra).strip().lower(), True
        fallback = environ.get(env_name, "pairing") if env_name else "pairing"
        return str(fallback).strip().lower(), False

    dm, dm_extra = pick("dm_policy", spec.gate.dm_env)
    group, group_extra = pick("group_policy", spec.gate.group_env)
    return Policies(dm, group, dm_extra, group_extra)


def opted_in(name: str, environ: dict[str, str], platforms: dict[str, Spec] = PLATFORMS) -> bool:
    spec = platforms.get(name)
    own = spec.gate.allow_all_env if spec and spec.gate else (spec.allow_all_env if spec else None)
    return allow_all(environ.get("GATEWAY_ALLOW_ALL_USERS")) or bool(own and allow_all(environ.get(own)))


def violations(effective: Effective, platforms: dict[str, Spec] = PLATFORMS) -> list[Violation]:
    found: list[Violation] = []
    if effective.crash is not None:
        return found
    for name, state in effective.platforms.items():
        if not state.enabled:
            continue
        seen = policies(name, state, effective.environ, platforms)
        if seen is None or (seen.dm != "open" and seen.group != "open"):
            continue
        if opted_in(name, effective.environ, platforms):
            continue
        gate = platforms[name].gate
        assert gate is not None  # policies() answered, so the platform is gated
        found.append(Violation(name, seen.dm, seen.group, gate.allow_all_env))
    return found
