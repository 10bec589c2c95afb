"""A value that holds a collection holds an immutable one: no module-level state, no shared lists
(ARCHITECTURE.md, "How a home flows").

Every dataclass of wizard/ is frozen, and no field of a frozen one is typed as a `list`, `dict` or `set`
(a tuple, a `FrozenMap` or a read-only `Mapping` instead): a value handed on can be neither changed in place
by whoever holds it next nor left sharing a list with the code that built it.  The few dataclasses that are
builders or accumulators by design (the loader's state while it resolves, as Hermes's own) stay mutable, each
named in EXCEPTIONS with its reason; the list only shrinks.  A class defined inside a function (a builder
private to that function) is not looked at.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "wizard"
MUTABLE_TYPES = {"list", "dict", "set", "bytearray", "List", "Dict", "Set", "defaultdict", "OrderedDict",
                 "Counter", "deque", "MutableMapping", "MutableSequence", "MutableSet"}

# "path under wizard/:Class" (a mutable dataclass) or "path:Class.field" (a collection field of a frozen one)
# -> why it stays so.  Shrink only.
EXCEPTIONS: dict[str, str] = {
    "hermes/loader/state.py:Effective": "the loader's state while it resolves: each phase (env, YAML hooks, "
    "the enable pass, each version's overrides) changes platforms and environ in place, as Hermes's own "
    "loader changes its config and os.environ",
    "hermes/loader/state.py:PlatformState": "Hermes's PlatformConfig as the loader builds it: each phase "
    "sets enabled, token and extra in place, in Hermes's order",
    "hermes/access/access_files.py:AccessFiles": "reads WhatsApp's alias files on demand and keeps each "
    "(aliases): a session folder holds thousands, and Hermes opens only those it is asked about",
    "hermes/loader/yamlfile.py:YamlFile": "not yet frozen: the parse fills it in stages and it caches its node "
    "tree and key index on first use (_root, _keys, _duplicate); its data is the parse itself (Any)",
    "plan/session.py:PlatformAnswer": "the session's answers being edited: each face (TUI screens, prompts, "
    "answers files) changes them as the user answers, and the plan is built from them",
    "plan/service_planning.py:_Draft": "a builder: the notes of a service plan as they are decided, handed on "
    "as the frozen ServicePlan",
}


# core/values.py's declarations of a frozen and of a mutable dataclass, where the code base has them
DECLARES_FROZEN, DECLARES_MUTABLE = "value_class", "compared_class"


def _dataclass_frozen(cls: ast.ClassDef) -> bool | None:
    """True/False: a dataclass declared frozen or not; None: not a dataclass."""
    for decorator in cls.decorator_list:
        called = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", None)
        if name in (DECLARES_FROZEN, DECLARES_MUTABLE):
            return name == DECLARES_FROZEN
        if name == "dataclass":
            keywords = decorator.keywords if isinstance(decorator, ast.Call) else []
            return any(k.arg == "frozen" and isinstance(k.value, ast.Constant) and k.value.value is True
                       for k in keywords)
    return None


def _classes(body: list[ast.stmt], prefix: str = ""):
    """The classes of a module and those nested in them (not those inside a function)."""
    for node in body:
        if isinstance(node, ast.ClassDef):
            yield prefix + node.name, node
            yield from _classes(node.body, f"{prefix}{node.name}.")


def _names_in(annotation: ast.expr) -> set[str]:
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):  # a quoted annotation
        annotation = ast.parse(annotation.value, mode="eval").body
    return ({n.id for n in ast.walk(annotation) if isinstance(n, ast.Name)}
            | {n.attr for n in ast.walk(annotation) if isinstance(n, ast.Attribute)})


def _found() -> dict[str, str]:
    """Every mutable dataclass and collection field of a frozen one in wizard/ -> what it is."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        for name, cls in _classes(ast.parse(path.read_text(encoding="utf-8")).body):
            frozen = _dataclass_frozen(cls)
            if frozen is False:
                found[f"{where}:{name}"] = "a mutable dataclass"
            elif frozen:
                for stmt in cls.body:
                    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                        names = _names_in(stmt.annotation)
                        if "ClassVar" not in names and names & MUTABLE_TYPES:
                            found[f"{where}:{name}.{stmt.target.id}"] = (
                                f"a field typed {ast.unparse(stmt.annotation)} on a frozen dataclass")
    return found


def test_every_value_is_frozen_and_holds_only_immutable_collections():
    new = {where: what for where, what in _found().items() if where not in EXCEPTIONS}
    assert not new, ("freeze these (frozen=True; a tuple for a list, a FrozenMap for a dict), or, for a "
                     "builder, name it in EXCEPTIONS with its reason:\n"
                     + "\n".join(f"{where}: {what}" for where, what in sorted(new.items())))


def test_the_exceptions_only_shrink():
    gone = sorted(set(EXCEPTIONS) - set(_found()))
    assert not gone, "frozen or removed since; take them out of EXCEPTIONS:\n" + "\n".join(gone)


def test_each_exception_says_why():
    assert [where for where, reason in EXCEPTIONS.items() if len(reason) < 20] == []


def test_the_walk_sees_what_it_forbids():
    """The walk itself: a mutable dataclass and a list field of a frozen one are both found."""
    source = ("@dataclass\nclass A:\n    x: int\n"
              "@dataclasses.dataclass(frozen=True)\nclass B:\n    xs: list[int]\n    ok: tuple[int, ...]\n"
              "    m: 'dict[str, int] | None'\n    k: ClassVar[list[int]]\n"
              "@value_class\nclass C(Value):\n    x: int\n@compared_class\nclass D(Compared):\n    x: int\n")
    found = {}
    for name, cls in _classes(ast.parse(source).body):
        found[name] = _dataclass_frozen(cls)
    assert found == {"A": False, "B": True, "C": True, "D": False}
    fields = {s.target.id: _names_in(s.annotation) & MUTABLE_TYPES for s in ast.parse(source).body[1].body
              if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
    assert fields == {"xs": {"list"}, "ok": set(), "m": {"dict"}, "k": {"list"}}
