"""Edit legacy `gateway.json` for a Plan: remove one value, or replace one string, by its key path.

Hermes reads gateway.json with `json.load` as the base layer of its gateway config (config.yaml wins
over it) and never writes it any more, so the file is rewritten as plain JSON (2-space indent, keys in
their order, non-ASCII kept) with the one edit.  A path that is not there changes nothing: only values
that exist are removed or replaced (a value Hermes crashes on; an open policy closed where it lives).

Contract: pure; raises `UnwritableFile` (wizard/plan/changes.py) when the file is not a JSON object
this edit can make, never writes.
"""

from __future__ import annotations

import json


class JsonEditError(ValueError):
    """gateway.json cannot be edited as planned (the message says why)."""


def remove_key(raw: bytes | None, path: tuple[str, ...]) -> bytes | None:
    """`raw` without the value at `path` (a tuple of object keys); `raw` itself when nothing is there."""
    return _edited(raw, path, None)


def replace_value(raw: bytes | None, path: tuple[str, ...], value: str) -> bytes | None:
    """`raw` with the existing value at `path` replaced by the string `value`; `raw` itself when nothing is there."""
    return _edited(raw, path, value)


def _edited(raw: bytes | None, path: tuple[str, ...], value: str | None) -> bytes | None:
    if raw is None:
        return None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise JsonEditError(f"gateway.json is not JSON this tool can edit ({type(exc).__name__})") from None
    node = data
    for part in path[:-1]:
        node = node.get(part) if isinstance(node, dict) else None
    if not isinstance(node, dict) or path[-1] not in node:
        return raw
    if value is None:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
