"""Which folder Hermes 0.17.0's gateway keeps its pairing store in: `<home>/pairing` whenever it exists.

0.17.0 picks the folder once, when `gateway.pairing` is first imported (`PAIRING_DIR`, gateway/pairing.py:52:
`get_hermes_dir("platforms/pairing", "pairing")`, the legacy folder whenever it *exists*, hermes_constants.py:
224-242).  The gateway first imports it in `GatewayRunner.__init__` (gateway/run.py:2629), after the runner
has loaded config.yaml through `load_config()`, which runs `ensure_hermes_home()` (hermes_cli/config.py:
830-853): outside managed mode it makes `cron`, `sessions`, `logs`, `logs/curator`, `memories`, `pairing`, ...
in that order, and stops at the first it cannot make (its callers swallow the error).  So the store is
`<home>/pairing` — empty on a home that never had one — and approvals kept only in `platforms/pairing` (where
0.18 and later keep them) are never read, unless:

* managed mode (`HERMES_MANAGED` set in the environment, `.env` included, or a `.managed` file in the home:
  config.py:318-340) makes nothing, or an earlier folder cannot be made (`cron` is a file): then `pairing`
  is used only when it exists already;
* `pairing` cannot be made itself: a dangling link (not there for `exists()`: `platforms/pairing`), a file
  (there: the store cannot open it, and the gateway crashes — `AccessFiles.crash`).

Contract: pure; reads the home's metadata only (never follows a link out of it to write, never raises).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

# ensure_hermes_home's folders up to the pairing store's, in its order
MADE_FIRST = ("cron", "sessions", "logs", "logs/curator", "memories", "pairing")


def store_folder(home: Path, environ: Mapping[str, str]) -> Path:
    """The folder 0.17.0's gateway opens its pairing store in (`environ`: the gateway's, after `.env`)."""
    legacy = home / "pairing"
    if not _managed(home, environ) and all(_can_make(home, name) for name in MADE_FIRST):
        return legacy
    return legacy if _exists(legacy) else home / "platforms" / "pairing"


def _managed(home: Path, environ: Mapping[str, str]) -> bool:
    return bool(environ.get("HERMES_MANAGED", "").strip()) or _exists(home / ".managed")


def _can_make(home: Path, name: str) -> bool:
    """Would `(home / name).mkdir(parents=True, exist_ok=True)` succeed?  (A folder, or a link to one, is
    there already; or nothing is there and its parent can be made.  Permissions are not judged.)"""
    path = home / name
    if os.path.isdir(path):
        return True
    if os.path.lexists(path):
        return False  # a file, or a link to nowhere or to a file
    return "/" not in name or _can_make(home, name.rsplit("/", 1)[0])


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:
        return False
