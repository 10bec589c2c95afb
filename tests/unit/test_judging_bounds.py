"""What the tool judges, and what it says past that: a `.env` of up to JUDGED_ENV_BYTES and JUDGED_ENV_LINES, a
config.yaml of up to JUDGED_YAML_NODES (estimated), each judged; one unit more, and `check` says "cannot judge"
(HW024, exit 1, JSON would_start null) while the gate lets the gateway start with one journal line naming it —
never a refusal of our own making, never a silent start.  The time each bound keeps is benchmarked
(benchmarks/bench_inputs.py "bound:" rows), not timed here; the estimate's promise (never fewer nodes than
composing makes) is held against PyYAML itself.
"""

from __future__ import annotations

import json
import random

import pytest
import yaml
from bounded_homes import SHAPES, write_home
from in_process import wizard_in_process

from hermes_wizard.hermes.loader.yamlfile import estimated_nodes

JUDGING_SHAPES = [name for name in SHAPES if "pure-python" not in name]
# one of each file's bounds runs in the fast loop; every shape in the full run
FAST = {"env-glued-lines", "env-one-line-references", "yaml-flow-integers"}


def _check(home) -> tuple[int, dict, int, str]:
    done = wizard_in_process("check", "--home", str(home), "--format", "json")
    gate = wizard_in_process("check", "--gate", "--home", str(home))
    return done.returncode, json.loads(done.stdout), gate.returncode, gate.stderr


@pytest.mark.parametrize("shape", [pytest.param(name, marks=() if name in FAST else pytest.mark.slow)
                                   for name in JUDGING_SHAPES])
def test_a_file_at_its_bound_is_judged_and_one_unit_past_is_not(tmp_path, shape):
    rc, report, gate_rc, line = _check(write_home(tmp_path / "at", shape))
    assert "HW024" not in [f["code"] for f in report["findings"]]
    assert rc == 78 and report["would_start"] is False and gate_rc == 78, (rc, report["refusal"], line)

    rc, report, gate_rc, line = _check(write_home(tmp_path / "past", shape, past=1))
    assert (rc, report["would_start"], [f["code"] for f in report["findings"]]) == (1, None, ["HW024"]), report
    assert report["platforms"] == [] and report["refusal"] is None
    assert gate_rc == 0, line
    assert line.count("\n") == 1 and "cannot judge" in line and "HW024" in line, line


def test_the_text_report_and_access_say_cannot_judge(tmp_path):
    home = write_home(tmp_path / "past", "env-glued-lines", past=1)
    text = wizard_in_process("check", "--home", str(home))
    assert text.returncode == 1
    assert "Verdict: cannot judge whether the gateway will start: .env has 10,001 lines" in text.stdout
    assert "no messaging platform is enabled" not in text.stdout
    access = wizard_in_process("access", "--home", str(home))
    assert access.returncode == 1 and "cannot judge who reaches the agent" in access.stderr, access


def test_a_planned_file_past_the_bound_is_not_judged_either(tmp_path):
    """What doctor and setup judge before they write (`overrides`) meets the same bound."""
    from hermes_wizard.judge.engine import evaluate

    home = write_home(tmp_path / "at", "env-one-line-references")
    name, build = SHAPES["env-one-line-references"]
    planned = build((home / name).read_bytes().rsplit(b"X=", 1)[0], 1)
    report = evaluate(home, overrides={name: planned})
    assert report.effective.unjudged is not None and "1,048,577 bytes" in report.effective.unjudged


def _node_count(node) -> int:
    if node is None:
        return 0
    if isinstance(node, yaml.ScalarNode):
        return 1
    if isinstance(node, yaml.SequenceNode):
        return 1 + sum(_node_count(child) for child in node.value)
    return 1 + sum(_node_count(key) + _node_count(value) for key, value in node.value)


ATOMS = ["1", "a", "''", '"x: y"', "~", "-1", "a-b", "!!str 3", "&a 1", "*a", "? x", "", "- 1", "{}", "[]"]


def _document(rng: random.Random, depth: int = 0) -> str:
    roll = rng.random()
    if depth > 4 or roll < 0.3:
        return rng.choice([atom for atom in ATOMS if atom not in ("? x", "- 1", "*a", "&a 1")])
    items = [_document(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    if roll < 0.55:
        return "[" + ", ".join(items) + "]"
    if roll < 0.8:
        return "{" + ", ".join(f"k{i}: {item}" if rng.random() < 0.8 else f"k{i}" for i, item in enumerate(items)) + "}"
    return "{" + ", ".join(f"? {item}" for item in items) + "}"


def _block(rng: random.Random, indent: str = "", depth: int = 0) -> str:
    lines = []
    for i in range(rng.randint(1, 4)):
        kind = rng.random()
        if depth < 3 and kind < 0.3:
            lines.append(f"{indent}k{i}:\n" + _block(rng, indent + "  ", depth + 1))
        elif depth < 3 and kind < 0.5:
            lines.append(f"{indent}s{i}:\n" + "".join(f"{indent}  - {_document(rng, 3)}\n" for _ in range(3)))
        elif kind < 0.6:
            lines.append(f"{indent}? q{i}\n{indent}: {_document(rng, 2)}\n")
        else:
            lines.append(f"{indent}v{i}: {_document(rng)}\n")
    return "".join(lines)


def test_the_estimate_never_counts_fewer_nodes_than_composing_makes():
    rng = random.Random(20261203)
    texts = [_block(rng) for _ in range(400)] + [_document(rng) for _ in range(400)]
    texts += ["s: !!set {a, b, c}\n", "- - - 1\n", "? a\n? b\n", "[a: 1, b: 2]\n", "a:\n  -\n  - b:\n", "--- a\n"]
    too_few, composed = [], 0
    for text in texts:
        try:
            node = yaml.compose(text, Loader=yaml.SafeLoader)
        except yaml.YAMLError:
            continue
        composed += 1
        if _node_count(node) > estimated_nodes(text.encode()):
            too_few.append(text)
    assert composed > 600 and not too_few, too_few[:3]
