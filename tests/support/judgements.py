"""Counting what a session judges and plans: every judgement of a home (the engine's `evaluate`, from disk or of
planned contents) and every Plan the session builds, recorded by wrapping the engine's two steps each judgement
takes once (its snapshot, then its checks) and the session's plan builder.

A judged *state* is what the judgement read: the files on disk (their bytes) or the planned contents, the keyring
entries a plan stores, the drop-ins a plan writes, and whether systemd's answers were held back.  Judging one
state twice is waste; the written home judged from disk after apply is a new judgement by design (the files are
read back), so `from_disk` counts those apart from previews.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hermes_wizard.judge import engine
from hermes_wizard.plan import session as session_module


@dataclass
class Judgements:
    states: list[tuple] = field(default_factory=list)  # one per judgement, in order
    plans: int = 0  # plans the session built
    _reading: tuple | None = None

    @property
    def from_disk(self) -> int:
        return sum(1 for state in self.states if state[0] == "disk")

    def repeated(self) -> list[tuple]:
        """The states judged more than once (each listed once)."""
        seen: set[tuple] = set()
        again = []
        for state in self.states:
            if state in seen and state not in again:
                again.append(state)
            seen.add(state)
        return again


def _files(home: Path) -> tuple:
    return tuple((name, (home / name).read_bytes() if (home / name).is_file() else None)
                 for name in (".env", "config.yaml", "gateway.json"))


def count_judgements(monkeypatch) -> Judgements:
    """Wrap the engine and the session's plan builder for this test; the returned record fills as they run."""
    record = Judgements()
    take_snapshot, run_checks, build_plan = engine.take_snapshot, engine.run_checks, session_module.build_plan

    def snapshot(home, profile, base_env, overrides, model, **options):
        planned = options.get("keyring_planned") or {}
        source = ("planned", tuple(sorted((overrides or {}).items()))) if overrides else ("disk", _files(home))
        record._reading = (*source, tuple(sorted(planned.items())))
        return take_snapshot(home, profile, base_env, overrides, model, **options)

    def checks(ctx):
        assert record._reading is not None, "a judgement's checks ran without its snapshot"
        record.states.append((*record._reading, ctx.service.planned, ctx.service.evidence_held))
        record._reading = None
        return run_checks(ctx)

    def plan(report, changes):
        record.plans += 1
        return build_plan(report, changes)

    monkeypatch.setattr(engine, "take_snapshot", snapshot)
    monkeypatch.setattr(engine, "run_checks", checks)
    monkeypatch.setattr(session_module, "build_plan", plan)
    return record
