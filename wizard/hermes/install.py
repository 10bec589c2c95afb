"""Find the Hermes that runs a home, and read its version, without importing or running it.

Where Hermes is looked for, first match wins (the order a user's own setup implies):
  1. `--hermes-python PATH` (or `$HERMES_WIZARD_HERMES_PYTHON`): that interpreter's prefix;
  2. `<home>/hermes-agent/venv`, where Hermes's installer puts it;
  3. the `hermes` on `PATH`: the prefix of the interpreter in its `#!` line (pipx, pip, venvs).
A prefix counts when one of its `lib/python3*/site-packages` holds Hermes's `gateway/config.py`.
The version comes from that site-packages' `hermes_agent-<version>.dist-info/METADATA`
(`Version:`), falling back to the dist-info's name.  Cost: a few stats and one small read,
cheap enough for the pre-start gate.

Contract: never raises for anything found on disk; `Install.version` is None when Hermes
(or its metadata) was not found.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from wizard.records import record

DIST_PREFIX = "hermes_agent-"
MAX_METADATA_READ = 64 * 1024  # the Version: header is near the top; a hostile file cannot make us read more


@record
class Install:
    version: str | None  # as the metadata spells it, e.g. "0.19.0"; None: not found
    prefix: Path | None  # the venv (or interpreter prefix) Hermes is installed in
    site_packages: Path | None


def candidate_prefixes(home: Path, hermes_python: str | None, environ: dict) -> list[Path]:
    """The interpreter prefixes that may hold Hermes, in the order they are tried."""
    candidates: list[Path] = []
    explicit = hermes_python or environ.get("HERMES_WIZARD_HERMES_PYTHON")
    if explicit:
        candidates.append(Path(explicit).parent.parent)
    candidates.append(home / "hermes-agent" / "venv")
    hermes_bin = shutil.which("hermes")  # this process's PATH: the one the user (or the unit) gave us
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
        found = shutil.which(words[1])
        return Path(found) if found else None
    return Path(words[0])


def find_site_packages(home: Path, hermes_python: str | None, environ: dict) -> Path | None:
    """The site-packages of the Python that runs Hermes (the first prefix holding Hermes)."""
    for prefix in candidate_prefixes(home, hermes_python, environ):
        for site in sorted(prefix.glob("lib/python3*/site-packages")):
            if (site / "gateway" / "config.py").is_file():
                return site
    return None


def detect(home: Path, hermes_python: str | None = None, environ: dict | None = None) -> Install:
    """The installed Hermes that runs `home`, and its version."""
    environ = environ if environ is not None else dict(os.environ)
    try:
        site = find_site_packages(home, hermes_python, environ)
    except OSError:
        site = None
    if site is None:
        return Install(None, None, None)
    prefix = site.parent.parent.parent
    return Install(version_in(site), prefix, site)


def version_in(site: Path) -> str | None:
    """The `Version:` of the hermes-agent distribution installed in `site`, or None."""
    try:
        infos = sorted(p for p in site.iterdir() if p.name.startswith(DIST_PREFIX) and p.name.endswith(".dist-info"))
    except OSError:
        return None
    for info in infos:
        try:
            with open(info / "METADATA", "rb") as handle:
                head = handle.read(MAX_METADATA_READ)
        except OSError:
            head = b""
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
