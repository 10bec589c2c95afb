"""The loader's values: what Hermes's `PlatformConfig` and built config reduce to here.

Shared by the resolver, the env override blocks, the plugin pass and the checks.
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Any

from hermes_wizard.core.values import Compared, compared_class

if TYPE_CHECKING:
    from hermes_wizard.core.shapes import Parsed


@compared_class
class PlatformState(Compared):
    """Mirror of Hermes's `PlatformConfig`, reduced to what decisions need."""

    enabled: bool = False
    token: Any = None
    extra: Parsed = field(default_factory=dict)


@compared_class
class Effective(Compared):
    """What the gateway would run with."""

    platforms: dict[str, PlatformState]  # insertion order = Hermes's order
    environ: dict[str, str]  # os.environ after .env loading and YAML hooks
    yaml_fallback: str | None = None  # Hermes swallowed this error in the YAML phase
    crash: str | None = None  # load_gateway_config() would raise this
    crash_fix: str | None = None  # what removes that crash, when the model knows the value at fault
    crash_key: tuple[str, ...] | None = None  # the key path of that value, when removing it ends the crash ...
    crash_file: str | None = None  # ... in this file ("gateway.json" or "config.yaml")
    unjudged: str | None = None  # a file is more than this tool judges (Snapshot.beyond_bounds): no verdict
    placeholder_disabled: dict[str, str] = field(default_factory=dict)  # platform -> env name
    yaml_explicit: dict[str, Any] = field(default_factory=dict)  # platform -> YAML `enabled` value

    def enabled(self) -> list[str]:
        return [name for name, state in self.platforms.items() if state.enabled]


class LoaderCrash(Exception):
    """An exception that escapes Hermes's `load_gateway_config()` (or the runner built on it); `fix` says what
    removes it, and `key` the path in `file` of the one value at fault, when removing that value ends it."""

    def __init__(self, message: str, fix: str | None = None, key: tuple[str, ...] | None = None,
                 file: str | None = None) -> None:
        super().__init__(message)
        self.fix, self.key, self.file = fix, key, file
