"""`FrozenMap`: a read-only, hashable mapping for the fields of frozen values.

A frozen dataclass is only as immutable as its fields: a `dict` field can still be
changed in place and makes the value unhashable.  `FrozenMap(mapping)` copies the
mapping once, offers the read side of `dict` (`[]`, `get`, `items`, iteration in
insertion order, `len`, `in`) and nothing that writes.

Contract: equal to any mapping with the same items (as `dict` is); hashable when its
values are (the hash ignores order, as equality does); shown like the dict it holds.
`collections.abc` is already loaded by `typing`, so this costs the check path nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class FrozenMap(Mapping[K, V]):
    __slots__ = ("_items", "_hash")

    def __init__(self, items: Mapping[K, V] | None = None) -> None:
        self._items: dict[K, V] = dict(items or {})
        self._hash: int | None = None

    def __getitem__(self, key: K) -> V:
        return self._items[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenMap):
            return self._items == other._items
        return self._items == other if isinstance(other, Mapping) else NotImplemented

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._items.items()))
        return self._hash

    def __repr__(self) -> str:
        return repr(self._items)

    def __reduce__(self) -> tuple[Any, ...]:  # copies and pickles are FrozenMaps again
        return (FrozenMap, (self._items,))
