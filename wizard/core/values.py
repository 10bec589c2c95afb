"""`Value` and `Compared`: the equality, hash and repr a dataclass would generate, written once.

Python 3.10 and 3.11 compile every method a `@dataclass` generates from source, one `exec` each: six for a
frozen class with `eq` (`__init__`, `__repr__`, `__eq__`, `__hash__`, `__setattr__`, `__delattr__`), about
0.25 ms per class here, and `check` creates some thirty classes before it reads a file.  A class declared

    @dataclass(frozen=True, eq=False, repr=False)
    class Violation(Value): ...

is still a stdlib frozen dataclass (`fields`, `replace`, `asdict`, its frozen `__setattr__` and `__init__` are
the decorator's own), and its `__eq__`, `__hash__` and `__repr__` are these, which follow the decorator's rules
exactly: equal only to an instance of the very same class whose compared fields (`field(compare=...)`) are
equal, in field order; the hash of the tuple of the fields the decorator would hash (`field(hash=...)`, else
the compared ones); the repr `Name(field=value, ...)` over the `field(repr=...)` fields, `...` where it would
recurse.  Only half the methods are compiled.  `Compared` is the same for a mutable dataclass
(`@dataclass(eq=False, repr=False)`): equality and repr, and unhashable, as the decorator makes it.

Contract: a class using these must be a dataclass declared with `eq=False, repr=False` (with `eq=True` the
decorator's own methods would replace these); tests/unit/test_value_methods.py compares them with the decorator's.
"""

from __future__ import annotations

from dataclasses import fields
from reprlib import recursive_repr

# per class: the names of the fields compared, hashed and shown, in field order (computed on first use)
_NAMES: dict[type, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {}


def _names(cls: type) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    found = _NAMES.get(cls)
    if found is None:
        declared = fields(cls)  # a dataclass, by the contract above (else this raises TypeError)
        found = _NAMES[cls] = (tuple(f.name for f in declared if f.compare),
                               tuple(f.name for f in declared if (f.compare if f.hash is None else f.hash)),
                               tuple(f.name for f in declared if f.repr))
    return found


class Compared:
    """A mutable dataclass's `__eq__` and `__repr__` (and, as there, no hash)."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        names = _names(self.__class__)[0]
        return tuple(getattr(self, n) for n in names) == tuple(getattr(other, n) for n in names)

    # No __hash__ here: a class body defining __eq__ alone gets `__hash__ = None` (unhashable), as the
    # decorator makes a mutable dataclass.

    @recursive_repr()
    def __repr__(self) -> str:
        shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in _names(self.__class__)[2])
        return f"{self.__class__.__qualname__}({shown})"


class Value(Compared):
    """A frozen dataclass's `__eq__`, `__repr__` and `__hash__`."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, n) for n in _names(self.__class__)[1]))
