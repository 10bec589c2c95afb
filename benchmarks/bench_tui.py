"""Benchmark: time from process start to the first interactive TUI screen, headless, against the target of
ARCHITECTURE.md, "Performance targets": the first screen within 1.5× of `python -c "import textual.app"` alone.

Each round starts fresh interpreters (cold imports, as a user's `hermes-wizard doctor` has), one per command,
interleaved round-robin so that machine noise hits them alike:

  import textual.app   python -c "import textual.app"                  the floor any Textual app pays
  doctor / setup       the app under Textual's headless driver (`run_test`) on a copy of the demo home; the
                       child ends with os._exit the moment the first screen is mounted and ready for keys, so
                       its time is the time to that screen (a user's session goes on from there). "Ready" is
                       Pilot.pause(): Textual's idle check, which sleeps at least 20 ms, so the wall time
                       carries that and the CPU time does not

Per child the parent takes the wall time and the CPU time (user + system, from `os.wait4`'s rusage). On a
shared machine the wall clock measures the neighbours too; the CPU time is the command's own cost. Each
ratio (median over median) is judged on both and printed as PASS/MISS; an INFO row gives the ratio against
`import textual.app; os._exit(0)` (the floor without the interpreter's teardown, which the probe skips).
With `--tree DIR` (repeatable) the doctor and setup of another checkout with its own `.venv` run in the
same rounds, for a before/after on the same noise. A report, not a test: it always exits 0.
Usage: python benchmarks/bench_tui.py [--rounds 11] [--tree DIR]...
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "assets" / "homes" / "death-loop"
TARGET = 1.5  # ARCHITECTURE.md, "Performance targets": first screen within 1.5x of `import textual.app`
WARMUP = 1  # rounds not counted: page cache
BASELINE, BASELINE_QUICK = "import textual.app", "textual.app+_exit"
FIRST_SCREEN = {"doctor": "FindingsScreen", "setup": "HomeScreen"}  # what each mode shows first
PROBE = """
import asyncio, os, sys
from pathlib import Path
from hermes_wizard.screens.app import WizardApp

async def main():
    app = WizardApp(Path(sys.argv[1]), mode=sys.argv[2])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        os.write(1, type(app.screen).__name__.encode() + b"\\n")  # Textual holds sys.stdout while it runs
        os._exit(0)  # the first screen is up: what follows (a session, teardown) is not its cost
asyncio.run(main())
"""


def python_of(tree: Path) -> str:
    venv = tree / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def compile_bytecode(tree: Path) -> None:
    """Bytecode for the wizard's modules, as an installed wheel has it: with PYTHONDONTWRITEBYTECODE set (as on
    this machine's shells) an edited module would otherwise be compiled from source in every measured run."""
    for package in ("wizard", "screens"):  # the folders of hermes_wizard
        compileall.compile_dir(tree / package, quiet=1)


def commands(trees: list[Path], home: Path) -> dict[str, tuple[list[str], str | None]]:
    """name -> (argv, the first screen it must print or None)."""
    py = python_of(REPO)
    out: dict[str, tuple[list[str], str | None]] = {
        BASELINE: ([py, "-c", "import textual.app"], None),
        BASELINE_QUICK: ([py, "-c", "import textual.app, os; os._exit(0)"], None)}
    for tree in trees:
        suffix = "" if tree == REPO else f":{tree.name}"
        for mode, screen in FIRST_SCREEN.items():
            out[mode + suffix] = ([python_of(tree), "-c", PROBE, str(home), mode], screen)
    return out


def run_once(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, int, str]:
    """(wall seconds, CPU seconds, exit code, stdout) of one child."""
    with tempfile.TemporaryFile("w+") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here; Popen must not wait again
        out.seek(0)
        return wall, usage.ru_utime + usage.ru_stime, proc.returncode, out.read()


def measure(cmds, env, rounds: int) -> tuple[dict[str, tuple[list[float], list[float]]], list[str]]:
    """Round-robin; a command that fails or shows another first screen is dropped with a warning."""
    times: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in cmds}
    problems: list[str] = []
    for r in range(rounds + WARMUP):
        for name, (argv, screen) in cmds.items():
            if name not in times:
                continue
            wall, cpu, code, text = run_once(argv, env, REPO)
            if code != 0 or (screen and text.strip() != screen):
                problems.append(f"{name} not measured: exit {code}, expected {screen or 'exit 0'}: {text[-400:]}")
                del times[name]
            elif r >= WARMUP:
                times[name][0].append(wall)
                times[name][1].append(cpu)
    return times, problems


def judge(medians: dict[str, tuple[float, float]]) -> list[str]:
    """The verdict lines: each first screen's median over the baseline's, on wall and on CPU time
    (medians: name -> (wall s, CPU s)); the teardown-free floor is information only."""
    lines = []
    for name in medians:
        if name in (BASELINE, BASELINE_QUICK) or BASELINE not in medians:
            continue
        for i, clock in enumerate(("wall", "cpu")):
            ratio = medians[name][i] / medians[BASELINE][i]
            lines.append(f"[{'PASS' if ratio <= TARGET else 'MISS'}] first screen {name} / {BASELINE} "
                         f"({clock}, median): {ratio:.2f}x (target <= {TARGET}x)")
        if BASELINE_QUICK in medians:
            lines.append(f"[INFO] first screen {name} / {BASELINE_QUICK} (cpu, median): "
                         f"{medians[name][1] / medians[BASELINE_QUICK][1]:.2f}x")
    return lines


def report(times, problems: list[str], rounds: int) -> None:
    print(f"{rounds} rounds, interleaved; fresh interpreter per run\n")
    print(f"{'command':<24}{'wall med ms':>12}{'wall min ms':>12}{'CPU med ms':>12}{'CPU min ms':>12}")
    medians = {}
    for name, (walls, cpus) in times.items():
        medians[name] = (statistics.median(walls), statistics.median(cpus))
        print(f"{name:<24}{medians[name][0] * 1000:>12.1f}{min(walls) * 1000:>12.1f}"
              f"{medians[name][1] * 1000:>12.1f}{min(cpus) * 1000:>12.1f}")
    print()
    print("\n".join(judge(medians)))
    for problem in problems:
        print(f"[WARN] {problem}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--tree", type=Path, action="append", default=[],
                        help="another checkout with its own .venv, measured in the same rounds")
    args = parser.parse_args()
    trees = [REPO] + [tree.resolve() for tree in args.tree]
    for tree in trees:
        compile_bytecode(tree)
    with tempfile.TemporaryDirectory(prefix="bench-tui-") as tmp:
        home = Path(tmp) / "home"
        shutil.copytree(DEMO, home, symlinks=True)
        (home / ".env").chmod(0o600)  # git does not keep modes
        (Path(tmp) / "userhome").mkdir()
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(Path(tmp) / "userhome"),
               "LANG": "C.UTF-8", "TERM": "xterm-256color"}
        times, problems = measure(commands(trees, home), env, args.rounds)
    report(times, problems, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
