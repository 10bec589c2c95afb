"""Every exit status a face gives is named in one place, wizard/core/exitcodes.py (`ExitCode`).

Read from the source (AST): in the faces (wizard/faces, screens), no int literal is handed to `sys.exit`,
`os._exit`, `SystemExit` or `parser.exit`, returned from a function that returns an exit status (annotated
`-> int`/`ExitCode`), or collected into a list of codes; and no module but exitcodes.py names an `EX_*`
constant of its own.  Out of scope: the scripts that run inside Hermes's own Python and cannot import this
package (wizard/hermes/ask_hermes.py, pairing_hermes.py)."""

from __future__ import annotations

import ast
from pathlib import Path

from hermes_wizard.core.exitcodes import DetailedExitCode, ExitCode

REPO = Path(__file__).resolve().parents[2]
FACES = sorted([*(REPO / "wizard" / "faces").rglob("*.py"), *(REPO / "screens").rglob("*.py")])
EXIT_CALLS = {"exit", "_exit", "SystemExit"}
STATUS_TYPES = {"int", "ExitCode", "list[int]"}


def _int_literals(node: ast.AST) -> list[ast.Constant]:
    """Int literals that are the value itself, or a branch of a conditional expression (`0 if ok else 1`)."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return [node]
    if isinstance(node, ast.IfExp):
        return _int_literals(node.body) + _int_literals(node.orelse)
    if isinstance(node, (ast.List, ast.Tuple)) and not isinstance(getattr(node, "ctx", None), ast.Store):
        return [lit for item in node.elts for lit in _int_literals(item)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and isinstance(node.right, ast.List):
        return _int_literals(node.left) + _int_literals(node.right)  # `[verdict] + [1]`
    return []


def literal_exit_codes(source: str) -> list[str]:
    found = []
    tree = ast.parse(source)
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        gives_status = fn.returns is not None and ast.unparse(fn.returns) in STATUS_TYPES
        for node in ast.walk(fn):
            values: list[ast.AST] = []
            if isinstance(node, ast.Return) and node.value is not None and gives_status:
                values.append(node.value)
            elif isinstance(node, ast.Call):
                called = ast.unparse(node.func)
                if called.split(".")[-1] in EXIT_CALLS or (called.endswith(".append") and "code" in called):
                    values += node.args[:1]
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any("code" in ast.unparse(target) for target in targets):
                    values.append(node.value)
            found += [f"{fn.name}:{lit.lineno}: {ast.unparse(node)[:80]}" for value in values
                      for lit in _int_literals(value)]
    return found


def own_ex_constants(source: str) -> list[str]:
    return [f"{node.lineno}: {ast.unparse(node)}" for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id.startswith("EX_")
                                                    for t in node.targets)]


def test_the_scan_sees_literal_exit_codes():
    """The scan is not vacuous: each spelling it looks for is caught."""
    sample = ("import sys\nEX_CONFIG = 78\n"
              "def a() -> int:\n    return 0 if ok else 78\n"
              "def b():\n    sys.exit(2)\n"
              "def c():\n    raise SystemExit(1)\n"
              "def d() -> list[int]:\n    codes = [1]\n    codes.append(2)\n    return [0]\n")
    assert len(literal_exit_codes(sample)) == 7
    assert own_ex_constants(sample) == ["2: EX_CONFIG = 78"]
    assert literal_exit_codes("def width() -> int:\n    return columns - 2\n") == []
    assert literal_exit_codes("def d() -> list[int]:\n    return [v] + [1]\n") != []


def test_faces_name_their_exit_codes():
    assert FACES, "no face modules found"
    offenders = {str(path.relative_to(REPO)): hits for path in FACES
                 if (hits := literal_exit_codes(path.read_text()) + own_ex_constants(path.read_text()))}
    assert offenders == {}


def test_the_contracts_codes_are_named():
    """The contract (ARCHITECTURE.md, "Contracts"): check 0/1/78, usage 2; the rest the CLI documents (70, 74, 130)."""
    assert (ExitCode.OK, ExitCode.PROBLEMS, ExitCode.USAGE, ExitCode.CONFIG) == (0, 1, 2, 78)
    assert (ExitCode.INTERNAL, ExitCode.IO_ERROR, ExitCode.INTERRUPTED) == (70, 74, 130)


def test_every_code_has_its_own_name():
    """An `IntEnum` member with an existing value is an alias that prints as the first name: `setup
    --detailed-exitcode`'s "changed" (2, as Terraform's) is a member of its own enum, named for what it means."""
    assert [code for code in ExitCode] == list(ExitCode.__members__.values())  # no aliases
    assert (DetailedExitCode.CHANGED, DetailedExitCode.CHANGED.name) == (2, "CHANGED")
