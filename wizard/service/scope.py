"""`ServiceScope`: which service units a judgement looks at, as a value handed down, never set on a module.

A scope says where units are read (`root`, `user_home`; None: the machine's, as `units.detect` decides), which
unit the user named (`--unit PATH`: then only that one counts), whether systemd may be asked (`runner`:
`check --service` and `doctor`; None: unit files only, as plain `check`, the gate and the TUI read them), the
drop-ins a plan will write (`planned`: read as written, so a review judges the service the plan leaves), and
whether what systemd said is stale (`evidence_held`: once doctor acted on a unit).

Contract: equal scopes give equal answers.  What a scope has read (the unit files, systemd's answers) is kept
in a memo that belongs to that one scope object and is not part of its value: `with_planned` and `held`
return new scopes that share the unit files already read (planned drop-ins are laid over them as units are
handed out) and, for `held`, drop systemd's answers.

The loop evidence (service/loop.py, which runs systemctl through subprocess) is imported lazily, in
`evidence`, only when a runner is given.
"""

from __future__ import annotations

import os
from dataclasses import field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.core.frozenmap import FrozenMap
from hermes_wizard.core.values import Value, value_class
from hermes_wizard.service import units as units_mod
from hermes_wizard.service.common import VARIANT_FILES

if TYPE_CHECKING:
    from collections.abc import Iterable

    from hermes_wizard.service.common import Unit
    from hermes_wizard.service.loop import Evidence
    from hermes_wizard.service.systemd import Runner

# unit path -> {drop-in file name: its planned text, or None: removed}
PlannedDropins = FrozenMap[str, FrozenMap[str, "str | None"]]


class _Reads:
    """What one scope has read: the unit files and systemd's answers, each read once.  Not a value: a
    scope's answers are a function of the scope, so keeping them changes nothing but the cost."""

    __slots__ = ("named", "installed", "evidence")

    def __init__(self, named: Unit | None = None, installed: list[Unit] | None = None) -> None:
        self.named, self.installed = named, installed
        self.evidence: dict[str, Evidence | None] = {}


@value_class
class ServiceScope(Value):
    unit: Path | None = None  # --unit PATH: only this unit counts
    runner: Runner | None = None  # systemd may be asked (a dry run asks nothing)
    root: Path | None = None  # the system's root for unit folders (None: units.system_root decides)
    user_home: Path | None = None  # the user's home for user units (None: units.detect decides)
    planned: PlannedDropins = field(default_factory=FrozenMap)
    evidence_held: bool = False
    _reads: _Reads = field(default_factory=_Reads, compare=False, repr=False)

    @classmethod
    def of(cls, unit: Path | str | None = None, runner: Runner | None = None) -> ServiceScope:
        """The scope of one command line: `--unit` as given (a string from argparse), a runner or none."""
        return cls(unit=Path(unit) if unit else None, runner=runner)

    def with_planned(self, steps: Iterable[object]) -> ServiceScope:
        """This scope with every unit a plan's drop-in steps write to read as it will be (the gate or the
        fallback in place, our other variant gone).  Reads nothing new; steps without a drop-in change nothing."""
        planned: dict[str, FrozenMap[str, str | None]] = {}
        for step in steps:
            variant, path, text = (getattr(step, name, None) for name in ("variant", "unit_path", "text"))
            if variant and path is not None and text is not None:
                files: dict[str, str | None] = {name: None for name in VARIANT_FILES.values()}
                files[VARIANT_FILES[variant]] = text
                planned[os.fspath(path)] = FrozenMap(files)
        if not planned:
            return self
        return replace(self, planned=FrozenMap(planned), _reads=self._reads)

    def held(self) -> ServiceScope:
        """Once doctor has acted on a unit, what systemd said before is stale and asking again mid-repair
        would judge a service just stopped: the held scope asks systemd nothing (doctor's own verification
        speaks for the service).  The unit files are read again: the repair may have written drop-ins."""
        return replace(self, evidence_held=True, planned=FrozenMap(), _reads=_Reads())

    def fresh(self) -> ServiceScope:
        """The same scope with nothing read yet (after a write, or a hand-over that may have changed units)."""
        return replace(self, _reads=_Reads())

    # -- reading ------------------------------------------------------------------------------------------------

    def named_unit(self) -> Unit | None:
        """The `--unit PATH` unit, read once."""
        if self.unit is None:
            return None
        if self._reads.named is None:
            self._reads.named = units_mod.load(self.unit, self.root, self.user_home)
        return self._reads.named

    def installed(self) -> list[Unit]:
        if self._reads.installed is None:
            self._reads.installed = units_mod.detect(self.root, self.user_home)
        return list(self._reads.installed)

    def relevant(self, home: Path, profile: str = "default") -> tuple[list[Unit], list[Unit]]:
        """(units that run `home`, units that should but run another home).

        With `--unit`, only that unit counts.  Otherwise a unit elsewhere is reported only when
        nothing runs `home` and it carries the name Hermes would give `home`'s service."""
        serving, elsewhere = self._relevant(home, profile)
        return self._as_planned(serving), elsewhere

    def serving(self, home: Path) -> list[Unit]:
        """The units that run `home`, its profile named by where it lies (`<root>/profiles/<name>`)."""
        return self.relevant(home, home.name if home.parent.name == "profiles" else "default")[0]

    def evidence(self, unit: Unit) -> Evidence | None:
        """Loop evidence for a systemd unit when a runner is given, else None (asked once per unit)."""
        if self.runner is None or self.runner.dry_run or unit.manager != "systemd" or self.evidence_held:
            return None  # a dry run runs no command, queries included
        key = os.fspath(unit.path)
        if key not in self._reads.evidence:
            from hermes_wizard.service import loop  # lazily: see the module doc

            self._reads.evidence[key] = loop.gather(unit, self.runner)
        return self._reads.evidence[key]

    def _relevant(self, home: Path, profile: str) -> tuple[list[Unit], list[Unit]]:
        named = self.named_unit()
        if named is not None:
            return ([named], []) if named.serves(home) else ([], [named])
        found = self.installed()
        serving = [u for u in found if u.serves(home)]
        if serving:
            return serving, []
        want = expected_name(profile)
        names = (want, _launchd(want), _s6(profile))
        return [], [u for u in found if u.home is not None and u.name.split(".service")[0] in names]

    def _as_planned(self, units: list[Unit]) -> list[Unit]:
        if not self.planned:
            return units
        planned = self.planned
        return [units_mod.read_systemd(u.path, u.scope, self.root, self.user_home, dict(planned[os.fspath(u.path)]))
                if u.manager == "systemd" and os.fspath(u.path) in planned else u for u in units]


def expected_name(profile: str) -> str:
    """The unit name Hermes gives this home's service (hermes_cli/gateway.py:1723-1808)."""
    return "hermes-gateway" if profile in ("", "default") else f"hermes-gateway-{profile}"


def _launchd(name: str) -> str:
    return "ai.hermes.gateway" + name[len("hermes-gateway"):]


def _s6(profile: str) -> str:
    return f"gateway-{profile or 'default'}"
