"""Find the Hermes that runs a home, and read its version, without importing or running it.

Where Hermes is looked for, first match wins (the order a user's own setup implies):
  1. `--hermes-python PATH` (or `$HERMES_WIZARD_HERMES_PYTHON`): that interpreter's prefix;
  2. `<home>/hermes-agent/venv`, where Hermes's installer puts it;
  3. the `hermes` on `PATH`: the prefix of the interpreter in its `#!` line (pipx, pip, venvs).
A prefix counts when one of its `lib/python3*/site-packages` holds Hermes's `gateway/config.py`
or its `hermes_agent-*.dist-info`.  Hermes's curl installer makes an *editable* install: the
code stays in the checkout (`~/.hermes/hermes-agent`) and site-packages holds only the
dist-info, whose `direct_url.json` names the checkout; there the version is read from
`hermes_cli/__init__.py` (`__version__`), which a `git pull` keeps current while the dist-info
goes stale.  Otherwise the version is the dist-info's `METADATA` `Version:`, else its name.
Cost: a few stats and small bounded reads, cheap enough for the pre-start gate.  As root on another
user's home, every file is read only if that user could read it (wizard/core/smallfile.py).

`plugin_installed` says whether that Hermes's Python also has this tool's plugin (its keyring source).

Contract: never raises for anything found on disk; `Install.version` is None when Hermes
(or its metadata) was not found.
`json` is imported lazily, only to read an editable install's `direct_url.json`: the gate loads this module,
and on a home without JSON files it never loads json.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

from hermes_wizard.core.homeroot import home_owner
from hermes_wizard.core.pathsearch import which
from hermes_wizard.core.smallfile import read_head, reading_for
from hermes_wizard.core.values import Value

if TYPE_CHECKING:
    from collections.abc import Mapping

DIST_PREFIX = "hermes_agent-"
MAX_METADATA_READ = 64 * 1024  # the Version: header is near the top; a hostile file cannot make us read more
MAX_ENTRY_POINTS_BYTES = 64 * 1024  # a real entry_points.txt is a few hundred bytes


@dataclass(frozen=True, eq=False, repr=False)
class Install(Value):
    """Where the Hermes that runs a home is installed, and its version (None: not found)."""

    version: str | None  # as the metadata spells it, e.g. "0.19.0"; None: not found
    prefix: Path | None  # the venv (or interpreter prefix) Hermes is installed in
    site_packages: Path | None
    code_root: Path | None = None  # where `gateway/` lives: site-packages, or an editable install's checkout


def candidate_prefixes(home: Path, hermes_python: str | None, environ: Mapping[str, str]) -> list[Path]:
    """The interpreter prefixes that may hold Hermes, in the order they are tried."""
    candidates: list[Path] = []
    explicit = hermes_python or environ.get("HERMES_WIZARD_HERMES_PYTHON")
    if explicit:
        candidates.append(Path(explicit).parent.parent)
    candidates.append(home / "hermes-agent" / "venv")
    hermes_bin = which("hermes")  # this process's PATH: the one the user (or the unit) gave us
    if hermes_bin:
        interpreter = _shebang_interpreter(Path(hermes_bin))
        if interpreter is not None:
            candidates.append(interpreter.parent.parent)
    return candidates


def _shebang_interpreter(script: Path) -> Path | None:
    try:
        with open(script, "rb") as handle:
            first = handle.read(256).split(b"\n", 1)[0]
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode(errors="replace").split()
    if not words:
        return None
    if Path(words[0]).name == "env" and len(words) > 1:  # `#!/usr/bin/env python3`: not a venv we can name
        found = which(words[1])
        return Path(found) if found else None
    return Path(words[0])


def find_site_packages(home: Path, hermes_python: str | None, environ: Mapping[str, str]) -> Path | None:
    """The site-packages of the Python that runs Hermes (the first prefix holding Hermes)."""
    for prefix in candidate_prefixes(home, hermes_python, environ):
        if not (prefix / "lib").is_dir():  # the glob would find nothing, after compiling its pattern
            continue
        for site in sorted(prefix.glob("lib/python3*/site-packages")):
            if (site / "gateway" / "config.py").is_file() or _dist_infos(site):
                return site
    return None


def _dist_infos(site: Path) -> list[Path]:
    try:
        return sorted(p for p in site.iterdir() if p.name.startswith(DIST_PREFIX) and p.name.endswith(".dist-info"))
    except OSError:
        return []


def detect(home: Path, hermes_python: str | None = None, environ: Mapping[str, str] | None = None) -> Install:
    """The installed Hermes that runs `home`, and its version.  Root looking at another user's home reads
    the metadata for that user, who runs its gateway (smallfile.reading_for): a METADATA or an editable
    checkout's `__init__.py` linked to a file only root may read is not read, nor its text shown."""
    with reading_for(_owner(home)):
        return _detect(home, hermes_python, environ)


def _owner(home: Path) -> int | None:
    """Whose the home is, as every other reader decides it (wizard/core/homeroot.py); None for a home not made
    yet: nothing of anyone else's to read for."""
    return home_owner(home)


def _detect(home: Path, hermes_python: str | None, environ: Mapping[str, str] | None) -> Install:
    environ = environ if environ is not None else dict(os.environ)
    try:
        site = find_site_packages(home, hermes_python, environ)
    except OSError:
        site = None
    if site is None:
        return Install(None, None, None)
    prefix = site.parent.parent.parent
    checkout = _editable_checkout(site)
    version = _checkout_version(checkout) if checkout is not None else None
    return Install(version or version_in(site), prefix, site, checkout or site)


def _editable_checkout(site: Path) -> Path | None:
    """The checkout an editable install of Hermes points at (its direct_url.json), if it holds the code."""
    import json

    for info in _dist_infos(site):
        raw = _head(info / "direct_url.json")
        try:
            data = json.loads(raw.decode("utf-8")) if raw else None
        except (ValueError, UnicodeDecodeError, RecursionError):
            continue
        if not isinstance(data, dict) or not (data.get("dir_info") or {}).get("editable"):
            continue
        url = data.get("url")
        if isinstance(url, str) and url.startswith("file://"):
            checkout = Path(unquote(url[len("file://"):]))
            if (checkout / "gateway" / "config.py").is_file():
                return checkout
    return None


def _checkout_version(checkout: Path) -> str | None:
    match = re.search(rb"""^__version__\s*=\s*["']([^"'\n]+)["']""", _head(checkout / "hermes_cli" / "__init__.py"),
                      re.M)
    return _printable(match.group(1).decode("ascii", "replace")) if match else None


def _head(path: Path) -> bytes:
    return read_head(path, MAX_METADATA_READ)  # in the home's own venv: a FIFO there is not waited on


def version_in(site: Path) -> str | None:
    """The `Version:` of the hermes-agent distribution installed in `site`, or None."""
    for info in _dist_infos(site):
        head = _head(info / "METADATA")
        for raw in head.split(b"\n"):
            if not raw.strip():
                break  # end of the headers
            if raw.lower().startswith(b"version:"):
                return _printable(raw.split(b":", 1)[1].strip().decode("ascii", "replace"))
        name = info.name[len(DIST_PREFIX):-len(".dist-info")]
        if name:
            return _printable(name)
    return None


def _printable(text: str) -> str:
    """A version string from disk, reduced to what a version can contain (it reaches terminals)."""
    return "".join(ch for ch in text if ch.isalnum() or ch in ".+-_!")[:64] or "?"


def plugin_installed(site_packages: Path | None) -> bool | None:
    """Whether Hermes's Python has hermes-wizard's plugin entry point (None: Hermes's Python is unknown)."""
    if site_packages is None:
        return None
    try:
        for dist in site_packages.glob("hermes_wizard-*.dist-info"):
            # Hermes's venv may lie in the home (its owner's files): bounded, a FIFO never waited on.
            if b"[hermes_agent.plugins]" in read_head(dist / "entry_points.txt", MAX_ENTRY_POINTS_BYTES):
                return True
    except OSError:
        return None
    return False
