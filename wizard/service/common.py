"""What every service reader shares: the `Unit` found on disk, our drop-in names, and small
bounded file reads.  Imports nothing else of the service package (units, supervisors and
homes all build on it).
"""

from __future__ import annotations

import os
from pathlib import Path

from wizard.core.records import factory, record

GATE_DROPIN = "hermes-wizard-gate.conf"
FALLBACK_DROPIN = "hermes-wizard-restart.conf"
VARIANT_FILES = {"gate": GATE_DROPIN, "fallback": FALLBACK_DROPIN}  # our drop-in variants, by name
UNIT_PREFIX = "hermes-gateway"
MAX_UNIT_BYTES = 256 * 1024


@record
class Gate:
    """Our gate drop-in as found on disk: the wizard it runs and the home it judges."""

    path: Path
    wizard: str | None
    home: str | None


@record
class Unit:
    path: Path
    manager: str  # "systemd" | "launchd" | "s6"
    scope: str  # systemd: "user" | "system"; launchd: "agent"; s6: "container"
    name: str  # hermes-gateway.service, ai.hermes.gateway, gateway-default
    home: Path | None = None
    profile: str | None = None
    restart: str = "no"  # effective Restart= (launchd KeepAlive / s6 supervision count as "always")
    prevents_78: bool = False  # exit 78 (Hermes's fatal-config code) is not restarted
    dropins: list[Path] = factory(list)
    gate: Gate | None = None
    fallback: Path | None = None
    python: str | None = None  # the interpreter (or hermes script) the service starts
    user: str | None = None
    error: str | None = None

    @property
    def label(self) -> str:
        return {"systemd": f"systemd {self.scope} unit", "launchd": "launchd agent",
                "s6": "s6 service"}[self.manager]

    @property
    def dropin_dir(self) -> Path:
        return self.path.parent / f"{self.path.name}.d"

    def serves(self, home: Path) -> bool:
        return self.home is not None and os.path.realpath(self.home) == os.path.realpath(home)


def _listdir(folder: Path) -> list[str]:
    try:
        return sorted(os.listdir(folder))
    except OSError:
        return []


def read_text(path: Path) -> tuple[str | None, str | None]:
    """(text, error) of a small config file."""
    try:
        if path.stat().st_size > MAX_UNIT_BYTES:
            return None, "is too large to be a unit file"
        return path.read_text(encoding="utf-8", errors="replace"), None
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"

