"""The per-process service scope: the unit the user named (`--unit PATH`) and a Runner when
checks may ask systemd (`check --service`, `doctor`); unconfigured — plain `check`, the TUI —
checks read unit files and nothing else.  Detection is cached per process.

`check` loads this module; the loop evidence (service/loop.py, which runs systemctl through subprocess) is
imported lazily, in `evidence`, only when a Runner is configured (`check --service`, doctor).
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hermes_wizard.service.common import Unit
    from hermes_wizard.service.loop import Evidence

from hermes_wizard.service import units as units_mod
from hermes_wizard.service.common import VARIANT_FILES

_scope: dict = {"unit": None, "runner": None, "root": None, "user_home": None}
_cache: dict = {}


def configure(unit: Path | str | None = None, runner=None, root: Path | str | None = None,
              user_home: Path | None = None) -> None:
    """Set what the service checks look at for the rest of this process (`reset()` undoes)."""
    _scope.update(unit=Path(unit) if unit else None, runner=runner, root=root, user_home=user_home)
    _cache.clear()


def reset() -> None:
    configure()


def runner():
    return _scope["runner"]


def named_unit() -> Unit | None:
    """The `--unit PATH` unit, read once."""
    if _scope["unit"] is None:
        return None
    if "named" not in _cache:
        _cache["named"] = units_mod.load(_scope["unit"], _scope["root"], _scope["user_home"])
    return _cache["named"]


def installed() -> list[Unit]:
    if "installed" not in _cache:
        _cache["installed"] = units_mod.detect(_scope["root"], _scope["user_home"])
    return _cache["installed"]


def expected_name(profile: str) -> str:
    """The unit name Hermes gives this home's service (hermes_cli/gateway.py:1723-1808)."""
    return "hermes-gateway" if profile in ("", "default") else f"hermes-gateway-{profile}"


@contextmanager
def planned_dropins(steps):
    """Within: every unit a plan's drop-in steps write to is read as it will be (the gate or the fallback in
    place, our other variant gone), so a review judges the service the plan leaves — never "restarts it
    forever" for a loop the planned gate ends.  Reads nothing new; only the units' own drop-in folders."""
    planned: dict = {}
    for step in steps:
        if getattr(step, "variant", None) and step.unit_path is not None and step.text is not None:
            files = {name: None for name in VARIANT_FILES.values()}
            files[VARIANT_FILES[step.variant]] = step.text
            planned[os.fspath(step.unit_path)] = files
    saved = _scope.get("planned")
    _scope["planned"] = planned or None  # applied as units are handed out (relevant): the caches stay true
    try:
        yield
    finally:
        _scope["planned"] = saved


def _as_planned(units: list) -> list:
    planned = _scope.get("planned")
    if not planned:
        return units

    return [units_mod.read_systemd(u.path, u.scope, _scope["root"], _scope["user_home"], planned[os.fspath(u.path)])
            if u.manager == "systemd" and os.fspath(u.path) in planned else u for u in units]


def relevant(home: Path, profile: str = "default") -> tuple[list[Unit], list[Unit]]:
    """(units that run `home`, units that should but run another home).

    With `--unit`, only that unit counts.  Otherwise a unit elsewhere is reported only when
    nothing runs `home` and it carries the name Hermes would give `home`'s service."""
    serving, elsewhere = _relevant(home, profile)
    return _as_planned(serving), elsewhere


def _relevant(home: Path, profile: str) -> tuple[list, list]:
    named = named_unit()
    if named is not None:
        return ([named], []) if named.serves(home) else ([], [named])
    found = installed()
    serving = [u for u in found if u.serves(home)]
    if serving:
        return serving, []
    want = expected_name(profile)
    return [], [u for u in found if u.home is not None and u.name.split(".service")[0] in (want, _launchd(want),
                                                                                             _s6(profile))]


def _launchd(name: str) -> str:
    return "ai.hermes.gateway" + name[len("hermes-gateway"):]


def _s6(profile: str) -> str:
    return f"gateway-{profile or 'default'}"


def evidence(unit: Unit) -> Evidence | None:
    """Loop evidence for a systemd unit when a Runner is configured, else None (cached)."""
    if _scope["runner"] is None or _scope["runner"].dry_run or unit.manager != "systemd" or _cache.get("held"):
        return None  # a dry run runs no command, queries included
    key = ("evidence", os.fspath(unit.path))
    if key not in _cache:
        from hermes_wizard.service import loop  # lazily: see the module doc

        _cache[key] = loop.gather(unit, _scope["runner"])
    return _cache[key]


def hold_evidence() -> None:
    """Once doctor has acted on a unit, what systemd said before is stale, and asking again
    mid-repair would judge a service we just stopped: until `reset()`, the checks get none
    and doctor's own verification speaks for the service."""
    for key in [k for k in _cache if isinstance(k, tuple) and k[0] == "evidence"]:
        del _cache[key]
    _cache["held"] = True
