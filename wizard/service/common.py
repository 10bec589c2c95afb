"""What every service reader shares: the `Unit` found on disk, our drop-in names, and small
bounded file reads.  Imports nothing else of the service package but the leaf `restart_rules`
(units, supervisors and homes all build on it).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.core.frozenmap import FrozenMap
from hermes_wizard.core.smallfile import unreadable_for
from hermes_wizard.core.values import Value, value_class
from hermes_wizard.service import restart_rules

if TYPE_CHECKING:
    from collections.abc import Mapping

# systemd's version from which a start skipped by ExecCondition= is not restarted under Restart=always
MIN_GATE = 251
SETTLE_S = 12.0  # a restart watched this long: > RestartSec=5 + a 1.2 s refusal, one full loop turn
GATE_DROPIN = "hermes-wizard-gate.conf"
FALLBACK_DROPIN = "hermes-wizard-restart.conf"
VARIANT_FILES = {"gate": GATE_DROPIN, "fallback": FALLBACK_DROPIN}  # our drop-in variants, by name
UNIT_PREFIX = "hermes-gateway"
MAX_UNIT_BYTES = 256 * 1024


@value_class
class Gate(Value):
    """Our gate drop-in as found on disk: the wizard it runs and the home it judges."""

    path: Path
    wizard: str | None
    home: str | None


@value_class
class Unit(Value):
    """A service (systemd unit, launchd agent, s6 service) found on disk that runs a Hermes gateway."""

    path: Path
    manager: str  # "systemd" | "launchd" | "s6"
    scope: str  # systemd: "user" | "system"; launchd: "agent"; s6: "container"
    name: str  # hermes-gateway.service, ai.hermes.gateway, gateway-default
    home: Path | None = None
    profile: str | None = None
    restart: str = "no"  # effective Restart= (launchd KeepAlive / s6 supervision count as "always")
    prevents_78: bool = False  # exit 78 (Hermes's fatal-config code) is not restarted
    # systemd only, as its drop-ins leave them (wizard/service/restart_rules.py says what they decide):
    service_type: str = "simple"  # Type=: "notify" waits for READY=1 (Hermes >= 0.20.1 with a watchdog)
    watchdog: str | None = None  # WatchdogSec= as written, when set and not 0
    restart_sec: float | None = None  # RestartSec= in seconds (None: unset or unreadable)
    prevent_statuses: frozenset[int] = frozenset()  # RestartPreventExitStatus=
    force_statuses: frozenset[int] = frozenset()  # RestartForceExitStatus= (restarted even under Restart=no)
    success_statuses: frozenset[int] = frozenset()  # SuccessExitStatus= (main line: 75)
    dropins: tuple[Path, ...] = ()
    gate: Gate | None = None
    fallback: Path | None = None
    python: str | None = None  # the interpreter (or hermes script) the service starts
    user: str | None = None
    environment: Mapping[str, str] = FrozenMap()  # Environment=, as the drop-ins leave it
    error: str | None = None

    @property
    def label(self) -> str:
        return {"systemd": f"systemd {self.scope} unit", "launchd": "launchd agent",
                "s6": "s6 service"}[self.manager]

    @property
    def waits_for_ready(self) -> bool:
        """Type=notify: a start counts only once the gateway sends READY=1."""
        return self.manager == "systemd" and restart_rules.waits_for_ready(self.service_type)

    @property
    def restarts_refusal(self) -> bool:
        """Is a gateway that exits 0 at start (Hermes's open-policy refusal) started again, forever?"""
        if self.manager != "systemd":
            return self.restart == "always"  # KeepAlive, s6: any exit but s6's 78
        return restart_rules.restarts_refusal(self.restart, self.service_type, self.prevent_statuses,
                                              self.force_statuses)

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


def read_text(path: Path, folder_user: int | None = None) -> tuple[str | None, str | None]:
    """(text, error) of a small config file (UTF-8, undecodable bytes replaced), read by `read_config`."""
    data, error = read_config(path, folder_user)
    return (data.decode("utf-8", errors="replace") if data is not None else None), error


def read_config(path: Path, folder_user: int | None = None) -> tuple[bytes | None, str | None]:
    """(bytes, error) of a small config file: a regular file (a FIFO or device is refused, never waited
    on), opened once through its folder's descriptor, links followed as systemd and launchd follow them.

    `folder_user`: the uid whose folder holds the name (a user's unit or drop-in; wizard/service/units.py
    decides).  Root must not read for that user what the user could not: the file the name resolves to is
    read only when that user may enter every folder above it and read it (wizard/core/smallfile.py
    `unreadable_for`); otherwise it "cannot be read", saying why.  Checked on the opened descriptor."""
    try:
        folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            fd = os.open(path.name, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC, dir_fd=folder)
            if folder_user is None:
                folder_user = os.fstat(folder).st_uid
        finally:
            os.close(folder)
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    try:
        seen = os.fstat(fd)
        why = ("it is not a regular file" if not stat.S_ISREG(seen.st_mode)
               else unreadable_for(folder_user, seen, fd, "whose folder names it") if folder_user else None)
        if why:
            return None, f"cannot be read ({why})"
        data = os.read(fd, MAX_UNIT_BYTES + 1)
        if len(data) > MAX_UNIT_BYTES:
            return None, "is too large to be a unit file"
        return data, None
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    finally:
        os.close(fd)
