"""The plugin's secret source: Hermes reads the secrets a home keeps in the OS keyring at startup.

`read_mapped(cfg, home)` is the whole decision, free of Hermes (so it is testable anywhere): it reads the
`secrets.wizard_keyring` section (wizard/core/keyring_store.py fixes its shape) and returns an `Outcome`.
`make_source()` wraps it in Hermes's own `SecretSource` class, defined only here because
`agent.secret_sources.base` exists only inside Hermes; None when this Hermes has no such API.
`apply_now(home)` is the verified workaround (Hermes 0.19.0 hermes_cli/env_loader.py and
agent/secret_sources/registry.py): Hermes applies secret sources once per home per process, BEFORE it
discovers plugins, so a plugin's source is otherwise never applied in the very process (the gateway) that
loaded it; we forget that "applied" mark and load the env again.  From 0.20.1 on Hermes does that itself once
discovery is done (`applied_by_hermes`): there the workaround is left out (measured: it only read the keyring a
second time per start).

Contract: nothing here raises or prompts (Hermes's rule for `fetch`); a message names variables, never a value,
and escapes whatever came from the home.  An entry may name only this home's own entry for that variable
(keyring_store.belongs_to: this tool's service, username `<the home's real path>:<the same variable>`): a hostile
config.yaml cannot make the gateway lift another home's token, or some other secret of its user (a GitHub token,
say), into a variable that is then sent to a server the config names.  Anything else is skipped (HW505).
Hermes's own modules (`agent.secret_sources`, `hermes_cli.env_loader`) are imported lazily, inside the functions
that run in Hermes's venv: anywhere else they do not exist.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from hermes_wizard.core import keyring_store
from hermes_wizard.core.frozenmap import FrozenMap
from hermes_wizard.core.safetext import visible
from hermes_wizard.core.values import Value, value_class
from hermes_wizard.faces.hermes_command import hermes_command

if TYPE_CHECKING:
    from collections.abc import Mapping

LABEL = "OS keyring (hermes-wizard)"
FETCH_TIMEOUT_SECONDS = 10.0  # a locked or absent keyring answers in well under a second; never hold a start
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
log = logging.getLogger("hermes_wizard.plugin")


@value_class
class Outcome(Value):
    secrets: Mapping[str, str] = FrozenMap()
    warnings: tuple[str, ...] = ()
    error: str | None = None
    kind: str | None = None  # an ErrorKind name: NOT_CONFIGURED, REF_INVALID, BINARY_MISSING, AUTH_FAILED, INTERNAL


def read_mapped(cfg: object, home: Path) -> Outcome:
    """The secrets `cfg` (the section secrets.wizard_keyring) maps, read from the keyring; never raises."""
    try:
        return _read_mapped(cfg, home)
    except Exception as exc:  # a bug of ours must not stop a gateway from starting
        return Outcome(error=f"internal error ({type(exc).__name__})", kind="INTERNAL")


def _read_mapped(cfg: object, home: Path) -> Outcome:
    where = f"secrets.{keyring_store.SOURCE_NAME}"
    if not isinstance(cfg, dict):
        return Outcome(error=f"{where} is not a mapping", kind="NOT_CONFIGURED")
    env = cfg.get("env")
    if not isinstance(env, dict) or not env:
        return Outcome(error=f"{where}.env names no variable", kind="NOT_CONFIGURED")
    warnings: list[str] = []
    wanted: dict[str, tuple[str, str]] = {}
    for variable, ref in env.items():
        if not isinstance(variable, str) or not _ENV_NAME.match(variable):
            warnings.append(f"{where}.env: {visible(str(variable))[:80]} is not a variable name; skipped")
        elif not _own_entry(home, variable, ref):
            service, username = keyring_store.entry_for(home, variable)
            warnings.append(f"{variable}: not this home's keyring entry (HW505); it must be {{service: "
                                f"{service}, username: {visible(username)}}}; skipped")
        else:
            wanted[variable] = (ref["service"], ref["username"])
    if not wanted:
        return Outcome(warnings=tuple(warnings), error=f"{where}.env has no valid entry", kind="REF_INVALID")
    reason = keyring_store.usable()
    if reason is None:
        reason = _prompting_backend()
    if reason is not None:
        return Outcome(warnings=tuple(warnings), error=f"{visible(reason)}; {_names(wanted)} not set",
                       kind="BINARY_MISSING")
    secrets: dict[str, str] = {}
    for variable, (service, username) in wanted.items():
        try:
            value = keyring_store.read(service, username)
        except keyring_store.KeyringUnavailable as exc:
            locked = "locked" in str(exc)
            return Outcome(warnings=tuple(warnings), error=f"{visible(str(exc))}; {_names(wanted)} not set",
                           kind="AUTH_FAILED" if locked else "INTERNAL")
        if value:
            secrets[variable] = value
        else:
            warnings.append(f"{variable}: no entry in the OS keyring (run `{_setup_command()}` to store it)")
    return Outcome(FrozenMap(secrets), tuple(warnings))


def _setup_command() -> str:
    return f"{hermes_command()} {keyring_store.PLUGIN_NAME} setup"


def _own_entry(home: Path, variable: str, ref: object) -> bool:
    return isinstance(ref, dict) and keyring_store.belongs_to(home, variable, ref.get("service"), ref.get("username"))


def _prompting_backend() -> str | None:
    """keyrings.alt's encrypted file asks for its password on the terminal: a gateway must not wait for that."""
    try:
        name = keyring_store.backend_name()
    except keyring_store.KeyringUnavailable as exc:
        return str(exc)
    return f"the keyring here ({name}) asks for a password at every start" if "Encrypted" in name else None


def _names(wanted: dict[str, tuple[str, str]]) -> str:
    return ", ".join(sorted(wanted))


def timeout_for(cfg: dict[str, Any] | None) -> float:
    try:
        seconds = float((cfg or {}).get("timeout_seconds", FETCH_TIMEOUT_SECONDS))
    except (TypeError, ValueError, AttributeError):
        return FETCH_TIMEOUT_SECONDS
    return seconds if 0 < seconds <= 120 else FETCH_TIMEOUT_SECONDS


def make_source() -> object | None:
    """An instance of Hermes's SecretSource for `read_mapped`, or None (logged once) on a Hermes without it."""
    try:
        from agent.secret_sources.base import ErrorKind, FetchResult, SecretSource
    except Exception as exc:
        log.warning("hermes-wizard: this Hermes has no secret-source API (%s); secrets stay in .env", exc)
        return None

    class WizardKeyringSource(SecretSource):
        name = keyring_store.SOURCE_NAME
        label = LABEL
        shape = "mapped"

        def fetch(self, cfg: dict[str, Any], home_path: Path) -> object:
            outcome = read_mapped(cfg, Path(home_path))
            result = FetchResult(secrets=dict(outcome.secrets), warnings=list(outcome.warnings))
            if outcome.error is not None:
                result.error = outcome.error
                result.error_kind = getattr(ErrorKind, outcome.kind or "INTERNAL", ErrorKind.INTERNAL)
            return result

        def fetch_timeout_seconds(self, cfg: dict[str, Any]) -> float:
            return timeout_for(cfg)

    return WizardKeyringSource()


def enabled_in(home: Path) -> bool:
    """Does this home's config.yaml turn our source on?  (Hermes's own test: a truthy `enabled`.)"""
    try:
        with open(Path(home) / "config.yaml", encoding="utf-8") as handle:
            data = yaml.safe_load(handle)
        section = ((data or {}).get("secrets") or {}).get(keyring_store.SOURCE_NAME)
        return isinstance(section, dict) and bool(section.get("enabled"))
    except Exception:  # no file, not YAML, not a mapping: not enabled (Hermes reads it the same way)
        return False


def applied_by_hermes() -> bool:
    """Whether this Hermes applies plugin secret sources itself, after discovery: 0.20.1
    hermes_cli/plugins.py:3798 and :3820 (`_refresh_secret_sources_after_discovery`: a cache reset and
    `load_hermes_dotenv()` when a plugin source is enabled), kept by the 0.22.2 fork (plugins.py:1339).  Asked
    of Hermes's own class, which is already imported when a plugin registers."""
    try:
        from hermes_cli.plugins import PluginManager
    except Exception:
        return False
    return callable(getattr(PluginManager, "_refresh_secret_sources_after_discovery", None))


def apply_now(home: Path) -> bool:
    """Apply the home's secret sources in this process now (see the module docstring); True when it did."""
    try:
        from hermes_cli.env_loader import load_hermes_dotenv, reset_secret_source_cache
    except Exception as exc:
        log.warning("hermes-wizard: cannot re-apply secret sources in this Hermes (%s); keyring secrets reach "
                    "only processes started later", exc)
        return False
    reset_secret_source_cache()
    load_hermes_dotenv(hermes_home=home)
    return True
