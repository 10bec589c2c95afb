"""The layers of wizard/ import only downward, and no two modules import each other (ARCHITECTURE.md, "Layers").

Every import counts for the layers — module-level, the lazy ones inside functions, and those under
`if TYPE_CHECKING:`: a type named in an annotation belongs to the layer that uses it or one below, so a
layer never types its input by a layer above it (the loader's `Snapshot` lives in wizard/hermes/loader/).
No cycle of imports that run is allowed: the check registry lives in `hermes_wizard.judge.checks.registry`,
which the check modules import and the package re-exports.  A cycle through an annotation is allowed: the
version contract (`hermes.model.Model`) runs the loader's functions, and they name the `Model` that answers
them in their signatures.

The version seam (wizard/hermes/model.py): a Hermes version is one package, `hermes_wizard.hermes.v<M>_<m>`.
Here every import counts, annotations included:
  * nothing outside `wizard/hermes/` imports a version package: it asks `models.model_for(judgement)`;
  * the shared code of `wizard/hermes/` (the loader, the authorizer, the contract) imports none either:
    it is the contract's default, and the model a caller hands it answers where versions differ;
  * a version package imports at most one other version package, and only the adjacent version its
    model derives from (0.18 overrides 0.19, 0.17 overrides 0.18, a 0.20 would extend 0.19): a chain,
    so retiring a version touches only its neighbour.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ["core", "hermes", "read", "service", "judge", "plan", "write", "cases", "faces"]  # bottom first
# The CLI picks the face: the one edge into screens/.
FACE_SELECTION = ("hermes_wizard.faces.cli", "hermes_wizard.screens.app")
SCREENS = "hermes_wizard.screens"  # the Textual face: the repo's screens/ folder


def _modules(folder: str, package: str) -> dict[str, Path]:
    """Every module under the repo's `folder`, named as installed (`package` is the folder's import name)."""
    found = {}
    for path in (ROOT / folder).rglob("*.py"):
        parts = (package, *path.relative_to(ROOT / folder).with_suffix("").parts)
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _runtime_imports(path: Path, name: str, known: dict[str, Path], annotations: bool = False) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = set() if annotations else {
        id(node) for guard in ast.walk(tree) if isinstance(guard, ast.If)
        and ast.unparse(guard.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
        for stmt in guard.body for node in ast.walk(stmt)}
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            candidates = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for candidate in candidates:
            while candidate and candidate not in known:
                candidate = candidate.rpartition(".")[0]
            if candidate and candidate != name:
                out.add(candidate)
    return out


def _graph(annotations: bool = False) -> dict[str, set[str]]:
    known = {**_modules("wizard", "hermes_wizard"), **_modules("screens", SCREENS)}
    return {name: _runtime_imports(path, name, known, annotations) for name, path in known.items()}


def _layer(module: str) -> int | None:
    parts = module.split(".")
    if module == SCREENS or module.startswith(SCREENS + "."):
        return LAYERS.index("faces")  # the Textual face, beside the headless ones
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else None


def test_every_module_of_wizard_is_in_a_layer():
    stray = [m for m in _graph() if m.startswith("hermes_wizard.") and not m.startswith(SCREENS)
             and _layer(m) is None and m != "hermes_wizard.__main__"]
    assert not stray, f"modules outside the layers {LAYERS}: {stray}"


def test_layers_import_only_downward():
    upward = sorted(f"{src} ({LAYERS[_layer(src)]}) imports {dst} ({LAYERS[_layer(dst)]})"
                    for src, targets in _graph(annotations=True).items() for dst in targets
                    if _layer(src) is not None and _layer(dst) is not None and _layer(dst) > _layer(src))
    assert not upward, "imports that go up a layer:\n" + "\n".join(upward)


def test_no_import_cycles():
    graph = _graph()
    cycles = [component for component in _strongly_connected(graph) if len(component) > 1]
    assert not cycles, "import cycles:\n" + "\n".join(" ↔ ".join(sorted(c)) for c in cycles)


def test_nothing_in_wizard_imports_the_textual_face_but_the_cli_choosing_it():
    edges = [(src, dst) for src, targets in _graph(annotations=True).items() if not src.startswith(SCREENS)
             for dst in targets if dst.startswith(SCREENS)]
    assert edges == [FACE_SELECTION]


VERSION_PACKAGE = re.compile(r"hermes_wizard\.hermes\.v(\d+)_(\d+)(?:\.|$)")


def _version_of(module: str) -> tuple[int, int] | None:
    """(major, minor) of the version package `module` belongs to, or None for any other module."""
    found = VERSION_PACKAGE.match(module)
    return (int(found[1]), int(found[2])) if found else None


def test_nothing_outside_wizard_hermes_imports_a_version_package():
    edges = sorted(f"{src} imports {dst}" for src, targets in _graph(annotations=True).items()
                   if not src.startswith("hermes_wizard.hermes") for dst in targets if _version_of(dst))
    assert not edges, "ask models.model_for(judgement) instead of importing a Hermes version:\n" + "\n".join(edges)


def test_the_shared_hermes_code_imports_no_version_package():
    edges = sorted(f"{src} imports {dst}" for src, targets in _graph(annotations=True).items()
                   if src.startswith("hermes_wizard.hermes") and not _version_of(src)
                   for dst in targets if _version_of(dst))
    assert not edges, "the shared loader is every version's default; it asks the Model:\n" + "\n".join(edges)


def test_a_version_package_imports_only_the_adjacent_version_it_derives_from():
    graph = _graph(annotations=True)
    versions = sorted({v for module in graph if (v := _version_of(module))})
    imported: dict[tuple[int, int], set[tuple[int, int]]] = {v: set() for v in versions}
    for src, targets in graph.items():
        if (own := _version_of(src)) is not None:
            imported[own] |= {v for dst in targets if (v := _version_of(dst)) not in (None, own)}
    wrong = [f"v{a[0]}_{a[1]} imports {', '.join(f'v{b[0]}_{b[1]}' for b in sorted(others))}"
             for a, others in imported.items()
             if len(others) > 1 or any(abs(versions.index(b) - versions.index(a)) != 1 for b in others)]
    assert not wrong, "a version package builds on one neighbour only:\n" + "\n".join(wrong)


def _strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm (iterative enough for a few hundred modules)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.add(top)
                if top == node:
                    break
            found.append(component)

    for node in graph:
        if node not in index:
            visit(node)
    return found
