"""The benchmarks judge the speed target (ARCHITECTURE.md, "Performance targets") as written: `check` and the gate
within 1.1x the time of the teardown-free floor `python -c "import yaml, dotenv; import os; os._exit(0)"` — not of
the baseline with the interpreter's teardown, which they measure and print for information only."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
FLOOR = "import yaml, dotenv; import os; os._exit(0)"


def bench(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}_under_test", BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def figures(floor_ms: float, baseline_ms: float, check_ms: float, gate_ms: float) -> dict:
    one = lambda ms: {"wall_median_s": ms / 1000, "cpu_median_s": ms / 1000, "rss_median_mib": 16.0}
    return {"floor": one(floor_ms), "baseline": one(baseline_ms), "check-json": one(check_ms),
            "gate-refuse": one(gate_ms), "all-profiles": one(200)}


def verdicts(figs: dict) -> dict[str, str]:
    return {v["target"]: v["verdict"] for v in bench("bench_check").judge(figs)}


def test_bench_check_times_the_floor_as_design_writes_it():
    assert bench("bench_check").FLOOR == FLOOR
    assert bench("bench_cpu").FLOOR == FLOOR


def test_within_the_target_only_within_1_1x_the_floor():
    found = verdicts(figures(floor_ms=44.0, baseline_ms=52.0, check_ms=48.0, gate_ms=46.0))  # 1.09x, 1.05x
    judged = {label: verdict for label, verdict in found.items() if "/ floor" in label}
    assert len(judged) == 4 and set(judged.values()) == {"PASS"}  # check and gate, each on wall and on CPU time


@pytest.mark.parametrize("check_ms,gate_ms,missed", [
    (50.0, 46.0, "check"),  # 1.14x the floor, though 0.96x the baseline with teardown
    (46.0, 49.0, "check --gate"),  # 1.11x the floor
])
def test_a_command_over_1_1x_the_floor_misses_whatever_the_baseline_says(check_ms, gate_ms, missed):
    found = verdicts(figures(floor_ms=44.0, baseline_ms=52.0, check_ms=check_ms, gate_ms=gate_ms))
    assert found[f"{missed} / floor (wall, median)"] == found[f"{missed} / floor (cpu, median)"] == "MISS"
    assert not any("baseline" in label for label in found)  # the teardown baseline is information only


def test_bench_cpu_gives_each_wizard_command_its_verdict_against_the_floor():
    rows = {row["command"]: row for row in bench("bench_cpu").report(
        {"floor": [40.0] * 3, "baseline": [48.0] * 3, "check": [45.0] * 3, "gate": [43.0] * 3,
         "check:old": [60.0] * 3})}
    assert rows["floor"]["verdict"] == rows["baseline"]["verdict"] == ""
    assert (rows["check"]["ratio"], rows["check"]["verdict"]) == (1.125, "MISS")  # 0.94x the baseline
    assert (rows["gate"]["ratio"], rows["gate"]["verdict"]) == (1.075, "PASS")
    assert rows["check:old"]["verdict"] == "MISS" and rows["check"]["ratio_baseline"] == 0.938
