"""Every repo path a docstring, comment or script names exists, and nothing points outside the repo.

A moved module leaves its old path in the docstrings that cite it ("see wizard/hermes/v0_XX/envfile.py"),
and a reader following it finds nothing; the research notes in ../shared/reference are not in a clone at
all.  Paths are recognised by their first folder (wizard/, screens/, tests/, scripts/, benchmarks/,
assets/, .ci/); a placeholder (`v<major>_<minor>`, `v0_XX`, `*`, `{...}`) is not a path.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NAMED_PATH = re.compile(r"(?<![\w./-])((?:wizard|screens|tests|scripts|benchmarks|assets|\.ci)/[\w./-]*\w)(?![\w<*{])")


def _texts() -> list[Path]:
    found = [REPO / "README.md", REPO / "pyproject.toml", REPO / "setup.py", *(REPO / "scripts").glob("*"),
             *(REPO / ".ci").glob("*")]
    for folder in ("wizard", "screens", "tests", "benchmarks"):
        found += [p for p in (REPO / folder).rglob("*.py") if "__snapshots__" not in p.parts]
    return [p for p in found if p.is_file()]


def test_every_named_repo_path_exists():
    missing = [f"{path.relative_to(REPO)}:{number}: {match.group(1)}"
               for path in _texts()
               for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
               for match in NAMED_PATH.finditer(line)
               if "XX" not in match.group(1) and not (REPO / match.group(1).rstrip(".")).exists()]
    assert not missing, "paths named but not in the repo:\n" + "\n".join(missing)


def test_nothing_cites_the_research_notes_outside_the_repo():
    outside = [f"{path.relative_to(REPO)}:{number}"
               for path in _texts() if path != Path(__file__)
               for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
               if "shared/reference" in line]
    assert not outside, "these cite ../shared/reference, which a clone does not have:\n" + "\n".join(outside)
