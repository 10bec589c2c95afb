"""Secrets Hermes takes from hermes-wizard's keyring source, as Hermes 0.19 (and 0.18) decides.

Hermes applies external secret sources inside `load_hermes_dotenv`, after `.env` and `.op.env` and before the
managed `.env` (hermes_cli/env_loader.py); a variable that is already non-empty keeps its value
(agent/secret_sources/registry.py `apply_all`, `override_existing` false by default).  Our source
(`secrets.wizard_keyring`, wizard/core/keyring_store.py) runs only when all of these hold:
- the plugin is installed in Hermes's Python (an entry point `wizard` in group `hermes_agent.plugins`);
- `plugins.enabled` in config.yaml is a list naming `wizard`, and `plugins.disabled` does not name it;
- `HERMES_SAFE_MODE` is not truthy (plugin discovery is skipped);
- `secrets.wizard_keyring.enabled` is truthy (SecretSource.is_enabled: `bool(cfg.get("enabled"))`).
and it fetches a variable only from that variable's entry for this very home (keyring_store.belongs_to): a
mapping naming another home's entry, or another service's, is skipped (`foreign`, HW505).

Contract: pure; nothing here reads the keyring (wizard/read/keyring_read.py does, when a home maps secrets).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hermes_wizard.core.frozenmap import FrozenMap
from hermes_wizard.core.keyring_store import PLUGIN_NAME, SOURCE_NAME, belongs_to
from hermes_wizard.core.values import Value, value_class
from hermes_wizard.hermes.install import plugin_installed as plugin_installed  # re-exported: the resolver asks here

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@value_class
class KeyringRefs(Value):
    """What config.yaml says about secrets kept in the OS keyring."""

    mapped: Mapping[str, tuple[str, str]] = FrozenMap()  # VARIABLE -> (service, username)
    invalid: tuple[str, ...] = ()  # entries Hermes's source would skip, in words
    # VARIABLE -> (service, username) not this home's entry
    foreign: Mapping[str, tuple[str, str]] = FrozenMap()
    source_enabled: bool = False
    plugin_listed: bool = False  # plugins.enabled names it and plugins.disabled does not

    def inactive_because(self, plugin_installed: bool | None, environ: dict[str, str]) -> str | None:
        """Why Hermes will not apply these secrets (None: it will, or we cannot tell)."""
        if not self.mapped:
            return None
        if not self.source_enabled:
            return f"secrets.{SOURCE_NAME}.enabled is not true in config.yaml"
        if not self.plugin_listed:
            return f"the plugin '{PLUGIN_NAME}' is not in plugins.enabled (or is in plugins.disabled)"
        if environ.get("HERMES_SAFE_MODE", "").strip().lower() in ("1", "true", "yes", "on"):
            return "HERMES_SAFE_MODE is set: Hermes loads no plugins"
        if plugin_installed is False:
            return "hermes-wizard is not installed in Hermes's own Python, so Hermes has no such plugin"
        return None


@value_class
class KeyringSecrets(Value):
    """The secrets a home keeps in the OS keyring, as wizard/read/keyring_read.py found them."""

    refs: KeyringRefs = KeyringRefs()
    values: Mapping[str, str] = FrozenMap()  # VARIABLE -> secret (or ASSUMED)
    missing: tuple[str, ...] = ()  # mapped, but the keyring has no such entry
    unreadable: str | None = None  # why the keyring could not be read here


def keyring_refs(data: Any, home: Path) -> KeyringRefs:
    """Read `plugins:` and `secrets.wizard_keyring` from `home`'s config.yaml data (any shape, never raises)."""
    plugins = data.get("plugins") if isinstance(data, dict) else None
    listed = False
    if isinstance(plugins, dict):
        enabled, disabled = plugins.get("enabled"), plugins.get("disabled")
        listed = (_names(enabled) is not None and PLUGIN_NAME in (_names(enabled) or set())
                  and PLUGIN_NAME not in (_names(disabled) or set()))
    secrets = data.get("secrets") if isinstance(data, dict) else None
    section = secrets.get(SOURCE_NAME) if isinstance(secrets, dict) else None
    if not isinstance(section, dict):
        return KeyringRefs(plugin_listed=listed)
    env = section.get("env")
    mapped: dict[str, tuple[str, str]] = {}
    foreign: dict[str, tuple[str, str]] = {}
    invalid: list[str] = []
    for variable, ref in (env.items() if isinstance(env, dict) else ()):
        if ref is None:
            continue  # a mapping taken back (`VAR: null`): nothing to fetch
        if not isinstance(variable, str) or not _ENV_NAME.fullmatch(variable):
            invalid.append(f"{variable!r} is not an environment variable name")
        elif not (isinstance(ref, dict) and isinstance(ref.get("service"), str)
                  and isinstance(ref.get("username"), str)):
            invalid.append(f"{variable}: expected {{service: …, username: …}}")
        elif not belongs_to(home, variable, ref["service"], ref["username"]):
            # the plugin's source fetches only this home's own entries (wizard/faces/hermes_secrets.py): any
            # other entry named here would copy another home's token, or some other secret of this user, into
            # a variable the home chooses (and sends to a server it names)
            foreign[variable] = (ref["service"], ref["username"])
        else:
            mapped[variable] = (ref["service"], ref["username"])
    return KeyringRefs(FrozenMap(mapped), tuple(invalid), FrozenMap(foreign), bool(section.get("enabled")), listed)


def _names(value: Any) -> set[str] | None:
    """A plugins list as Hermes reads it: a list of names, else None (malformed: nothing enabled)."""
    if not isinstance(value, list):
        return None
    try:
        return {item for item in value if isinstance(item, str)} if all(
            isinstance(item, (str, int, float, bool)) or item is None for item in value) else None
    except TypeError:
        return None


def apply_secrets(environ: dict[str, str], secrets: Mapping[str, str]) -> list[str]:
    """Fill `environ` as Hermes's registry does: only variables not already non-empty. Returns those applied."""
    applied = []
    for variable, value in secrets.items():
        if value and not environ.get(variable):
            environ[variable] = value
            applied.append(variable)
    return applied
