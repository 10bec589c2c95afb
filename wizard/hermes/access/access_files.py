"""The files Hermes's authorization reads from a home, read here as data (never written).

Hermes 0.18.2 and 0.19.0 read (identical code in both, `gateway/pairing.py`,
`gateway/whatsapp_identity.py`, `hermes_constants.get_hermes_dir`; 0.17.0's store: `read_access_files`):

* the pairing store: `<home>/pairing/` when that legacy folder exists with content, else
  `<home>/platforms/pairing/`.  Constructing the store merges every `*.json` of the other
  folder into the active one (a non-empty JSON object; the active file's keys win, and an
  active file that is not an object is replaced by the merge).  `is_approved` then iterates
  whatever `<platform>-approved.json` parses to (an object's keys, a list's items, a string's
  characters); a file that does not parse counts as empty.
* WhatsApp's alias files: `lid-mapping-<id>.json` and `lid-mapping-<id>_reverse.json` in
  `whatsapp/session/` (legacy, when it has content) or `platforms/whatsapp/session/`.

Contract: `read_access_files(home)` never raises and never writes; every read goes through
`hermes_wizard.core.smallfile` (bounded, never a FIFO, as the home's owner could).  What Hermes would
crash on (a file that is not UTF-8) is kept as an error string, so the model can say so.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_wizard.core.smallfile import read_regular, reading_for
from hermes_wizard.core.values import Compared, Value

MAX_STORE_BYTES = 4 * 1024 * 1024
MAX_JSON_FILES = 20_000  # pairing files looked at per folder
MAX_ALIAS_BYTES = 64 * 1024  # an alias file holds one JSON string


@dataclass(frozen=True, eq=False, repr=False)
class Parsed(Value):
    """One JSON file as Hermes's `_load_json` sees it: `data`, or `crash` (Hermes raises)."""

    path: Path
    data: Any = None  # {} when absent or unparsable (Hermes's fallback)
    crash: str | None = None


@dataclass(eq=False, repr=False)
class AccessFiles(Compared):
    """A home's pairing store and WhatsApp alias files as Hermes's `PairingStore` would read them, read as the
    home's owner could; alias files are read on first use."""

    pairing_dir: Path
    approved: dict[str, Parsed] = field(default_factory=dict)  # platform -> what is_approved iterates
    pending: dict[str, Parsed] = field(default_factory=dict)  # platform -> the pending requests file
    rate_limits: Parsed | None = None
    session_dir: Path | None = None  # WhatsApp's bridge session folder (its alias files)
    owner: int | None = None  # read alias files as this user could (root judging another user's home)
    aliases: dict[str, Parsed | None] = field(default_factory=dict)  # "lid-mapping-<id><suffix>" -> its JSON, once read
    merged_from: Path | None = None  # the other folder whose files the store merges in
    crash: str | None = None  # Hermes cannot even open the store (its folder cannot be made): the gateway crashes

    def approved_for(self, platform: str) -> Parsed:
        return self.approved.get(platform) or Parsed(self.pairing_dir / f"{platform}-approved.json", {})

    def alias(self, stem: str) -> Parsed | None:
        """`<session>/<stem>.json` as Hermes reads it when asked (None when absent), read once, on demand:
        a bridge session folder holds thousands of other files, and Hermes opens only the ones it needs."""
        if stem not in self.aliases:
            path = self.session_dir / f"{stem}.json" if self.session_dir is not None else None
            if path is None or not path.exists():
                self.aliases[stem] = None
            else:
                with reading_for(self.owner):
                    self.aliases[stem] = _load(path, MAX_ALIAS_BYTES)
        return self.aliases[stem]


def hermes_dir(home: Path, new: str, old: str) -> Path:
    """`get_hermes_dir`: the legacy folder when it has content, else the new one."""
    return home / old if _legacy_has_content(home / old) else home / new


def _legacy_has_content(path: Path) -> bool:
    try:
        st = path.lstat()
    except FileNotFoundError:
        return False
    except OSError:
        return True
    if stat.S_ISLNK(st.st_mode):
        try:
            target = path.stat()
        except FileNotFoundError:
            return False
        except OSError:
            return True
        if not stat.S_ISDIR(target.st_mode):
            return True
    elif not stat.S_ISDIR(st.st_mode):
        return True
    try:
        with os.scandir(path) as entries:
            return next(entries, None) is not None
    except OSError:
        return True


def _load(path: Path, limit: int = MAX_STORE_BYTES) -> Parsed:
    """Hermes's `PairingStore._load_json`: {} when absent or invalid; UTF-8 errors escape it."""
    try:
        raw = read_regular(path, limit)
    except OSError:  # Hermes: PermissionError and every OSError read as {} (a FIFO: we never open it)
        return Parsed(path, {})
    if raw is None:
        return Parsed(path, {})
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return Parsed(path, {}, crash=f"{path.name} is not UTF-8 (Hermes raises UnicodeDecodeError)")
    try:
        return Parsed(path, json.loads(text))
    except ValueError:
        return Parsed(path, {})


def _json_files(folder: Path, limit: int) -> list[Path]:
    try:
        with os.scandir(folder) as entries:
            names = []
            for entry in entries:
                if entry.name.endswith(".json"):
                    names.append(entry.name)
                    if len(names) >= limit:
                        break
    except OSError:
        return []
    return [folder / name for name in sorted(names)]


def read_access_files(home: Path, owner: int | None = None, *, merges: bool = True,
                      folder: Path | None = None) -> AccessFiles:
    """The pairing store now; WhatsApp's alias files later, on demand, read as `owner` could.

    `merges=False` is Hermes 0.17.0's store (gateway/pairing.py:52-104): the `folder` its gateway opens
    (`v0_17.pairing_store`), nothing merged from the other folder, and the alias files always in
    `whatsapp/session/` (gateway/whatsapp_identity.py:85)."""
    home = Path(home)
    old, new = home / "pairing", home / "platforms" / "pairing"
    active = folder if folder is not None else hermes_dir(home, "platforms/pairing", "pairing")
    alternate = new if active == old else old
    files = AccessFiles(pairing_dir=active, owner=owner)
    files.crash = _cannot_make(active)
    for path in _json_files(active, MAX_JSON_FILES):
        _file_into(files, path.name, _load(path))
    if not merges:
        files.session_dir = home / "whatsapp" / "session"
        return files
    if alternate.is_dir() and _real(alternate) != _real(active):
        files.merged_from = alternate
        for path in _json_files(alternate, MAX_JSON_FILES):
            if not path.is_file():
                continue
            other = _load(path)
            if other.crash or not isinstance(other.data, dict) or not other.data:
                continue
            mine = _load(active / path.name)
            current = mine.data if isinstance(mine.data, dict) else {}
            _file_into(files, path.name, Parsed(active / path.name, {**other.data, **current}, mine.crash))
    files.session_dir = hermes_dir(home, "platforms/whatsapp/session", "whatsapp/session")
    return files


def _cannot_make(folder: Path) -> str | None:
    """Why `folder.mkdir(parents=True, exist_ok=True)` (PairingStore.__init__) would raise, or None."""
    probe = folder
    while True:
        try:
            if not os.path.isdir(probe):
                if os.path.lexists(probe):
                    return (f"{probe} is not a folder: Hermes cannot create its pairing store there "
                            "(FileExistsError), so the gateway crashes at start")
            else:
                return None
        except OSError:
            return None
        if probe.parent == probe:
            return None
        probe = probe.parent


def _real(path: Path) -> str:
    try:
        return os.path.realpath(path)
    except OSError:
        return str(path)


def _file_into(files: AccessFiles, name: str, parsed: Parsed) -> None:
    if name == "_rate_limits.json":
        files.rate_limits = parsed
    elif name.endswith("-approved.json"):
        files.approved[name[: -len("-approved.json")]] = parsed
    elif name.endswith("-pending.json"):
        files.pending[name[: -len("-pending.json")]] = parsed
