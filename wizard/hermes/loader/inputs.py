"""The loader's input: one home as it was read (`Snapshot`), and the shapes of the files in it.

`Model.resolve` (wizard/hermes/model.py) takes a `Snapshot` and reproduces what Hermes would build from it.
The type lives here, beside the loader that consumes it, so the model of Hermes names its own input; the
read layer (wizard/read/snapshot.py `take_snapshot`) reads a home's files and builds it.  `.env` and
config.yaml are read by Hermes's own rules, so their shapes and readers sit beside this (envfile.py,
yamlfile.py); the JSON files and the starts log here are plain files, read by wizard/read/snapshot.py.

Contract: values only; nothing here reads a file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hermes_wizard.core.values import Value, value_class

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from hermes_wizard.hermes.loader.envfile import EnvFile
    from hermes_wizard.hermes.loader.secret_sources import KeyringSecrets
    from hermes_wizard.hermes.loader.yamlfile import YamlFile


@value_class
class JsonFile(Value):
    """A JSON file as Hermes's `json.load` reads it: its data, or why it could not."""

    path: Path
    exists: bool = False
    data: Any = None
    error: str | None = None
    size: int = 0
    mode: int | None = None


@value_class
class StartsLog(Value):
    """`gateway-starts.log`: one UNIX timestamp per gateway start (last 40 kept)."""

    exists: bool = False
    starts: tuple[float, ...] = ()
    garbage_lines: int = 0


@value_class
class Snapshot(Value):
    """What was on disk for one Hermes home at the time of reading."""

    home: Path
    profile: str  # "default" for the root home
    env: EnvFile
    yaml: YamlFile
    gateway_json: JsonFile
    op_env: EnvFile
    managed_env: EnvFile
    managed_dir: Path
    runtime_state: JsonFile
    starts_log: StartsLog
    base_env: Mapping[str, str]  # read-only (a MappingProxyType over take_snapshot's own copy)
    keyring: KeyringSecrets | None = None  # secrets config.yaml keeps in the OS keyring (None: no `secrets:`)
    pairing_crash: str | None = None  # why building the pairing store raises at start (pairing_store.start_crash)

    @property
    def beyond_bounds(self) -> str | None:
        """Why a file Hermes loads at start is more than this tool judges (JUDGED_ENV_*, JUDGED_YAML_NODES),
        or None: then no verdict is given, only that ("cannot judge")."""
        for read in (self.env, self.op_env, self.managed_env, self.yaml):
            if read.beyond_bounds is not None:
                return read.beyond_bounds
        return None
