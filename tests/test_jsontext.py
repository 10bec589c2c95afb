"""wizard/core/jsontext.py writes exactly what json.dumps(indent=…, ensure_ascii=False) writes."""

from __future__ import annotations

import json
import random

import pytest

from wizard.core.jsontext import dumps
from wizard.core.kinds import ExitCode, Severity

HOSTILE = ["", "plain", 'q"uote', "back\\slash", "\x00\x01\x1b[31m\x7f", "tab\tnl\nret\rff\fbs\b", "\u2028\u2029",
           "\ud800", "emoji 😀", "\u200e", "••••••", "</script>"]


def _value(rng: random.Random, depth: int = 0):
    kinds = ["str", "int", "bool", "none", "enum"] + (["list", "dict", "tuple"] if depth < 4 else [])
    kind = rng.choice(kinds)
    if kind == "str":
        return rng.choice(HOSTILE) + "".join(chr(rng.randrange(0, 0x3000)) for _ in range(rng.randrange(4)))
    if kind == "int":
        return rng.choice([0, -1, 78, 2**70, rng.randrange(-10**6, 10**6)])
    if kind == "bool":
        return rng.choice([True, False])
    if kind == "none":
        return None
    if kind == "enum":
        return rng.choice([Severity.ERROR, ExitCode.CONFIG])
    items = [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == "list":
        return items
    if kind == "tuple":
        return tuple(items)
    return {rng.choice(HOSTILE) + str(i): item for i, item in enumerate(items)}


@pytest.mark.parametrize("indent", [2, None, 0, 4])
def test_the_same_text_as_json(indent):
    rng = random.Random(indent or 7)
    for _ in range(600):
        value = _value(rng)
        assert dumps(value, indent=indent) == json.dumps(value, indent=indent, ensure_ascii=False), value


def test_other_shapes_are_left_to_json():
    for value in ({"f": 1.5}, {"nan": float("nan")}, {1: "int key"}, [{"nested": [0.1]}]):
        assert dumps(value) == json.dumps(value, indent=2, ensure_ascii=False)
