"""`value_class` and `compared_class` (wizard/core/values.py) make classes that behave as `@dataclass` would have
made them — construction, equality, hash, repr, frozenness — and the classes the check path creates use them
(each method the decorator generates costs that path a compile)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from hermes_wizard.core import values
from hermes_wizard.core.values import Compared, Value, compared_class, value_class

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "assets" / "homes" / "death-loop"


@dataclass(frozen=True)
class FrozenByDecorator:
    name: str
    items: tuple[int, ...] = ()
    note: str = field(default="", compare=False)
    cache: object = field(default=None, hash=False, repr=False)
    shown_not_hashed: int = field(default=0, hash=False)


@value_class
class FrozenByValue(Value):
    name: str
    items: tuple[int, ...] = ()
    note: str = field(default="", compare=False)
    cache: object = field(default=None, hash=False, repr=False)
    shown_not_hashed: int = field(default=0, hash=False)


@dataclass
class MutableByDecorator:
    name: str
    seen: list[object] = field(default_factory=list)
    skipped: int = field(default=0, compare=False, repr=False)


@compared_class
class MutableByValue(Compared):
    name: str
    seen: list[object] = field(default_factory=list)
    skipped: int = field(default=0, compare=False, repr=False)


CASES = [
    (("a",), ("a",)), (("a", (1, 2)), ("a", (1, 2))), (("a", (1,)), ("a", (2,))),
    (("a", (), "x"), ("a", (), "y")),  # a field left out of comparison
    (("a", (), "", [1]), ("a", (), "", [2])),  # compared, not hashed (an unhashable value)
    (("a", (), "", None, 1), ("a", (), "", None, 2)),
    (("a",), ("b",)),
]


@pytest.mark.parametrize("left,right", CASES)
def test_a_frozen_value_equals_hashes_and_shows_as_the_decorator_would(left, right):
    ours = FrozenByValue(*left), FrozenByValue(*right)
    theirs = FrozenByDecorator(*left), FrozenByDecorator(*right)
    assert (ours[0] == ours[1]) == (theirs[0] == theirs[1])
    assert (ours[0] != ours[1]) == (theirs[0] != theirs[1])
    assert repr(ours[0]).replace("FrozenByValue", "X") == repr(theirs[0]).replace("FrozenByDecorator", "X")
    for mine, decorated in zip(ours, theirs):
        try:
            expected = hash(decorated)
        except TypeError:
            with pytest.raises(TypeError):
                hash(mine)
        else:
            assert hash(mine) == expected


def test_equal_only_to_the_very_same_class():
    class Sub(FrozenByValue):
        pass

    assert FrozenByValue("a") != Sub("a") and Sub("a") != FrozenByValue("a")
    assert FrozenByValue("a") != ("a", (), "", None, 0)
    assert FrozenByValue("a").__eq__(FrozenByDecorator("a")) is NotImplemented


def test_it_stays_a_frozen_dataclass():
    value = FrozenByValue("a", (1,))
    with pytest.raises(dataclasses.FrozenInstanceError):
        value.name = "b"  # type: ignore[misc]
    assert dataclasses.replace(value, name="b") == FrozenByValue("b", (1,))
    assert dataclasses.asdict(value)["items"] == (1,)
    assert {value, FrozenByValue("a", (1,), note="other")} == {value}


def test_a_mutable_one_compares_and_shows_as_the_decorator_would_and_is_unhashable():
    ours, theirs = MutableByValue("a", [1]), MutableByDecorator("a", [1])
    assert ours == MutableByValue("a", [1], skipped=3) and ours != MutableByValue("a", [2])
    assert repr(ours).replace("MutableByValue", "X") == repr(theirs).replace("MutableByDecorator", "X")
    with pytest.raises(TypeError):
        hash(ours)
    with pytest.raises(TypeError):
        hash(theirs)


def test_a_repr_that_would_recurse_says_so():
    ours, theirs = MutableByValue("a"), MutableByDecorator("a")
    ours.seen.append(ours)
    theirs.seen.append(theirs)
    assert repr(ours).replace("MutableByValue", "X") == repr(theirs).replace("MutableByDecorator", "X")
    assert "..." in repr(ours)


@dataclass
class BuiltByDecorator:
    name: str
    count: int = 3
    seen: list[object] = field(default_factory=list)
    made: list[object] = field(default_factory=lambda: ["made"], init=False)
    fixed: str = field(default="fixed", init=False)

    def __post_init__(self) -> None:
        self.seen.append("post")


@compared_class
class BuiltByValue(Compared):
    name: str
    count: int = 3
    seen: list[object] = field(default_factory=list)
    made: list[object] = field(default_factory=lambda: ["made"], init=False)
    fixed: str = field(default="fixed", init=False)

    def __post_init__(self) -> None:
        self.seen.append("post")


CALLS = [((), {}), (("a",), {}), (("a", 1),), (("a", 1, [2]), {}), (("a",), {"seen": [5]}), (("a",), {"count": 2}),
         ((), {"name": "b", "count": 0}), (("a", 1, [2], 4), {}), (("a",), {"name": "b"}), (("a",), {"nope": 1}),
         (("a",), {"made": []}), (("a",), {"fixed": "x"})]


def _outcome(cls, call):
    args, kwargs = call if len(call) == 2 else (call[0], {})
    try:
        made = cls(*args, **kwargs)
    except TypeError:
        return "TypeError"
    return (made.name, made.count, made.seen, made.made, made.fixed)


@pytest.mark.parametrize("interpreted", [True, False], ids=["interpreted", "compiled"])
def test_construction_is_the_decorators(monkeypatch, interpreted):
    """Every call builds what the decorator's __init__ builds (defaults, factories, init=False fields,
    __post_init__) or fails where it fails, through the interpreted __init__ and the compiled one alike."""
    @compared_class
    class Fresh(BuiltByValue):
        pass  # a class of its own: its __init__ starts interpreted

    monkeypatch.setattr(values, "COMPILE_AFTER", 10**9 if interpreted else 1)
    for call in CALLS:
        assert _outcome(Fresh, call) == _outcome(BuiltByDecorator, call), call
    assert ("interpreted" if interpreted else "compiled") == (
        "interpreted" if Fresh.__init__.__code__.co_varnames[:3] == ("self", "args", "kwargs") else "compiled")


def test_a_frozen_value_cannot_be_changed_in_any_way():
    made = FrozenByValue("a")
    for change in (lambda: setattr(made, "name", "b"), lambda: setattr(made, "other", 1),
                   lambda: delattr(made, "name")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            change()
    assert made == FrozenByValue("a")


def test_the_decorators_refuse_a_class_of_the_wrong_kind():
    with pytest.raises(TypeError):
        value_class(type("Loose", (), {"__annotations__": {"a": "int"}}))
    with pytest.raises(TypeError):
        compared_class(type("Frozen", (Value,), {"__annotations__": {"a": "int"}}))


PROBE = """
import dataclasses, sys
made = []
process = dataclasses._process_class
def counted(cls, init, repr, eq, order, unsafe_hash, frozen, *rest):
    made.append((f"{cls.__module__}.{cls.__qualname__}", init or repr or eq or frozen))
    return process(cls, init, repr, eq, order, unsafe_hash, frozen, *rest)
dataclasses._process_class = counted
from hermes_wizard.faces.entry import main
main(sys.argv[1:])
print("GENERATED " + " ".join(name for name, generated in made if generated), file=sys.stderr)
"""


# Mutable dataclasses on the check path still declared by the stdlib decorator (its __init__ compiled); shrinks.
STILL_COMPILED: set[str] = set()


@pytest.mark.parametrize("flags", [["--format", "json"], ["--gate"]])
def test_the_check_path_compiles_no_method_when_it_declares_a_class(tmp_path, flags):
    """Every dataclass `check` and the gate create is declared by core/values.py's decorators: the stdlib
    decorator compiles none of its methods (an __init__ is compiled only for a class with many instances)."""
    import shutil

    home = tmp_path / "home"
    shutil.copytree(DEMO, home)
    done = subprocess.run([sys.executable, "-c", PROBE, "check", *flags, "--home", str(home)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    listed = [line for line in done.stderr.splitlines() if line.startswith("GENERATED")]
    assert listed, done.stderr[-2000:]
    compiled = {name.rsplit(".", 1)[1] for name in listed[-1].split()[1:]}
    assert compiled <= STILL_COMPILED, compiled - STILL_COMPILED
