"""`Value` and `Compared` (wizard/core/values.py) behave as the methods `@dataclass` would have generated, and
the classes the check path creates use them (each generated method costs that path a compile)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from hermes_wizard.core.values import Compared, Value

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "assets" / "homes" / "death-loop"


@dataclass(frozen=True)
class FrozenByDecorator:
    name: str
    items: tuple[int, ...] = ()
    note: str = field(default="", compare=False)
    cache: object = field(default=None, hash=False, repr=False)
    shown_not_hashed: int = field(default=0, hash=False)


@dataclass(frozen=True, eq=False, repr=False)
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


@dataclass(eq=False, repr=False)
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


PROBE = """
import dataclasses, sys
made = []
process = dataclasses._process_class
def counted(cls, init, repr, eq, *rest):
    made.append((f"{cls.__module__}.{cls.__qualname__}", repr or eq))
    return process(cls, init, repr, eq, *rest)
dataclasses._process_class = counted
from hermes_wizard.faces.entry import main
main(sys.argv[1:])
print("GENERATED " + " ".join(name for name, generated in made if generated), file=sys.stderr)
"""


@pytest.mark.parametrize("flags", [["--format", "json"], ["--gate"]])
def test_the_check_path_compiles_no_equality_or_repr_of_its_own(tmp_path, flags):
    """Every dataclass `check` and the gate create takes its __eq__/__hash__/__repr__ from core/values.py:
    the decorator compiles only __init__ (and a frozen class's __setattr__/__delattr__)."""
    import shutil

    home = tmp_path / "home"
    shutil.copytree(DEMO, home)
    done = subprocess.run([sys.executable, "-c", PROBE, "check", *flags, "--home", str(home)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    listed = [line for line in done.stderr.splitlines() if line.startswith("GENERATED")]
    assert listed, done.stderr[-2000:]
    assert listed[-1].split()[1:] == []
