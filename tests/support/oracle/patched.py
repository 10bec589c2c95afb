"""A real Hermes with one upstream fix applied: a venv that links every file of an oracle venv but the patched ones.

Upstream's fixes for the restart loop were open pull requests when the models were written (PR #57487: the
refusal exits 78; PR #74440: the bad platform is set aside and the gateway starts; PR #110777:
`gateway.allow_all_users` in config.yaml as the opt-in).  hermes-wizard must recognise each by what the
installed code does, never by a version number, so each is simulated by a small patch of the oracle's own
files that does what the pull request describes.  The copy costs a few thousand links, not 300 MB.

`patched_venv(version, dest, {"gateway/run_startup.py": edit})` → dest's python.  `edit(text) -> text` must
change the file (an edit that no longer applies fails loudly: the oracle moved).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

from oracle import venv_dir


def patched_venv(version: str, dest: Path, edits: dict[str, Callable[[str], str]]) -> Path:
    source = venv_dir(version)
    dest.mkdir(parents=True)
    shutil.copy2(source / "pyvenv.cfg", dest / "pyvenv.cfg")
    (dest / "bin").mkdir()
    for entry in (source / "bin").iterdir():
        if entry.name.startswith("python"):
            os.symlink(os.readlink(entry), dest / "bin" / entry.name)
    site = next(source.glob("lib/python3*/site-packages"))
    target = dest / site.relative_to(source)
    _link_tree(site, target, {Path(name) for name in edits})
    for name, edit in edits.items():
        path = target / name
        before = (site / name).read_text(encoding="utf-8")
        after = edit(before)
        assert after != before, f"the patch of {name} no longer applies to Hermes {version}"
        path.unlink()
        path.write_text(after, encoding="utf-8")
    return dest / "bin" / "python"


def _link_tree(source: Path, target: Path, patched: set[Path]) -> None:
    """`target` mirrors `source`: a real folder wherever a patched file lies below, a link to everything else."""
    target.mkdir(parents=True)
    holders = {parent for path in patched for parent in path.parents if parent != Path(".")}
    for entry in source.iterdir():
        relative = Path(entry.name)
        if entry.is_dir() and not entry.is_symlink() and relative in holders:
            _link_tree(entry, target / entry.name, {p.relative_to(relative) for p in patched
                                                   if relative in p.parents})
        else:
            os.symlink(entry, target / entry.name)
