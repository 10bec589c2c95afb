"""The layers of wizard/ import only downward, and no two modules import each other (DESIGN.md).

Every import counts — module-level and the lazy ones inside functions — except those under
`if TYPE_CHECKING:` (annotations only: they never run).  The one allowed cycle is the check
registry: `hermes_wizard.judge.checks` loads its check modules, which import the registry.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ["core", "hermes", "read", "service", "judge", "plan", "write", "faces"]  # bottom first
# The CLI picks the face: the one edge into screens/.
FACE_SELECTION = ("hermes_wizard.faces.cli", "hermes_wizard.screens.app")
REGISTRY = "hermes_wizard.judge.checks"
SCREENS = "hermes_wizard.screens"  # the Textual face: the repo's screens/ folder


def _modules(folder: str, package: str) -> dict[str, Path]:
    """Every module under the repo's `folder`, named as installed (`package` is the folder's import name)."""
    found = {}
    for path in (ROOT / folder).rglob("*.py"):
        parts = (package, *path.relative_to(ROOT / folder).with_suffix("").parts)
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _runtime_imports(path: Path, name: str, known: dict[str, Path]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = {id(node) for guard in ast.walk(tree) if isinstance(guard, ast.If)
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


def _graph() -> dict[str, set[str]]:
    known = {**_modules("wizard", "hermes_wizard"), **_modules("screens", SCREENS)}
    return {name: _runtime_imports(path, name, known) for name, path in known.items()}


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
                    for src, targets in _graph().items() for dst in targets
                    if _layer(src) is not None and _layer(dst) is not None and _layer(dst) > _layer(src))
    assert not upward, "imports that go up a layer:\n" + "\n".join(upward)


def test_no_import_cycles_outside_the_check_registry():
    graph = {src: {dst for dst in targets if not (src.startswith(REGISTRY) and dst.startswith(REGISTRY))}
             for src, targets in _graph().items()}
    cycles = [component for component in _strongly_connected(graph) if len(component) > 1]
    assert not cycles, "import cycles:\n" + "\n".join(" ↔ ".join(sorted(c)) for c in cycles)


def test_nothing_in_wizard_imports_the_textual_face_but_the_cli_choosing_it():
    edges = [(src, dst) for src, targets in _graph().items() if not src.startswith(SCREENS)
             for dst in targets if dst.startswith(SCREENS)]
    assert edges == [FACE_SELECTION]


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
