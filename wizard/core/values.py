"""`value_class` and `compared_class`: dataclasses that compile nothing when they are declared.

Python 3.10 and 3.11 compile every method a `@dataclass` generates from source, one `exec` each: six for a
frozen class with `eq` (`__init__`, `__repr__`, `__eq__`, `__hash__`, `__setattr__`, `__delattr__`), about
2.7 M instructions a class here against 0.4 M for a plain one, and the pre-start gate declares some twenty
classes before it reads a file (benchmarks/README.md has the instruction counts).  A class declared

    @value_class
    class Violation(Value): ...

is still a stdlib dataclass (`fields`, `replace`, `asdict` work; type checkers read it as a frozen dataclass)
with nothing compiled at declaration:
  * `__eq__`, `__hash__` and `__repr__` are `Value`'s, which follow the decorator's rules exactly: equal only to
    an instance of the very same class whose compared fields (`field(compare=...)`) are equal, in field order;
    the hash of the tuple of the fields the decorator would hash (`field(hash=...)`, else the compared ones);
    the repr `Name(field=value, ...)` over the `field(repr=...)` fields, `...` where it would recurse;
  * `__setattr__` and `__delattr__` are `Value`'s: any assignment raises `dataclasses.FrozenInstanceError`;
  * `__init__` is compiled on the class's first instantiation, from the same source the decorator would write
    (defaults, `default_factory`, `init=False`, `__post_init__`), so a class never instantiated on a path
    costs that path nothing and one that is costs one compile, and instances are made as fast as a
    dataclass's.
`compared_class` is the same for a mutable class (`Compared`: equality and repr, unhashable, as the decorator
makes a mutable dataclass).  tests/unit/test_value_methods.py compares both with the decorator's own classes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, FrozenInstanceError, dataclass, field, fields
from reprlib import recursive_repr
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:
    def dataclass_transform(**_options: object) -> Callable[[Any], Any]:
        return lambda decorator: decorator  # only type checkers read it

_T = TypeVar("_T")

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

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def value_class(cls: type[_T]) -> type[_T]:
    """A frozen dataclass of a `Value` subclass, nothing compiled until its first instance (the module doc)."""
    if not issubclass(cls, Value):
        raise TypeError(f"{cls.__qualname__}: a value_class subclasses Value")
    return _declared(cls)


@dataclass_transform(field_specifiers=(field,))
def compared_class(cls: type[_T]) -> type[_T]:
    """A mutable dataclass of a `Compared` subclass (not a `Value`), nothing compiled until its first instance."""
    if not issubclass(cls, Compared) or issubclass(cls, Value):
        raise TypeError(f"{cls.__qualname__}: a compared_class subclasses Compared, not Value")
    return _declared(cls)


def _declared(cls: type[_T]) -> type[_T]:
    if not cls.__doc__:  # the decorator would write one from inspect.signature, which compiles tokenize's regexes
        cls.__doc__ = f"{cls.__name__}({', '.join(cls.__dict__.get('__annotations__', ()))})"
    made = dataclass(init=False, eq=False, repr=False)(cls)  # fields and defaults only: nothing compiled
    if "__init__" not in cls.__dict__:  # a class's own __init__ is kept, as the decorator keeps it
        setattr(made, "__init__", _first_init)  # noqa: B010 -- replacing a method: mypy forbids the assignment
    return made


def _first_init(self: Any, *args: Any, **kwargs: Any) -> None:
    """The placeholder `__init__` of a declared class: installs the interpreted one (`_interpreted_init`) on the
    class that declared it, and runs it."""
    owner = next(c for c in type(self).__mro__ if c.__dict__.get("__init__") is _first_init)
    init = _interpreted_init(owner)
    setattr(owner, "__init__", init)  # noqa: B010 -- replacing a method: mypy forbids the assignment
    init(self, *args, **kwargs)


# Instances a class makes through the interpreted __init__ before the compiled one replaces it: a check makes a
# handful of most classes (a compile each would cost more than it saves), a 100k-key home 100k of a few.
COMPILE_AFTER = 64
_REQUIRED, _DEFAULT, _FACTORY = 0, 1, 2


def _interpreted_init(cls: type) -> Callable[..., None]:
    """An `__init__` that reads the fields as data (nothing compiled): the parameters, defaults, factories and
    `__post_init__` of the decorator's own, and the TypeErrors a call of it would raise.  After COMPILE_AFTER
    instances it installs the compiled one (`_compiled_init`), as fast as the decorator's."""
    params, made_anyway = _init_params(cls)
    names = frozenset(name for name, _, _ in params)
    post_init = hasattr(cls, "__post_init__")
    where = f"{cls.__qualname__}.__init__()"
    made = 0
    put = object.__setattr__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        nonlocal made
        made += 1
        if made == COMPILE_AFTER:
            setattr(cls, "__init__", _compiled_init(cls))  # noqa: B010 -- as above
        if len(args) > len(params):
            raise TypeError(f"{where} takes {len(params) + 1} positional arguments but {len(args) + 1} were given")
        for (name, _, _), value in zip(params, args):
            if name in kwargs:
                raise TypeError(f"{where} got multiple values for argument {name!r}")
            put(self, name, value)
        missing = []
        for name, kind, default in params[len(args):]:
            if name in kwargs:
                put(self, name, kwargs[name])
            elif kind == _DEFAULT:
                put(self, name, default)
            elif kind == _FACTORY:
                put(self, name, default())
            else:
                missing.append(name)
        if missing or not names.issuperset(kwargs):
            raise _call_error(where, missing, [name for name in kwargs if name not in names])
        for name, factory in made_anyway:
            put(self, name, factory())
        if post_init:
            self.__post_init__()

    __init__.__qualname__ = where[:-2]
    return __init__


def _init_params(cls: type) -> tuple[list[tuple[str, int, Any]], list[tuple[str, Callable[[], Any]]]]:
    """(name, _REQUIRED/_DEFAULT/_FACTORY, the default or factory) per parameter, in field order; and the
    fields left out of the parameters (`init=False`) that a factory makes anyway."""
    params: list[tuple[str, int, Any]] = []
    made_anyway: list[tuple[str, Callable[[], Any]]] = []
    for f in fields(cls):
        if f.init:
            kind, default = ((_FACTORY, f.default_factory) if f.default_factory is not MISSING else
                             (_DEFAULT, f.default) if f.default is not MISSING else (_REQUIRED, None))
            params.append((f.name, kind, default))
        elif f.default_factory is not MISSING:
            made_anyway.append((f.name, f.default_factory))
    return params, made_anyway


def _call_error(where: str, missing: list[str], unexpected: list[str]) -> TypeError:
    if unexpected:
        return TypeError(f"{where} got an unexpected keyword argument {unexpected[0]!r}")
    plural = "s" if len(missing) > 1 else ""
    return TypeError(f"{where} missing {len(missing)} required argument{plural}: "
                     + ", ".join(repr(name) for name in missing))


_HAS_FACTORY = object()  # the default of a parameter whose field has a default_factory (as the decorator does)


def _compiled_init(cls: type) -> Callable[..., None]:
    """The `__init__` `@dataclass` writes for `cls`'s fields: positional parameters in field order, each
    default or factory as declared; a field with `init=False` and a factory is made anyway; `__post_init__`
    last.  Every assignment goes through object.__setattr__, so it serves frozen and mutable classes alike."""
    names: dict[str, Any] = {"__set": object.__setattr__, "__factory_marker": _HAS_FACTORY}
    params, body = ["self"], []
    for f in fields(cls):
        if f.default_factory is not MISSING:
            names[f"__factory_{f.name}"] = f.default_factory
            made = f"__factory_{f.name}()"
            if f.init:
                params.append(f"{f.name}=__factory_marker")
                made = f"{made} if {f.name} is __factory_marker else {f.name}"
            body.append(f"__set(self, {f.name!r}, {made})")
        elif f.init:
            if f.default is not MISSING:
                names[f"__default_{f.name}"] = f.default
                params.append(f"{f.name}=__default_{f.name}")
            else:
                params.append(f.name)
            body.append(f"__set(self, {f.name!r}, {f.name})")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    source = f"def __init__({', '.join(params)}):\n    " + ("\n    ".join(body) or "pass")
    exec(source, names)  # the source is built above from the class's own field names
    init: Callable[..., None] = names["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init
