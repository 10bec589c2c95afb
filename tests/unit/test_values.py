"""Plan, Change and the check report are values (ARCHITECTURE.md, "How a home flows": "a pure value"):
frozen, equal when built alike, hashable, and nothing a caller still holds can change them afterwards."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from hermes_wizard.judge.engine import evaluate
from hermes_wizard.plan.actions import ChangeAction
from hermes_wizard.plan.changes import Change, Plan

DEMO = Path(__file__).resolve().parents[2] / "assets" / "homes" / "death-loop"


def change(after: str = "pairing") -> Change:
    return Change(".env", "WEIXIN_DM_POLICY", "open", after, ChangeAction.SET, "weixin", "open policy")


def test_a_change_is_a_hashable_frozen_value():
    assert change() == change() and hash(change()) == hash(change())
    assert len({change(), change(), change("allowlist")}) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        change().after = "open"  # type: ignore[misc]


def test_a_plan_is_a_hashable_frozen_value(tmp_path):
    fingerprints = {".env": "ab" * 32, "config.yaml": None}
    plan = Plan(tmp_path, fingerprints, (change(),))
    assert plan == Plan(tmp_path, dict(fingerprints), (change(),))
    assert hash(plan) == hash(Plan(tmp_path, dict(fingerprints), (change(),)))
    assert len({plan, Plan(tmp_path, fingerprints, (change(),)), Plan(tmp_path, fingerprints, ())}) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.changes = ()  # type: ignore[misc]
    fingerprints[".env"] = "changed after planning"  # the caller's dict is not the plan's
    assert plan.fingerprints[".env"] == "ab" * 32
    with pytest.raises(TypeError):
        plan.fingerprints[".env"] = "x"  # type: ignore[index]
    assert dataclasses.replace(plan, changes=()) == Plan(tmp_path, plan.fingerprints)


def test_the_report_is_a_hashable_frozen_value(tmp_path):
    home = tmp_path / "home"
    shutil.copytree(DEMO, home)
    first, again = evaluate(home), evaluate(home)
    assert first == again and hash(first) == hash(again) and len({first, again}) == 1
    assert not first.would_start and first.findings and first.rows  # it did judge (the demo's refusal)
    for name in ("findings", "rows", "violations", "upgrade_violations"):
        assert isinstance(getattr(first, name), tuple), name
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.findings = ()  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.rows[0].verdict = "ok"  # type: ignore[misc]
    with pytest.raises(TypeError):
        first.transports["whatsapp"] = None  # type: ignore[index]
