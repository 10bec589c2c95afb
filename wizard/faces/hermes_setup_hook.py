"""A hook into the messaging step of `hermes setup gateway`: the setup step of an own-policy platform that Hermes
takes from its platform registry is re-registered with a step of ours (gateway/platform_registry.py in Hermes).

What Hermes 0.19.0 allows (read in its source and measured, see the README's "Inside Hermes"):
* WhatsApp and WeCom are bundled platform plugins: their registry entries carry `setup_fn`, and the setup menu
  (`hermes_cli.gateway._configure_platform`) calls the entry's `setup_fn` first.  The registry is last-writer-wins,
  so an entry re-registered with `dataclasses.replace(entry, setup_fn=...)` takes over their step.
* Weixin, QQ Bot and Yuanbao are NOT in the registry: the menu lists them from its own built-in table, and
  `_all_platforms()` skips any registry entry with a built-in's name.  No plugin API reaches their step (and
  registering a fake entry under their name would hand the gateway our entry for their adapter): left alone.
* Bundled platforms are registered lazily (a deferred loader per platform, imported on first use).  Forcing the
  import to wrap it would cost every `hermes` run that discovers plugins and move the platform to the top of the
  menu (the registry keeps insertion order).  So the pending loader is replaced by one that runs it and then wraps
  the entry it registered: same import time, same menu position.  Finding the pending loader needs the registry's
  `_deferred` dict (internal) in 0.19; 0.20.1 keeps registrations per profile (a scope per home) and offers
  `snapshot_registration(name, scope=)`, which reads both without loading; on a Hermes with neither the entry is
  looked up (so loaded) now and wrapped.

Contract: never raises (a failure logs one line and leaves Hermes's own step in place); wrapping twice is a no-op.
`gateway.platform_registry` is imported lazily, inside the hook: it exists only in Hermes's venv.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Callable
from typing import Any

OWN_POLICY = ("weixin", "whatsapp", "wecom", "yuanbao", "qqbot")
_STOCK: dict[str, Callable[[], None]] = {}  # Hermes's own setup step of each wrapped platform
_MARK = "_hermes_wizard_step"
log = logging.getLogger("hermes_wizard.plugin")
# Hermes's gateway.platform_registry: its layout differs by version (0.19's maps, 0.20.1's scopes), so it is probed
# with getattr and every use is guarded, never typed as one class.
Registry = Any


def stock_setup(platform: str) -> Callable[[], None] | None:
    """Hermes's own setup step for `platform`, once it has been wrapped."""
    return _STOCK.get(platform)


def wrap_setup_steps(replacement: Callable[[str], None]) -> list[str]:
    """Make `replacement(name)` the setup step of each own-policy platform Hermes's registry holds; the names
    arranged (each is wrapped now, or when Hermes first loads that platform)."""
    try:
        from gateway.platform_registry import platform_registry
    except Exception as exc:
        log.warning("hermes-wizard: no platform registry in this Hermes (%s); `hermes setup gateway` unchanged", exc)
        return []
    arranged = []
    for name in OWN_POLICY:
        try:
            if _arrange(platform_registry, name, replacement):
                arranged.append(name)
        except Exception as exc:  # an internal layout we do not know: leave Hermes's step alone
            log.warning("hermes-wizard: cannot wrap the %s setup step (%s: %s)", name, type(exc).__name__, exc)
    return arranged


def _arrange(registry: Registry, name: str, replacement: Callable[[str], None]) -> bool:
    scoped = callable(getattr(registry, "snapshot_registration", None))
    if not scoped and not isinstance(getattr(registry, "_deferred", None), dict):
        return _wrap(registry, name, replacement, None)  # a layout we do not know: look it up (loads it) and wrap
    for scope in _scopes(registry, scoped):
        entry, loader = _registration(registry, name, scope, scoped)
        if loader is not None:
            if getattr(loader, _MARK, False):
                return True

            def load_then_wrap(stock_loader: Callable[[], object] = loader, scope: str | None = scope) -> None:
                stock_loader()
                _wrap(registry, name, replacement, scope)

            setattr(load_then_wrap, _MARK, True)
            # replaces the pending loader, keeps its turn
            if scoped:
                registry.register_deferred(name, load_then_wrap, scope=scope)
            else:
                registry.register_deferred(name, load_then_wrap)
            return True
        if entry is not None:
            return _wrap(registry, name, replacement, scope)
    return False  # neither pending nor loaded: this Hermes lists it elsewhere (Weixin, QQ Bot, Yuanbao)


def _scopes(registry: Registry, scoped: bool) -> list[str | None]:
    """Where a platform may be registered: 0.20.1 keeps each profile's registrations apart (gateway/
    platform_registry.py:258-292, the plugin manager registers bundled platforms under its home's scope,
    hermes_cli/plugins.py:4459), the global maps after it; 0.19 has the global maps only."""
    return [registry.current_scope_key(), None] if scoped else [None]


def _registration(registry: Registry, name: str, scope: str | None,
                  scoped: bool) -> tuple[object, Callable[[], object] | None]:
    """(entry, pending loader) for `name` in `scope`, without loading it."""
    if scoped:  # 0.20.1's own snapshot, made for exactly this (platform_registry.py:320)
        entry, loader = registry.snapshot_registration(name, scope=scope)
        return entry, loader
    return registry._entries.get(name), registry._deferred.get(name)


def _wrap(registry: Registry, name: str, replacement: Callable[[str], None], scope: str | None) -> bool:
    try:
        scoped = callable(getattr(registry, "snapshot_registration", None))
        # in 0.20.1, looking the entry up from inside its own loader would wait on that very load: take the snapshot
        entry = registry.snapshot_registration(name, scope=scope)[0] if scoped else registry.get(name)
        if entry is None or entry.setup_fn is None:
            return False
        if getattr(entry.setup_fn, _MARK, False):
            return True
        _STOCK[name] = entry.setup_fn
        step = functools.partial(replacement, name)
        setattr(step, _MARK, True)
        wrapped = dataclasses.replace(entry, setup_fn=step)
        if scoped:
            registry.register(wrapped, scope=scope)
        else:
            registry.register(wrapped)
        return True
    except Exception as exc:
        log.warning("hermes-wizard: cannot wrap the %s setup step (%s: %s)", name, type(exc).__name__, exc)
        return False
