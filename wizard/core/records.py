"""`record`: a small stand-in for `dataclasses.dataclass` on the `check` path.

`check` must start within 1.5× of `python -c "import yaml, dotenv"`, and importing
`dataclasses` pulls in `inspect` (and with it `ast`, `dis`, `tokenize`): about a
tenth of that budget.  `record` covers what the engine uses — fields from class
annotations in order, plain defaults, `factory(...)` defaults, keyword or
positional construction, value equality and a readable repr — and nothing else.

Contract: instances are ordinary mutable objects with `__slots__`-free attributes;
"frozen" records are frozen by convention (nothing assigns to them after creation).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

_MISSING = object()
_T = TypeVar("_T")

if TYPE_CHECKING:  # type checkers see `record` as the dataclass it stands in for (PEP 681)
    from collections.abc import Callable

    from typing_extensions import dataclass_transform

    def factory(make: Callable[[], _T]) -> _T: ...  # an ordinary default value to the checker
else:
    def dataclass_transform(**_kwargs):
        return lambda decorator: decorator

    class factory:
        """Default built fresh for every instance: `items: list = factory(list)`."""

        __slots__ = ("make",)

        def __init__(self, make) -> None:
            self.make = make


@dataclass_transform()
def record(cls: type[_T]) -> type[_T]:
    names = [name for name in cls.__dict__.get("__annotations__", {}) if not name.startswith("_")]
    defaults = {name: cls.__dict__[name] for name in names if name in cls.__dict__}
    for name in defaults:
        delattr(cls, name)
    private = {name: cls.__dict__[name] for name in cls.__dict__.get("__annotations__", {})
               if name.startswith("_") and name in cls.__dict__}

    def __init__(self, *args, **kwargs):
        if len(args) > len(names):
            raise TypeError(f"{cls.__name__} takes at most {len(names)} positional arguments")
        for name, value in zip(names, args):
            kwargs[name] = value
        for name in names:
            value = kwargs.pop(name, _MISSING)
            if value is _MISSING:
                value = defaults.get(name, _MISSING)
                if value is _MISSING:
                    raise TypeError(f"{cls.__name__} missing argument {name!r}")
                if isinstance(value, _Factory):
                    value = value.make()
            object.__setattr__(self, name, value)
        if kwargs:
            raise TypeError(f"{cls.__name__} got unexpected arguments {sorted(kwargs)}")
        for name, value in private.items():
            object.__setattr__(self, name, value.make() if isinstance(value, _Factory) else value)

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in names)

    def __repr__(self):
        return f"{cls.__name__}(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in names) + ")"

    def __hash__(self):
        return hash(tuple(getattr(self, n) for n in names))

    for method in (__init__, __eq__, __repr__, __hash__):
        if method is __init__ or method.__name__ not in cls.__dict__:  # a class may say how it is shown
            setattr(cls, method.__name__, method)
    return cls


_Factory: Any = factory  # the runtime class (under TYPE_CHECKING `factory` is only a signature)
