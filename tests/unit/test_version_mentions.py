"""Every Hermes version the user reads comes from the judgement (or the version registry), never a literal.

A report is judged as one version (`HomeReport.hermes`, `models.model_for`); a sentence that names
"Hermes 0.19" whatever version was found is wrong for every other one.  So no string the faces, the
screens, the checks or the plan can print names a version literally: docstrings and comments may cite
the Hermes source a rule was read from (they are for maintainers), messages may not.  Versions an
explanation must name (the first refusing release, the newest modelled) come from
`hermes_wizard.hermes.versions`.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# the layers whose strings reach the user (wizard/hermes is where versions are decided: it may name them)
USER_FACING = ("wizard/faces", "wizard/judge", "wizard/plan", "wizard/write", "wizard/read", "wizard/service",
               "screens")
VERSION = re.compile(r"(?<![\w.])0\.(1\d|2\d)(\.\d+)?(?![\w.]*\d)")


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _literal_versions(path: Path, root: Path = ROOT) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _docstrings(tree)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            for match in VERSION.finditer(node.value):
                out.append(f"{path.relative_to(root)}:{node.lineno}: {match[0]!r} in {node.value[:70]!r}")
    return out


def test_no_user_visible_string_names_a_hermes_version():
    found = [hit for folder in USER_FACING for path in sorted((ROOT / folder).rglob("*.py"))
             for hit in _literal_versions(path)]
    assert not found, "say the judged version (report.hermes / model.version), not a literal:\n" + "\n".join(found)


def test_the_scan_sees_a_literal_version_and_skips_docstrings(tmp_path):
    planted = tmp_path / "probe.py"
    planted.write_text('"""Docstring citing Hermes 0.19.0 is fine."""\nMESSAGE = f"Hermes 0.18.2 and {x}"\n'
                       'OTHER = "version 10.19 or 0.1.9 or 0.190 is no Hermes release here"\n', encoding="utf-8")
    assert [hit.split(": ", 1)[1] for hit in _literal_versions(planted, tmp_path)] == [
        "'0.18.2' in 'Hermes 0.18.2 and '"]
