"""Subprocess driver for tests/unit/test_apply.py: die in the middle of an apply.

    python tests/support/apply_kill_driver.py HOME N [--after]

Plans the safe repairs of HOME (exactly as `doctor --fix --yes` would) and applies
them with every `FileOps` method — the apply's own writes, the backup copies, the
manifest and the journal's closing — calling `os._exit(137)` at the N-th FileOps call
of the whole run (counting from 1): before the call, or with `--after`, just after it.
No Python cleanup runs — no rollback, no `finally`, no atexit — which is what a
SIGKILL or an OOM kill leaves behind.  Exit 3 means step N was never reached.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from hermes_wizard.judge.engine import evaluate
from hermes_wizard.plan.repairs import plan_repairs
from hermes_wizard.write.apply import FileOps, apply_plan

STEPS = ("open_tmp", "write", "fsync", "close", "set_owner_mode", "replace", "fsync_dir", "chmod", "unlink")
COUNT = {"n": 0, "due": 0, "after": False}


def _killing(step: str):
    real = getattr(FileOps, step)

    def method(self, *args):
        COUNT["n"] += 1
        due = COUNT["n"] == COUNT["due"]
        if due and not COUNT["after"]:
            os._exit(137)
        out = real(self, *args)
        if due:
            os._exit(137)
        return out

    method.__name__ = step
    return method


def main(argv: list[str]) -> int:
    home = Path(argv[0])
    COUNT.update(due=int(argv[1]), after="--after" in argv[2:])
    repair = plan_repairs(evaluate(home, base_env={}))
    if not repair.plan:
        print("nothing to apply", file=sys.stderr)
        return 4
    for step in STEPS:
        setattr(FileOps, step, _killing(step))
    apply_plan(repair.plan, base_env={})
    print(f"step {COUNT['due']} never reached ({COUNT['n']} calls)", file=sys.stderr)
    return 3


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
