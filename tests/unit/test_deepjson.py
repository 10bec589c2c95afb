"""`too_deep` says, without descending, what CPython 3.11's own `json.loads` does with a recursion budget
(wizard/core/deepjson.py): 3,000 seeded, half-broken JSON texts are decoded for real with a budget set
exactly, and each answer (RecursionError or not) must be the one `too_deep` gives.  And `loads` never raises
RecursionError, whatever the nesting."""

from __future__ import annotations

import json
import random
import sys

import pytest

from hermes_wizard.core.deepjson import TooDeep, loads, too_deep

# The rule is CPython 3.11's (the Python Hermes 0.19.0 runs on): 3.12 counts C recursion apart.
pytestmark = pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="the decoder's budget rule is CPython 3.11's")

ATOMS = ['1', '-2.5e3', '"s"', '"\\u00e9"', 'null', 'true', 'NaN', '-Infinity', 'Infinity', '"bad\\x"', '01',
         '"\x01"', 'tru', '-', '"unterminated', '1.', '']


def _text(rng: random.Random, depth: int = 0) -> str:
    roll = rng.random()
    if depth > 40 or roll < 0.3:
        return rng.choice(ATOMS)
    if roll < 0.65:
        items = [_text(rng, depth + 1) for _ in range(rng.randint(0, 3))]
        return rng.choice(["[", "[ "]) + rng.choice([",", ", ", " ,"]).join(items) + rng.choice(["]", "", ",]", " ]"])
    items = [rng.choice(['"k"', '"k', 'k', '""']) + rng.choice([":", " : ", ""]) + _text(rng, depth + 1)
             for _ in range(rng.randint(0, 3))]
    return rng.choice(["{", "{ "]) + rng.choice([",", " ,"]).join(items) + rng.choice(["}", "", ",}"])


def _decoded(text: str, budget: int, offset: int) -> str:
    """What json.loads does with `budget` levels (our frames above it measured, `offset` its own)."""
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + budget + offset)
    try:
        json.loads(text)
        return "read"
    except RecursionError:
        return "too deep"
    except ValueError:
        return "invalid"
    finally:
        sys.setrecursionlimit(before)


def test_too_deep_answers_as_the_decoder_does():
    offset = 0  # the decoder's own levels, measured from this very call site (a plain loop: a C call between,
    while offset < 12:  # as next() or a comprehension makes, would count as a level too)
        if _decoded("[" * 50 + "]" * 50, 50, offset) == "read" and _decoded("[" * 51 + "]" * 51, 50, offset) != "read":
            break
        offset += 1
    rng = random.Random(20261203)
    wrong = []
    for _ in range(3000):
        text = _text(rng)
        if rng.random() < 0.3:
            text = text[:rng.randint(0, len(text))]
        budget = rng.randint(3, 25)
        if too_deep(text, budget) != (_decoded(text, budget, offset) == "too deep"):
            wrong.append((text[:80], budget))
    assert not wrong, wrong[:5]


@pytest.mark.parametrize("levels", [10, 1000, 100_000])
def test_loads_never_raises_recursion_error(levels):
    text = "[" * levels + "]" * levels
    if levels > 900:
        with pytest.raises(TooDeep):
            loads(text, 900)
    else:
        assert loads(text, 900) == [[[[[[[[[[]]]]]]]]]]


def test_what_the_budget_allows_is_read_whatever_our_own_stack():
    def deep(n: int) -> object:  # 600 frames of our own above the decode
        return deep(n - 1) if n else loads("[" * 980 + "]" * 980, 990)
    assert deep(600) is not None


# Texts with more opening brackets than the budget, where only strings, or only the part past the decoder's
# first error, hold them: the bound counted in C must answer them as the decoder does, without the walk.
BRACKETS_ELSEWHERE = [
    '["' + "[" * 60 + '"]',  # in a string
    '["\\"' + "[" * 60 + '"]',  # after an escaped quote, still in the string
    '["\\\\"' + "[" * 60 + "]",  # an escaped backslash ends the string: these open (and stay open)
    '["\x01' + "[" * 60 + '"]',  # the string is invalid: the decoder stops at the control character
    '[1 ' + "[" * 60,  # a missing comma: the decoder stops before the brackets
    '{"a" ' + "{" * 60,
    '["' + "\\" * 41 + '"' + "[" * 60,  # an odd run of backslashes escapes the quote
    "[" * 20 + '"' + "[" * 60,  # an unterminated string
    "[[]]" * 40,  # many, none deep
]


@pytest.mark.parametrize("text", BRACKETS_ELSEWHERE)
def test_brackets_outside_the_decoders_reach_are_judged_as_it_judges_them(text):
    offset = 0
    while offset < 12:
        if _decoded("[" * 50 + "]" * 50, 50, offset) == "read" and _decoded("[" * 51 + "]" * 51, 50, offset) != "read":
            break
        offset += 1
    for budget in (25, 40, 59, 63, 70):
        assert too_deep(text, budget) == (_decoded(text, budget, offset) == "too deep"), (text[:30], budget)


def test_a_text_of_escaped_quotes_is_read_in_one_pass():
    """4 MiB of escaped quotes in a string that never ends validly: a string pattern retried at each quote
    would be quadratic (hours, so the run never ends); one pass takes milliseconds."""
    text = '["' + '\\"' * 2_000_000 + "\x01" + "[" * 2000
    assert too_deep(text, 990) is False
