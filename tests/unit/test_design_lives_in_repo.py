"""The design the code cites lives in the repo: ARCHITECTURE.md.

Every file of the repo that cites a design section cites ARCHITECTURE.md by a heading it really has (`ARCHITECTURE.md,
"Contracts"`), never the design document kept outside the repo, and never an issue of this project by number or
by title: a reader of the code has the repo, not the tracker, so a citation says the promise in words.
Upstream references (`systemd issue #22257`, Hermes's `PR #57487`) name public trackers and are fine."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ARCHITECTURE = REPO / "ARCHITECTURE.md"
SCANNED_FOLDERS = ("wizard", "screens", "tests", "benchmarks", "scripts", "assets")
SCANNED_FILES = ("README.md", "ARCHITECTURE.md", "pyproject.toml", "setup.py")
OUTSIDE_DESIGN = "DESIGN.md"
CITATION = re.compile(r'ARCHITECTURE\.md[,:]?\s*\(?"([^"\n]+)"')
HEADING = re.compile(r"^#{2,3} (.+)$", re.MULTILINE)
ISSUE_BY_NUMBER = re.compile(r"\bissues?\s*#?\d+", re.IGNORECASE)
ISSUE_BY_TITLE = re.compile(r"\bissue\s+\"", re.IGNORECASE)
UPSTREAM = re.compile(r"(systemd|upstream|hermes|hermes-agent|github)\W*$", re.IGNORECASE)


def repo_texts() -> dict[str, str]:
    """Every text file of the repo this project writes, by its path from the repo's top; not this file, whose
    examples of what is flagged are the scans' own tests (the last test below)."""
    paths = [REPO / name for name in SCANNED_FILES]
    for folder in SCANNED_FOLDERS:
        paths += [p for p in (REPO / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    texts = {}
    for path in paths:
        try:
            if path.resolve() != Path(__file__).resolve():
                texts[str(path.relative_to(REPO))] = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError):
            continue  # a binary asset holds no citation
    return texts


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def citations_of_the_outside_design(texts: dict[str, str]) -> list[str]:
    return [f"{name}:{line_of(text, m.start())}" for name, text in texts.items()
            for m in re.finditer(re.escape(OUTSIDE_DESIGN), text)]


def citations_of_missing_sections(texts: dict[str, str], headings: set[str]) -> list[str]:
    return [f"{name}:{line_of(text, m.start())}: {m.group(1)!r}" for name, text in texts.items()
            for m in CITATION.finditer(text) if m.group(1) not in headings]


def issue_references(texts: dict[str, str]) -> list[str]:
    found = []
    for name, text in texts.items():
        for pattern in (ISSUE_BY_NUMBER, ISSUE_BY_TITLE):
            for m in pattern.finditer(text):
                if not UPSTREAM.search(text[max(0, m.start() - 20):m.start()]):
                    found.append(f"{name}:{line_of(text, m.start())}: {m.group(0)!r}")
    return found


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    return repo_texts()


def test_nothing_cites_the_design_document_outside_the_repo(texts):
    assert citations_of_the_outside_design(texts) == []


def test_every_cited_architecture_section_exists(texts):
    headings = set(HEADING.findall(ARCHITECTURE.read_text(encoding="utf-8")))
    assert {"Layers", "Contracts", "Performance targets"} <= headings  # the sections the code cites most
    assert citations_of_missing_sections(texts, headings) == []


def test_no_issue_of_this_project_is_cited_by_number_or_title(texts):
    assert issue_references(texts) == []


@pytest.mark.parametrize("text, found", [
    ('see DESIGN.md, "Contracts"', ["citations_of_the_outside_design"]),
    ('ARCHITECTURE.md, "Contrakts"', ["citations_of_missing_sections"]),
    ("the keyboard (issue 20): focus first", ["issue_references"]),
    ("(issue 8, item 5)", ["issue_references"]),
    ('the TUI (issue "The wizard tells the truth")', ["issue_references"]),
    ("Issue #29 item 1", ["issue_references"]),
    ('ARCHITECTURE.md, "Contracts"; systemd issue #22257; Hermes PR #57487; hermes issue 4021', []),
])
def test_the_scan_tells_a_citation_from_an_upstream_reference(text, found):
    """The scans above, on lines that must and must not be flagged (so a scan that finds nothing fails here)."""
    one = {"example.py": text}
    flagged = [name for name, hits in (
        ("citations_of_the_outside_design", citations_of_the_outside_design(one)),
        ("citations_of_missing_sections", citations_of_missing_sections(one, {"Contracts"})),
        ("issue_references", issue_references(one))) if hits]
    assert flagged == found
