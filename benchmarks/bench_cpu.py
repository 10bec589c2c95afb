"""CPU time of `check` and `check --gate` beside ARCHITECTURE.md's teardown-free floor, side by side.

Wall clock on a shared machine measures the neighbours; the CPU time a child spent (user + system, from
`os.wait4`'s rusage) measures the command. Every command runs once per round, round-robin, so slow
phases of the machine hit all of them alike; the report gives the median and minimum over the rounds
and each median's ratio to the floor's, judged against the target of ARCHITECTURE.md, "Performance targets"
(check and gate within 1.1x the floor):

  floor      python -c "import yaml, dotenv; import os; os._exit(0)"   (this tree's interpreter)
  baseline   python -c "import yaml, dotenv"   (with the interpreter's teardown; for information)
  check      python -m hermes_wizard check --home DEMO --format json   (exit 78)
  gate       python -m hermes_wizard check --gate --home DEMO          (exit 78)

With `--tree DIR` (repeatable) the check and gate of another checkout with its own `.venv` (an older
commit, say) run in the same rounds, for a before/after on the same noise. DEMO is a copy of
assets/homes/death-loop. It is a report, not a test: it always exits 0.
Usage: python benchmarks/bench_cpu.py [--rounds 31] [--tree DIR]... [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WARMUP = 2  # rounds not counted: page cache and bytecode
FLOOR = "import yaml, dotenv; import os; os._exit(0)"  # ARCHITECTURE.md's teardown-free floor, verbatim
LIMIT = 1.1  # check and gate: median within 1.1x the floor's
BASES = ("floor", "baseline")  # the commands that are not the wizard (exit 0)


def python_of(tree: Path) -> str:
    venv = tree / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def commands(trees: list[Path], home: Path) -> dict[str, list[str]]:
    out = {"floor": [python_of(REPO), "-c", FLOOR], "baseline": [python_of(REPO), "-c", "import yaml, dotenv"]}
    for tree in trees:
        py = python_of(tree)
        suffix = "" if tree == REPO else f":{tree.name}"
        out[f"check{suffix}"] = [py, "-m", "hermes_wizard", "check", "--home", str(home), "--format", "json"]
        out[f"gate{suffix}"] = [py, "-m", "hermes_wizard", "check", "--gate", "--home", str(home)]
    return out


def cpu_ms(argv: list[str], env: dict[str, str]) -> tuple[float, int]:
    """(user + system CPU milliseconds, exit code) of one run of argv."""
    proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    return (usage.ru_utime + usage.ru_stime) * 1000, os.waitstatus_to_exitcode(status)


def measure(cmds: dict[str, list[str]], env: dict[str, str], rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in cmds}
    for r in range(rounds + WARMUP):
        for name, argv in cmds.items():
            ms, code = cpu_ms(argv, env)
            expected = 0 if name in BASES else 78
            if code != expected:  # timing a command that does not do its job would mislead
                raise SystemExit(f"{name}: exit {code}, expected {expected}: {' '.join(argv)}")
            if r >= WARMUP:
                times[name].append(ms)
    return times


def report(times: dict[str, list[float]]) -> list[dict]:
    """One row per command: its median's ratio to the floor's (judged for the wizard's commands) and,
    for information, to the baseline's."""
    floor, base = (statistics.median(times[name]) for name in BASES)
    rows = []
    for name, ms in times.items():
        ratio = statistics.median(ms) / floor
        rows.append({"command": name, "n": len(ms), "cpu_median_ms": round(statistics.median(ms), 1),
                     "cpu_min_ms": round(min(ms), 1), "ratio": round(ratio, 3),
                     "ratio_baseline": round(statistics.median(ms) / base, 3),
                     "verdict": "" if name in BASES else ("PASS" if ratio <= LIMIT else "MISS")})
    return rows


def compile_bytecode(trees: list[Path]) -> None:
    """Bytecode for each tree's modules, as an installed wheel has it: with PYTHONDONTWRITEBYTECODE set
    (as on this machine's shells) an edited module's stale .pyc would be compiled from source every run."""
    import compileall

    for tree in trees:
        for package in ("wizard", "screens"):  # the folders of hermes_wizard
            if (tree / package).is_dir():
                compileall.compile_dir(tree / package, quiet=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=31)
    parser.add_argument("--tree", type=Path, action="append", default=[],
                        help="another checkout with its own .venv, measured in the same rounds")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    trees = [REPO, *(t.resolve() for t in args.tree)]
    compile_bytecode(trees)
    with tempfile.TemporaryDirectory(prefix="bench-cpu-", dir=REPO / ".cache") as tmp:
        home = Path(shutil.copytree(REPO / "assets" / "homes" / "death-loop", Path(tmp) / "demo"))
        (home / ".env").chmod(0o600)  # git does not keep modes
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp, "LANG": "C.UTF-8",
               "NO_COLOR": "1", "TERM": "dumb"}
        rows = report(measure(commands(trees, home), env, args.rounds))
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"CPU time (user+sys) per child, {args.rounds} interleaved rounds; ratio = median / floor median "
          f"(target <= {LIMIT}); vs baseline = median / baseline median (information)")
    print(f"{'command':<20}{'n':>4}{'median ms':>11}{'min ms':>9}{'ratio':>8}{'vs baseline':>13}")
    for row in rows:
        print(f"{row['command']:<20}{row['n']:>4}{row['cpu_median_ms']:>11.1f}{row['cpu_min_ms']:>9.1f}"
              f"{row['ratio']:>8.3f}{row['ratio_baseline']:>13.3f}  {row['verdict']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
