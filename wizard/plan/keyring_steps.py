"""Platform secrets moved between `.env` and the OS keyring, as one Plan (`hermes-wizard secrets migrate`).

To the keyring: each platform secret set in `.env` gets a STORE step (its entry: wizard/core/keyring_store.py
`entry_for`), its lines leave `.env` (REMOVE: this tool's disabled copies too, so no plaintext copy stays), and
config.yaml gains what makes Hermes read it back: `wizard` in `plugins.enabled`, `secrets.wizard_keyring.enabled:
true` and the variable's mapping.
To `.env`: each mapped variable's value (read from the keyring while planning) is set in `.env`, its mapping becomes
`null`, the source is switched off once no mapping is left, and a DELETE step removes the entry after the files
are written and verified.

Contract: `KeyringStep` never shows its secret (repr, describe); planning is pure except `plan_to_env`, which
reads the keyring (KeyringUnavailable when it cannot).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermes_wizard.core import keyring_store
from hermes_wizard.core.keyring_store import PLUGIN_NAME, SERVICE, SOURCE_NAME, entry_for
from hermes_wizard.core.values import Value, value_class
from hermes_wizard.hermes.loader.yamlfile import lookup
from hermes_wizard.judge.masking import is_secret_name
from hermes_wizard.plan.actions import ChangeAction, KeyringAction
from hermes_wizard.plan.changes import ENV, YAML, Change, Plan

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from hermes_wizard.hermes.loader.catalog import Spec
    from hermes_wizard.judge.engine import HomeReport


@value_class
class KeyringStep(Value):
    """Store or delete one entry; `secret` is the value a STORE writes (None for DELETE)."""

    action: KeyringAction
    variable: str
    service: str
    username: str
    secret: str | None = None

    def __repr__(self) -> str:
        return f"KeyringStep({self.action.value} {self.variable})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, KeyringStep) and (self.action, self.variable, self.service, self.username,
                                                   self.secret) == (other.action, other.variable, other.service,
                                                                    other.username, other.secret)

    def __hash__(self) -> int:
        return hash((self.action, self.variable, self.username))

    def describe(self) -> str:
        where = f"the OS keyring (service {self.service}, user {self.username})"
        if self.action == KeyringAction.STORE:
            return f"store {self.variable} in {where}, then read it back"
        return f"delete {self.variable} from {where}, once the files are written"


def platform_secrets(specs: Mapping[str, Spec]) -> list[str]:
    """Every secret variable the credentials of `specs` (the judged version's platforms) name, in their
    order, once."""
    seen: dict[str, None] = {}
    for spec in specs.values():
        for key in (*spec.credentials, *((spec.token_env,) if spec.token_env else ())):
            if is_secret_name(key):
                seen.setdefault(key)
    return list(seen)


def plan_to_keyring(report: HomeReport, variables: Iterable[str] | None = None) -> Plan:
    """Move `variables` (default: every platform secret set in `.env`) from `.env` to the keyring."""
    values = report.snapshot.env.values
    wanted = variables if variables is not None else platform_secrets(report.model.platforms())
    chosen = {v: values[v] for v in wanted if values.get(v)}
    changes, steps = keyring_changes(report, chosen)
    return Plan.of(report.home, changes).with_keyring(steps)


def keep_in_keyring(report: HomeReport, changes: list[Change]) -> tuple[list[Change], list[KeyringStep]]:
    """`changes` with every platform secret they would write to `.env` kept in the keyring instead (the faces'
    "keep secrets in the OS keyring" choice): the same answers, no plaintext secret written."""
    secrets = set(platform_secrets(report.model.platforms()))
    moved = {c.key: c.after for c in changes if c.file == ENV and c.key in secrets
             and c.action == ChangeAction.SET and c.after}
    kept = [c for c in changes if not (c.file == ENV and c.key in moved)]
    extra, steps = keyring_changes(report, moved)
    return kept + extra, steps


def keyring_changes(report: HomeReport, secrets: dict[str, str]) -> tuple[list[Change], list[KeyringStep]]:
    """Store each of `secrets` ({VARIABLE: value}) in its entry, take it out of `.env` (if there), and make
    config.yaml tell Hermes where it is."""
    if not secrets:
        return [], []
    entries = report.snapshot.env.entries
    held = report.snapshot.keyring.values if report.snapshot.keyring is not None else {}
    plugins = report.snapshot.yaml.mapping().get("plugins")
    listed = plugins.get("enabled") if isinstance(plugins, dict) else None
    changes = [] if isinstance(listed, list) and PLUGIN_NAME in listed else [
        Change(YAML, "plugins.enabled", None, PLUGIN_NAME, ChangeAction.APPEND, None,
               "Hermes loads the plugin that reads the keyring")]
    changes.append(_yaml(report, f"secrets.{SOURCE_NAME}.enabled", "true", "the keyring source is on"))
    steps = []
    for variable, value in secrets.items():
        service, username = entry_for(report.home, variable)
        if held.get(variable) != value:  # an entry holding this value already: nothing to store again
            steps.append(KeyringStep(KeyringAction.STORE, variable, service, username, value))
        if variable in entries:  # whatever the keyring holds, a line in .env would win: it goes
            current = report.snapshot.env.values.get(variable)
            changes.append(Change(ENV, variable, current, None, ChangeAction.REMOVE, _platform_of(report, variable),
                                  "kept in the OS keyring", secret=True))
        changes += [_yaml(report, f"secrets.{SOURCE_NAME}.env.{variable}.service", service, "where it is kept"),
                    _yaml(report, f"secrets.{SOURCE_NAME}.env.{variable}.username", username, "where it is kept")]
    return [c for c in changes if c.before != c.after or c.action != ChangeAction.SET], steps


def plan_to_env(report: HomeReport, variables: Iterable[str] | None = None) -> Plan:
    """Move `variables` (default: every one config.yaml maps to the keyring) back to `.env`."""
    kept = report.snapshot.keyring
    mapped = dict(kept.refs.mapped) if kept is not None else {}
    chosen = [v for v in (variables if variables is not None else sorted(mapped)) if v in mapped]
    changes, steps = [], []
    for variable in chosen:
        service, username = mapped[variable]
        value = keyring_store.read(service, username)
        if value is None:
            continue  # nothing to move (HW501 says so); its mapping stays for the user to decide
        current = report.snapshot.env.values.get(variable)
        changes.append(Change(ENV, variable, current, value, platform=_platform_of(report, variable),
                              reason="moved back from the OS keyring", secret=True))
        changes.append(Change(YAML, f"secrets.{SOURCE_NAME}.env.{variable}", "(mapping)", None,
                              reason="no longer kept in the keyring"))
        if service == SERVICE and username == entry_for(report.home, variable)[1]:
            steps.append(KeyringStep(KeyringAction.DELETE, variable, service, username))
    if changes and set(chosen) >= set(mapped):
        changes.append(_yaml(report, f"secrets.{SOURCE_NAME}.enabled", "false", "no secret is kept there now"))
    return Plan.of(report.home, changes).with_keyring(steps)


def _yaml(report: HomeReport, key: str, value: str, reason: str) -> Change:
    data = report.snapshot.yaml.mapping()
    current = lookup(data, tuple(key.split(".")))
    before = None if current is None else str(current).lower() if isinstance(current, bool) else str(current)
    return Change(YAML, key, before, value, reason=reason)


def _platform_of(report: HomeReport, variable: str) -> str | None:
    return next((name for name, spec in report.model.platforms().items() if variable in spec.credentials), None)
