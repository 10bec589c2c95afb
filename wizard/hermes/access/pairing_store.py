"""Hermes's pairing store on disk: which folder it uses, how each of its JSON files reads, and whether building
it raises — which stops the gateway's start, as `GatewayRunner.__init__` builds it (`PairingStore()`).

Hermes 0.18.2 and 0.19.0 (identical code, `gateway/pairing.py`, `hermes_constants.get_hermes_dir`):
`<home>/pairing/` when that legacy folder exists with content, else `<home>/platforms/pairing/`; building
the store makes that folder (`mkdir(parents=True, exist_ok=True)`: a file in its place raises), then merges
every `*.json` of the other folder into it (`_merge_pairing_dir`: a non-empty object; the active file's keys
win).  0.17.0: the legacy folder whenever it exists, nothing merged.

A file reads as Hermes's readers read it (`read_file`): {} when absent, unreadable (to the home's owner:
wizard/core/smallfile.py) or not JSON; what escapes them is a crash, said without the file's content — a file
that is not UTF-8 (UnicodeDecodeError), one nested deeper than the JSON decoder's recursion budget where it
reads it (RecursionError: wizard/core/deepjson.py), a number too long to convert (ValueError).  The merge
catches only JSONDecodeError and OSError, so at start-up such a file in either folder stops the gateway.

Contract: never raises, never writes.  `json` and the decoder's depth rule are imported lazily, only where a
file is read: the pre-start gate asks `start_crash` of every home, and on a home with one pairing folder
(every home since 0.18) that reads no file at all.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from hermes_wizard.core.smallfile import read_regular
from hermes_wizard.core.values import Value, value_class

MAX_STORE_BYTES = 4 * 1024 * 1024
MAX_JSON_FILES = 20_000  # pairing files looked at per folder
# The arrays and objects Hermes's JSON decoder enters before its recursion budget runs out where it reads these
# files (wizard/core/deepjson.py), measured with Hermes 0.19.0 on CPython 3.11 (tests/conformance/
# test_deep_pairing.py): asked for a message (`_is_user_authorized` -> `PairingStore._load_json`, called as the
# oracle calls it: a live gateway's message path runs some frames deeper, so a file within a few levels of this
# may already raise there), and at start-up (the merge in `PairingStore()`, in the real `hermes gateway run`).
AUTHORIZING_BUDGET, STARTING_BUDGET = 990, 974


@value_class
class Parsed(Value):
    """One JSON file as Hermes's `_load_json` sees it: `data`, or `crash` (Hermes raises)."""

    path: Path
    data: Any = None  # {} when absent or unparsable (Hermes's fallback)
    crash: str | None = None


def read_file(path: Path, limit: int = MAX_STORE_BYTES, budget: int = AUTHORIZING_BUDGET) -> Parsed:
    """Hermes's `PairingStore._load_json` (and the merge's `_load_json_file`), see the module doc."""
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
    import json  # lazily: see the module doc

    from hermes_wizard.core import deepjson

    try:
        return Parsed(path, deepjson.loads(text, budget))
    except (deepjson.TooDeep, RecursionError):
        return Parsed(path, {}, crash=f"{path.name} is nested deeper than Hermes's JSON reader goes there ({budget} "
                                      "arrays and objects): Hermes raises RecursionError")
    except json.JSONDecodeError:
        return Parsed(path, {})
    except ValueError:  # not a JSONDecodeError: a number of more digits than int() converts
        return Parsed(path, {}, crash=f"{path.name} holds a number Hermes's JSON reader cannot convert "
                                      "(Hermes raises ValueError)")


def folders(home: Path, merges: bool = True) -> tuple[Path, Path]:
    """(the folder the store uses, the other one)."""
    old, new = home / "pairing", home / "platforms" / "pairing"
    active = hermes_dir(home, "platforms/pairing", "pairing") if merges else (old if old.exists() else new)
    return active, (new if active == old else old)


def merges_from(active: Path, alternate: Path) -> bool:
    """Whether building the store merges `alternate` into `active` (it exists and is another folder)."""
    return alternate.is_dir() and _real(alternate) != _real(active)


def merged(active: Path, alternate: Path) -> tuple[dict[str, Parsed], str | None]:
    """What `_merge_pairing_dir` leaves in `active` ({file name: its content}), and why it raises (or None)."""
    out: dict[str, Parsed] = {}
    for path in json_files(alternate):
        if not path.is_file():
            continue
        other = read_file(path, budget=STARTING_BUDGET)
        mine = read_file(active / path.name, budget=STARTING_BUDGET) if isinstance(other.data, dict) and \
            other.data and not other.crash else None
        crash = other.crash or (mine.crash if mine is not None else None)
        if crash:
            return out, f"{crash}, while the pairing store merges {path.parent}: the gateway crashes at start"
        if mine is not None:
            current = mine.data if isinstance(mine.data, dict) else {}
            out[path.name] = Parsed(active / path.name, {**other.data, **current})
    return out, None


def start_crash(home: Path, merges: bool = True) -> str | None:
    """Why building the pairing store raises (the gateway crashes at start), or None."""
    active, alternate = folders(Path(home), merges)
    crash = cannot_make(active)
    if crash is None and merges and merges_from(active, alternate):
        crash = merged(active, alternate)[1]
    return crash


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


def json_files(folder: Path, limit: int = MAX_JSON_FILES) -> list[Path]:
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


def cannot_make(folder: Path) -> str | None:
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
