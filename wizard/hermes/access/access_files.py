"""The files Hermes's authorization reads from a home, read here as data (never written).

Hermes 0.18.2 and 0.19.0 read (identical code in both, `gateway/pairing.py`,
`gateway/whatsapp_identity.py`, `hermes_constants.get_hermes_dir`; 0.17.0's store: `read_access_files`):

* the pairing store (its folders, its files and its merge: wizard/hermes/access/pairing_store.py), the
  active folder's files merged as construction leaves them.  `is_approved` then iterates whatever
  `<platform>-approved.json` parses to (an object's keys, a list's items, a string's characters); a file that
  does not parse counts as empty, and one Hermes's reader raises on is an error for that message
  (`_load_json` catches only PermissionError, JSONDecodeError and OSError).
* WhatsApp's alias files: `lid-mapping-<id>.json` and `lid-mapping-<id>_reverse.json` in
  `whatsapp/session/` (legacy, when it has content) or `platforms/whatsapp/session/`.

Contract: `read_access_files(home)` never raises and never writes; every read goes through
`hermes_wizard.core.smallfile` (bounded, never a FIFO, as the home's owner could).  What Hermes would
crash on is kept as an error string (`Parsed.crash`, `AccessFiles.crash`), so the model can say so.
"""

from __future__ import annotations

from dataclasses import field
from pathlib import Path

from hermes_wizard.core.smallfile import reading_for
from hermes_wizard.core.values import Compared, compared_class
from hermes_wizard.hermes.access.pairing_store import (
    MAX_JSON_FILES,
    Parsed,
    cannot_make,
    folders,
    hermes_dir,
    json_files,
    merged,
    merges_from,
    read_file,
)

MAX_ALIAS_BYTES = 64 * 1024  # an alias file holds one JSON string


@compared_class
class AccessFiles(Compared):
    """A home's pairing store and WhatsApp alias files as Hermes's `PairingStore` would read them, read as the
    home's owner could; alias files are read on first use."""

    pairing_dir: Path
    approved: dict[str, Parsed] = field(default_factory=dict)  # platform -> what is_approved iterates
    pending: dict[str, Parsed] = field(default_factory=dict)  # platform -> the pending requests file
    session_dir: Path | None = None  # WhatsApp's bridge session folder (its alias files)
    owner: int | None = None  # read alias files as this user could (root judging another user's home)
    aliases: dict[str, Parsed | None] = field(default_factory=dict)  # "lid-mapping-<id><suffix>" -> its JSON, once read
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
                    self.aliases[stem] = read_file(path, MAX_ALIAS_BYTES)
        return self.aliases[stem]


def read_access_files(home: Path, owner: int | None = None, *, merges: bool = True,
                      folder: Path | None = None) -> AccessFiles:
    """The pairing store now; WhatsApp's alias files later, on demand, read as `owner` could.

    `merges=False` is Hermes 0.17.0's store (gateway/pairing.py:52-104): the `folder` its gateway opens
    (`v0_17.pairing_store`), nothing merged from the other folder, and the alias files always in
    `whatsapp/session/` (gateway/whatsapp_identity.py:85)."""
    home = Path(home)
    active, alternate = folders(home, merges)
    if folder is not None:  # the version's own choice of folder (0.17.0: v0_17.pairing_store)
        active, alternate = folder, (alternate if folder == active else active)
    files = AccessFiles(pairing_dir=active, owner=owner)
    files.crash = cannot_make(active)
    for path in json_files(active, MAX_JSON_FILES):
        _file_into(files, path.name, read_file(path))
    if not merges:
        files.session_dir = home / "whatsapp" / "session"
        return files
    if merges_from(active, alternate):
        leaves, crash = merged(active, alternate)
        for name, parsed in leaves.items():
            _file_into(files, name, parsed)
        files.crash = files.crash or crash
    files.session_dir = hermes_dir(home, "platforms/whatsapp/session", "whatsapp/session")
    return files


def _file_into(files: AccessFiles, name: str, parsed: Parsed) -> None:
    if name.endswith("-approved.json"):
        files.approved[name[: -len("-approved.json")]] = parsed
    elif name.endswith("-pending.json"):
        files.pending[name[: -len("-pending.json")]] = parsed
