"""Snapshot: everything on disk that decides what the gateway does, read once.

`take_snapshot(home)` reads `.env`, `config.yaml`, legacy `gateway.json`, `.op.env`,
the managed scope (`$HERMES_MANAGED_DIR` or `/etc/hermes`), the small runtime
files, and whether the pairing store Hermes builds at start raises (its folders and merge only).
Credential state (WhatsApp session, Weixin accounts, pairing store) is read lazily by
`hermes_wizard.hermes.loader.credentials`, because where to look depends on resolved config.

Contract: read-only, never imports Hermes, never raises for file content.  The pre-start gate loads this module
before every start, so two imports wait, lazily, for the homes that need them: `json` when a JSON file exists,
and the keyring readers (read/keyring_read.py and what it imports: ~0.4 ms) when config.yaml has `secrets:`.
The gate asks for no runtime files (`runtime=False`): what the last runs left (gateway_state.json, the starts
log) tells how the gateway has been doing, never whether it starts, and reading it would load `json` (~1 ms)
before every start of a home that has run once.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from hermes_wizard.core.smallfile import read_as_stated
from hermes_wizard.hermes.access.pairing_store import start_crash
from hermes_wizard.hermes.loader.envfile import EnvFile, read_env_file
from hermes_wizard.hermes.loader.inputs import JsonFile, Snapshot, StartsLog
from hermes_wizard.hermes.loader.yamlfile import ParsedYaml, YamlFile, read_yaml_file
from hermes_wizard.hermes.models import model_for

if TYPE_CHECKING:
    from collections.abc import Mapping

    from hermes_wizard.hermes.loader.secret_sources import KeyringSecrets
    from hermes_wizard.hermes.model import Model

MAX_SMALL_FILE = 1024 * 1024


def read_json_file(path: Path, content: bytes | None = None) -> JsonFile:
    """Read `path` (or `content`, a planned version of it) as Hermes's `json.load` does."""
    mode = None
    if content is None:
        try:
            st = path.stat()
        except FileNotFoundError:
            return JsonFile(path)
        except OSError as exc:
            return JsonFile(path, True, error=f"cannot stat: {exc.strerror or exc}")
        size, mode = st.st_size, stat.S_IMODE(st.st_mode)
        if not stat.S_ISREG(st.st_mode):
            why = "is a directory" if stat.S_ISDIR(st.st_mode) else "is not a regular file"
            return JsonFile(path, True, error=why, size=size, mode=mode)
        if st.st_size > MAX_SMALL_FILE:
            return JsonFile(path, True, error=f"is {st.st_size} bytes, too large to be what Hermes writes",
                            size=size, mode=mode)
    else:
        size = len(content)
    data, error = None, None
    try:
        text = (read_as_stated(path, st, MAX_SMALL_FILE) if content is None else content).decode("utf-8")
        import json  # lazily: see the module doc

        data = json.loads(text) if text.strip() else None
        if data is None:
            error = "is empty"
    except RecursionError:  # thousands of nested brackets: Hermes's json.load raises too and skips the file
        error = "is nested too deeply to be read as JSON (RecursionError, as in Hermes)"
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        error = f"is not valid JSON ({exc.__class__.__name__}: {exc})"
    return JsonFile(path, True, data, error, size, mode)


def read_starts_log(path: Path) -> StartsLog:
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_SMALL_FILE:
            return StartsLog(exists=True)
        text = read_as_stated(path, st, MAX_SMALL_FILE).decode("utf-8", errors="replace")
    except OSError:
        return StartsLog(exists=path.exists())
    starts, garbage = [], 0
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            starts.append(float(line))
        except ValueError:
            garbage += 1
    return StartsLog(True, tuple(starts), garbage)


def _kept_in_keyring(yaml: YamlFile, home: Path, mode: str, planned: dict[str, str] | None
                     ) -> KeyringSecrets | None:
    data = yaml.data if yaml.exists and yaml.error is None else None
    if not (isinstance(data, dict) and isinstance(data.get("secrets"), dict)):
        return None  # the common case: the keyring readers are not even imported
    from hermes_wizard.read.keyring_read import read_keyring  # lazily: see the module doc

    return read_keyring(data, home, mode, planned)


def managed_dir_for(environ: dict[str, str]) -> Path:
    return Path(environ.get("HERMES_MANAGED_DIR") or "/etc/hermes")


def take_snapshot(home: Path, profile: str = "default", base_env: Mapping[str, str] | None = None,
                  overrides: dict[str, bytes] | None = None, model: Model | None = None, *,
                  keyring: str = "read", keyring_planned: dict[str, str] | None = None,
                  runtime: bool = True, parsed: ParsedYaml | None = None,
                  modes: Mapping[str, int] | None = None) -> Snapshot:
    """Read one home.  `base_env` is the environment the gateway process would
    inherit (empty by default: a home is judged by its files).  `overrides` maps
    ".env" / "config.yaml" / "gateway.json" to contents that stand in for the files on disk.  `model`
    is the Hermes version whose `.env` loading decides (default: the newest modelled).  `keyring` and
    `keyring_planned` say how secrets mapped to the OS keyring are found (wizard/read/keyring_read.py).
    `runtime=False` leaves the runtime files unread (as absent): for a verdict on the start alone.  `parsed`:
    the judging session's parses of config.yaml, reused for the same bytes; `modes`: the modes a plan sets
    (".env": 0o600), as the files will have them."""
    base_env = dict(base_env or {})
    overrides = overrides or {}
    managed_dir = managed_dir_for(base_env or dict(os.environ))
    model = model if model is not None else model_for(None)  # the newest modelled, when no version is named
    loads_op_env = model.loads_op_env
    yaml = read_yaml_file(home / "config.yaml", overrides.get("config.yaml"), parsed)
    return Snapshot(
        home=home,
        profile=profile,
        env=read_env_file(home / ".env", base_env, overrides.get(".env"), model=model,
                          mode=(modes or {}).get(".env")),
        yaml=yaml,
        gateway_json=read_json_file(home / "gateway.json", overrides.get("gateway.json")),
        op_env=read_env_file(home / ".op.env", base_env, model=model) if loads_op_env else EnvFile(home / ".op.env"),
        managed_env=read_env_file(managed_dir / ".env", base_env, model=model),
        managed_dir=managed_dir,
        runtime_state=read_json_file(home / "gateway_state.json") if runtime
        else JsonFile(home / "gateway_state.json"),
        starts_log=read_starts_log(home / "gateway-starts.log") if runtime else StartsLog(),
        base_env=MappingProxyType(base_env),  # the copy made above, shared with no one
        keyring=_kept_in_keyring(yaml, home, keyring, keyring_planned),
        pairing_crash=start_crash(home, model.pairing_store_merges),
    )
