"""Benchmark: time from process start to the first interactive TUI screen, headless.

Each round starts a fresh interpreter (cold imports, as a user's `hermes-wizard doctor`
has) that runs the app under Textual's headless driver and reports, from inside, the
moment the first screen is mounted and ready for keys.  Side by side in the same run:
`python -c "import textual.app"` alone, the floor any Textual app pays.

Target (DESIGN.md): first screen under 0.6 s.  A report, not a test: exits 0.
Usage: python benchmarks/bench_tui.py [--rounds 10]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "assets" / "homes" / "death-loop"
PROBE = """
import asyncio, sys, time
start = float(sys.argv[1])
from pathlib import Path
from hermes_wizard.screens.app import WizardApp

async def main():
    app = WizardApp(Path(sys.argv[2]), mode=sys.argv[3])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        print(f"{time.time() - start:.4f} {type(app.screen).__name__}")
asyncio.run(main())
"""


def python() -> str:
    venv = REPO / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-tui-"))
    home = scratch / "home"
    shutil.copytree(DEMO, home)
    (home / ".env").chmod(0o600)
    results = {"doctor": [], "setup": [], "import textual.app": []}
    for _ in range(args.rounds):
        for mode in ("doctor", "setup"):
            start = time.time()
            out = subprocess.run([python(), "-c", PROBE, str(start), str(home), mode], cwd=REPO,
                                 capture_output=True, text=True, check=True).stdout.split()
            results[mode].append(float(out[0]))
        start = time.perf_counter()
        subprocess.run([python(), "-c", "import textual.app"], check=True)
        results["import textual.app"].append(time.perf_counter() - start)
    print(f"{'first screen':24} {'median s':>9} {'min s':>7}")
    for name, values in results.items():
        print(f"{name:24} {statistics.median(values):9.3f} {min(values):7.3f}")
    worst = max(statistics.median(results["doctor"]), statistics.median(results["setup"]))
    print(f"\n[{'PASS' if worst < 0.6 else 'MISS'}] first interactive screen (median, worst mode): "
          f"{worst:.3f} s (target < 0.6 s)")
    shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
