"""The secrets a home keeps in the OS keyring: which variables it maps there and what the keyring holds.

Modes (what each caller may afford):
- "read": ask the keyring (the check, doctor and preview paths).  A home that maps nothing never imports
  `keyring`.  An entry that is absent is listed in `missing`; a keyring that cannot be read here (none, locked,
  no D-Bus session) sets `unreadable`, and every mapped variable is then assumed present.
- "assume": never touch the keyring (the pre-start gate: it must not hang on D-Bus or block a start because a
  keyring is locked); every mapped variable is assumed present.
`planned` stands in for entries a plan will store (a preview judges the home as it will be).

Contract: never raises; secret values live only in `values` (callers register them for masking).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hermes_wizard.core import keyring_store
from hermes_wizard.core.frozenmap import FrozenMap
from hermes_wizard.hermes.loader.secret_sources import KeyringSecrets, keyring_refs

ASSUMED = "keyring-entry"  # stands in for a value that could not (or must not) be read


def read_keyring(data: Any, home: Path, mode: str = "read", planned: dict[str, str] | None = None
                 ) -> KeyringSecrets:
    """`home`'s mapped secrets; only its own entries are read (a mapping naming another is `refs.foreign`)."""
    refs = keyring_refs(data, home)
    planned = planned or {}
    to_read = {var: entry for var, entry in refs.mapped.items() if var not in planned}
    values = {var: value for var, value in planned.items() if var in refs.mapped}
    if mode == "assume":
        values.update(dict.fromkeys(to_read, ASSUMED))
        to_read = {}
    missing: list[str] = []
    for variable, (service, username) in to_read.items():
        try:
            value = keyring_store.read(service, username)
        except keyring_store.KeyringUnavailable as exc:
            values.update({var: ASSUMED for var in to_read if var not in values and var not in missing})
            return KeyringSecrets(refs, FrozenMap(values), tuple(missing), str(exc))
        if value:
            values[variable] = value
        else:
            missing.append(variable)
    return KeyringSecrets(refs, FrozenMap(values), tuple(missing))
