"""JSON text of the shapes the reports are made of, without importing `json` on the check path.

`check --format json` runs before gateway starts; importing `json` (five modules) costs about as much as a
tenth of the time `check` may take beyond loading yaml and dotenv.  `dumps` writes dicts with string keys,
lists, tuples, strings, ints, bools and None exactly as `json.dumps(value, indent=indent, ensure_ascii=False)`
does (tests/test_jsontext.py holds it to that, hostile strings included); anything else — a float, another
type — is handed to `json` itself, so no value is ever written differently.
"""

from __future__ import annotations

# json's own escapes with ensure_ascii=False: the quote, the backslash, and every C0 control character
_ESCAPES = {code: f"\\u{code:04x}" for code in range(0x20)}
_ESCAPES.update({ord('"'): '\\"', ord("\\"): "\\\\", ord("\b"): "\\b", ord("\f"): "\\f", ord("\n"): "\\n",
                 ord("\r"): "\\r", ord("\t"): "\\t"})


class _Unplain(Exception):
    """A value outside the plain shapes: `json` writes the whole document."""


def dumps(value, indent: int | None = 2) -> str:
    try:
        parts: list[str] = []
        _write(value, parts, "\n" if indent is not None else None, " " * (indent or 0))
        return "".join(parts)
    except _Unplain:
        import json

        return json.dumps(value, indent=indent, ensure_ascii=False)


def _write(value, out: list[str], newline: str | None, step: str) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append('"' + value.translate(_ESCAPES) + '"')
    elif isinstance(value, int):
        out.append(int.__repr__(value))  # an IntEnum is written as its number, as json does
    elif isinstance(value, (list, tuple)):
        _sequence(value, out, newline, step)
    elif isinstance(value, dict):
        _mapping(value, out, newline, step)
    else:
        raise _Unplain


def _sequence(items, out: list[str], newline: str | None, step: str) -> None:
    if not items:
        out.append("[]")
        return
    inner = newline + step if newline is not None else None
    out.append("[")
    for index, item in enumerate(items):
        out.append(("," if index else "") + (inner if inner is not None else (" " if index else "")))
        _write(item, out, inner, step)
    out.append((newline if newline is not None else "") + "]")


def _mapping(mapping: dict, out: list[str], newline: str | None, step: str) -> None:
    if not mapping:
        out.append("{}")
        return
    inner = newline + step if newline is not None else None
    out.append("{")
    for index, (key, item) in enumerate(mapping.items()):
        if not isinstance(key, str):
            raise _Unplain  # json turns other keys into strings its own way
        out.append(("," if index else "") + (inner if inner is not None else (" " if index else "")))
        out.append('"' + key.translate(_ESCAPES) + '": ')
        _write(item, out, inner, step)
    out.append((newline if newline is not None else "") + "}")
