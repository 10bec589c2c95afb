"""JSON read as a Python program reads it with `json.loads`, nesting included, without ever raising RecursionError.

CPython's JSON decoder descends one level of its recursion budget for every array or object it enters and
raises RecursionError on the first one past that budget — unless the text turned out invalid before it got
there (then ValueError, as for any bad JSON).  The budget is what the caller's stack leaves: the same file
reads in one place of a program and raises in a deeper one.  So a reader that must say what another
program (Hermes) does with a home's JSON is told that program's budget at that call, and:

* `too_deep(text, budget)` says, without descending (a loop over the text, never recursion), whether that
  decode would raise RecursionError: it walks the text as the decoder does, left to right, and answers at
  the first container past `budget` (True) or the first error, or the end (False);
* `loads(text, budget)` decodes it as that program would: `TooDeep` where it would raise RecursionError,
  ValueError where the text is invalid, else the data — decoded here with enough budget of our own, so what
  the other program reads is read here too, whatever our own stack.

The walk is a Python loop over every token (about 1.5 s for 4 MiB of `[1,1,...]`), so it runs only where the
answer could be yes: no decode of a text goes deeper than its containers nest, nor than it has opening
brackets, and raising costs at most `_RAISE_COST` levels more.  Both bounds are counted at C speed
(`_nests_at_most`), and a text they keep within the budget is answered False without the walk.

Contract: never raises RecursionError.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
from array import array
from collections.abc import Callable, Iterator
from itertools import accumulate
from json import decoder

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_scanstring: Callable[[str, int, bool], tuple[str, int]] = decoder.scanstring  # type: ignore[attr-defined]
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")  # the decoder's own (json/scanner.py)
_LITERALS = ("null", "true", "false", "NaN", "Infinity", "-Infinity")
_CLOSE = {"[": "]", "{": "}"}
# Levels beyond the containers, measured on CPython 3.11 (the Python Hermes 0.19.0 runs on): NaN and Infinity
# are made by calling `parse_constant` (one level; null, true, numbers: none); an error found inside the text
# ("Expecting ',' delimiter", a bad string...) is raised by calling JSONDecodeError from C (three); only
# "Expecting value" is raised at the top, where budget is to spare.
_CALLED = ("NaN", "Infinity", "-Infinity")
_RAISE_COST = 3
# A string as the decoder starts reading it: from a quote to the next one not escaped (or to the end).  Up to the
# decoder's first error these are exactly its strings; an invalid one (a control character, a bad escape) is
# that error.  One pass, no backtracking: a text of escaped quotes cannot make it quadratic.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"?', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]+")
_DEPTH_STEP = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")  # +1 and -1 as signed bytes


class TooDeep(Exception):
    """Decoding it would raise RecursionError in the program whose budget was given."""


def too_deep(text: str, budget: int) -> bool:  # noqa: C901 -- a state machine over JSON's grammar, one state a branch
    """Whether `json.loads(text)` runs out of a recursion budget of `budget` (see the module doc)."""
    if text.startswith("\ufeff"):
        return False  # refused before any scanning ("Unexpected UTF-8 BOM")
    if _nests_at_most(text, budget - _RAISE_COST):
        return False
    open_: list[str] = []

    def raised(cost: int) -> bool:  # an error here: raising it takes `cost` levels more (see _RAISE_COST)
        return len(open_) + cost > budget

    want, at, end = "value", _skip(text, 0), len(text)
    while at < end:
        char = text[at]
        if want in ("value", "first value"):
            if want == "first value" and char == "]":
                open_.pop()
                at, want = at + 1, "more"
            elif char in "[{":
                if raised(1):
                    return True
                open_.append(char)
                at, want = at + 1, "first value" if char == "[" else "first key"
            elif char == '"':
                at, want = _string_end(text, at), "more"
            elif number := _NUMBER.match(text, at):
                at, want = number.end(), "more"
            elif literal := next((word for word in _LITERALS if text.startswith(word, at)), None):
                if literal in _CALLED and raised(1):
                    return True
                at, want = at + len(literal), "more"
            else:
                return False  # "Expecting value": raised at the top, with budget to spare
        elif want in ("key", "first key"):
            if want == "first key" and char == "}":
                open_.pop()
                at, want = at + 1, "more"
            elif char != '"' or (at := _string_end(text, at)) < 0:
                return raised(_RAISE_COST)
            else:
                at = _skip(text, at)
                if at >= end or text[at] != ":":
                    return raised(_RAISE_COST)
                at, want = at + 1, "value"
        else:  # after a value: a comma, or the end of the container it is in
            if not open_:
                return False  # the whole value was read: what follows is refused at the top
            if char == ",":
                at, want = at + 1, "value" if open_[-1] == "[" else "key"
            elif char == _CLOSE[open_[-1]]:
                open_.pop()
                at += 1
            else:
                return raised(_RAISE_COST)
        if at < 0:
            return raised(_RAISE_COST)  # a string that does not decode
        at = _skip(text, at)
    return want not in ("value", "first value") and bool(open_) and raised(_RAISE_COST)  # it ends inside one


def _nests_at_most(text: str, levels: int) -> bool:
    """True when decoding `text` cannot enter more than `levels` containers before it ends or fails; False
    when it might.  First the opening brackets are counted (a real file has a few); then, strings replaced by
    `""` (a bracket in a string opens nothing), the running depth is summed up in C (`accumulate`).  Up to
    the decoder's first error its strings are the ones `_STRING` matches, so that depth is the decoder's;
    past it the decoder has stopped, so a larger count there only makes the answer False."""
    if text.count("[") + text.count("{") <= levels:
        return True
    skeleton = _STRING.sub('""', text)
    brackets = "".join(_BRACKETS.findall(skeleton)).encode("ascii")
    if len(brackets) <= levels:
        return True
    return max(accumulate(array("b", brackets.translate(_DEPTH_STEP)))) <= levels


def _skip(text: str, at: int) -> int:
    """Past the whitespace the decoder skips at `at`."""
    blank = _WHITESPACE.match(text, at)
    return blank.end() if blank else at


def _string_end(text: str, at: int) -> int:
    """Where the string starting at `at` (its quote) ends, as the decoder reads it; -1 when it is invalid."""
    try:
        return _scanstring(text, at + 1, True)[1]
    except ValueError:
        return -1


def loads(text: str, budget: int) -> object:
    """`json.loads(text)` as a program with `budget` reads it: TooDeep, ValueError, or the data."""
    if too_deep(text, budget):
        raise TooDeep(f"nested more than {budget} arrays and objects deep")
    with _room_for(budget):
        return json.loads(text)


@contextlib.contextmanager
def _room_for(levels: int) -> Iterator[None]:
    """Enough recursion budget for `levels` nested containers, whatever our own stack depth."""
    before = sys.getrecursionlimit()
    depth, frame = 0, sys._getframe()
    while frame.f_back is not None:
        depth, frame = depth + 1, frame.f_back
    sys.setrecursionlimit(max(before, depth + levels + 64))
    try:
        yield
    finally:
        sys.setrecursionlimit(before)
