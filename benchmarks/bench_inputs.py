"""Benchmark `hermes-wizard check` on big and hostile homes against the targets for them.

ARCHITECTURE.md, "Performance targets": "100 profiles checked with `--all-profiles` in under 0.3 s; 100k platform
keys under 2 s; any hostile home (aliases, depth, size) answered in under 1 s."  Each target is judged on
the wall-clock median and on the CPU median (user + system, the command's own cost on a shared machine):

  all-profiles        check --all-profiles on a root with 100 profiles, each a copy of the demo
  platform-keys-100k  check on the demo with 100k unknown `platforms:` keys: past the bound of what the tool
                      judges, so "cannot judge" (HW024); 40k, the most within it (10k: printed, not judged)
  doctor-fix:<keys>   `doctor --fix --yes --no-verify` on a fresh copy of the same home each round; judged as a
                      ratio to the check of it in the same rounds (RATIOS: at most 3x)
  hostile:<case>      check --format json on every home the hostile-input tests build, with their own
                      builders: tests/unit/test_bad_input.py CASES (10 MB config and .env, a 40k-key .env,
                      an alias bomb, 50,000-deep nesting, a 10 MB creds.json, FIFOs, loops, ...) and
                      tests/unit/test_hostile_structure.py (deep JSON files, self-referencing aliases,
                      alias bombs); the target holds for the slowest of them
  bound:<shape>       check --gate on a home whose .env or config.yaml is at a bound of what the tool judges,
  past:<shape>        and one unit past it (cannot judge), in the costliest shapes per unit counted
                      (tests/support/bounded_homes.py); the gate must answer each in under 1 s

Every command runs in one process, interleaved round-robin (benchmarks/bench_check.py's launcher, which
also gives the peak RSS).  `--tree DIR` runs the same commands with another checkout and its `.venv` in the
same rounds (named `name@DIR`), for a before/after on the same noise; only this tree is judged.
A command whose exit code is not a check's answer (0, 1, 2, 78) or that prints a traceback is not timed
and is listed as a warning.  It is a report, not a test: it always exits 0.
Usage: python benchmarks/bench_inputs.py [--rounds 5] [--tree DIR]... [--only SUBSTRING] [--json]
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from bench_check import REPO, Bench, compile_bytecode, copy_demo, figures, measure

sys.path.insert(0, str(REPO / "tests" / "unit"))  # the hostile-input tests' own home builders
sys.path.insert(0, str(REPO / "tests" / "support"))  # the homes at the bounds of what is judged
import bounded_homes
import test_bad_input
import test_hostile_structure

TARGETS = (  # (label, which rows, limit in seconds)
    ("100 profiles, --all-profiles", lambda name: name == "all-profiles", 0.3),
    ("100k platform keys (past the bound: cannot judge) and 40k (judged)",
     lambda name: name in ("platform-keys-100k", "platform-keys-40k"), 2.0),
    ("slowest hostile home", lambda name: name.startswith("hostile:"), 1.0),
    ("the gate on the slowest file at a bound, and one past it",
     lambda name: name.startswith(("bound:", "past:")), 1.0),
)
RATIOS = (  # (label, numerator row, denominator row, limit): the doctor's repair against a check of the home
    ("doctor --fix on 40k platform keys, against check", "doctor-fix:platform-keys-40k", "platform-keys-40k", 3.0),
    ("doctor --fix on 100k platform keys, against check", "doctor-fix:platform-keys-100k", "platform-keys-100k", 3.0),
)
ANSWERS = (0, 1, 2, 78)  # a check's exit codes: 2 is a usage/input error with its message


def answered(rc: int, out: str) -> str | None:
    if rc not in ANSWERS:
        return f"exit {rc}: {out[-500:]}"
    return f"traceback: {out[-500:]}" if "Traceback" in out else None


def demo_with(dest: Path, build) -> Path:
    home = copy_demo(dest)
    build(home)
    return home


def homes(tmp: Path, profiles: int) -> dict[str, tuple[Path, list[str]]]:
    """name -> (home, extra check arguments), built once and shared by every tree."""
    out: dict[str, tuple[Path, list[str]]] = {}
    root = copy_demo(tmp / "root")
    for i in range(profiles):
        copy_demo(root / "profiles" / f"p{i:03d}")
    out["all-profiles"] = (root, ["--all-profiles"])
    for keys in (10_000, 40_000, 100_000):
        many = copy_demo(tmp / f"keys-{keys}")
        (many / "config.yaml").write_text("platforms:\n" + "".join(
            f"  extra{i}:\n    enabled: true\n    dm_policy: open\n" for i in range(keys)))
        out[f"platform-keys-{keys // 1000}k"] = (many, [])
    for case in test_bad_input.CASES:
        if case.root_ok or os.geteuid() != 0:  # root reads a chmod-000 file anyway
            out[f"hostile:{case.id}"] = (demo_with(tmp / "bad" / case.id, case.build), [])
    structure = {**{f"deep-json:{k}": v for k, v in test_hostile_structure.DEEP_JSON_HOMES.items()},
                 **{f"self-alias:{k}": {".env": test_hostile_structure.OPEN, "config.yaml": v}
                    for k, v in test_hostile_structure.SELF_REFERENCING.items()},
                 **{f"alias-bomb:{k}": v for k, v in test_hostile_structure.BOMB_HOMES.items()}}
    for name, files in structure.items():
        safe = name.replace(":", "-").replace(" ", "-")
        out[f"hostile:{name}"] = (test_hostile_structure.make_home(tmp / "structure" / safe, files), [])
    for shape in bounded_homes.SHAPES:  # the gate, as the drop-in runs it, on each file at its bound
        out[f"bound:{shape}"] = (bounded_homes.write_home(tmp / "bound" / shape, shape), ["--gate"])
        if "pure-python" not in shape:
            out[f"past:{shape}"] = (bounded_homes.write_home(tmp / "past" / shape, shape, past=1), ["--gate"])
    return out


def python_of(tree: Path) -> str:
    venv = tree / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def benches(tmp: Path, args) -> list[Bench]:
    (tmp / "userhome").mkdir()
    built = homes(tmp, args.profiles)
    out = []
    for tree, suffix in [(REPO, ""), *((Path(t).resolve(), f"@{Path(t).name}") for t in args.tree)]:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp / "userhome"),
               "LANG": "C.UTF-8", "NO_COLOR": "1", "TERM": "dumb", "PYTHONPATH": str(tree)}
        check = [python_of(tree), "-m", "hermes_wizard", "check"]
        for name, (home, extra) in built.items():
            if args.only and args.only not in name:
                continue
            argv = [*check, *extra, "--home", str(home), *(() if "--gate" in extra else ("--format", "json"))]
            out.append(Bench(name + suffix, lambda argv=argv: argv, env, args.rounds, answered))
        for _, fixed, checked, _ in RATIOS:
            if checked in built and not (args.only and args.only not in fixed):
                doctor = [python_of(tree), "-m", "hermes_wizard", "doctor", "--fix", "--yes", "--no-verify"]
                fresh = _fresh_copies(built[checked][0], tmp / "fixed" / f"{fixed}{suffix}")
                argv = lambda doctor=doctor, fresh=fresh: [*doctor, "--home", str(next(fresh))]
                out.append(Bench(fixed + suffix, argv, env, args.rounds, answered))
    return out


def _fresh_copies(home: Path, where: Path):
    """An endless supply of copies of `home` (the doctor writes the one it is given), made before each run."""
    for i in itertools.count():
        yield Path(shutil.copytree(home, where / str(i), symlinks=True))


def judge(figs: dict) -> list[dict]:
    verdicts = []
    for label, fixed, checked, limit in RATIOS:
        for measure_key, kind in (("wall_median_s", "wall"), ("cpu_median_s", "cpu")):
            if fixed not in figs or checked not in figs:
                verdicts.append({"target": f"{label} ({kind}, median)", "value": None, "worst": None,
                                 "limit": f"<= {limit}x", "verdict": "SKIP", "unit": "x"})
                continue
            ratio = figs[fixed][measure_key] / figs[checked][measure_key]
            verdicts.append({"target": f"{label} ({kind}, median)", "value": round(ratio, 2), "worst": None,
                             "limit": f"<= {limit}x", "verdict": "PASS" if ratio <= limit else "MISS", "unit": "x"})
    for label, picks, limit in TARGETS:
        rows = {name: f for name, f in figs.items() if "@" not in name and picks(name)}
        for measure_key, kind in (("wall_median_s", "wall"), ("cpu_median_s", "cpu")):
            if not rows:
                verdicts.append({"target": f"{label} ({kind}, median)", "value": None, "worst": None,
                                 "limit": f"< {limit}s", "verdict": "SKIP"})
                continue
            worst = max(rows, key=lambda name: rows[name][measure_key])
            value = rows[worst][measure_key]
            verdicts.append({"target": f"{label} ({kind}, median)", "value": round(value, 3),
                             "worst": worst if len(rows) > 1 else None,
                             "limit": f"< {limit}s", "verdict": "PASS" if value < limit else "MISS"})
    return verdicts


def print_report(figs: dict, verdicts: list[dict], problems: list[str]) -> None:
    width = max((len(name) for name in figs), default=10) + 2
    print(f"{'command':<{width}}{'n':>4}{'median ms':>11}{'min ms':>9}{'CPU med ms':>12}{'RSS max MiB':>13}")
    for name, f in sorted(figs.items(), key=lambda item: (item[0].split("@")[0], item[0])):
        print(f"{name:<{width}}{f['n']:>4}{f['wall_median_s'] * 1000:>11.1f}{f['wall_min_s'] * 1000:>9.1f}"
              f"{f['cpu_median_s'] * 1000:>12.1f}{f['rss_max_mib']:>13.1f}")
    print()
    for v in verdicts:
        worst = f", {v['worst']}" if v["worst"] else ""
        value = "-" if v["value"] is None else v["value"]
        print(f"[{v['verdict']}] {v['target']}: {value} {v.get('unit', 's')}{worst} (target {v['limit']})")
    for p in problems:
        print(f"[WARN] {p}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profiles", type=int, default=100)
    parser.add_argument("--tree", action="append", default=[], help="another checkout, with its own .venv")
    parser.add_argument("--only", default="", help="only the commands whose name holds this")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    compile_bytecode()
    with tempfile.TemporaryDirectory(prefix="bench-inputs-") as tmp:
        all_benches = benches(Path(tmp), args)
        problems = measure(all_benches)
    figs = figures(all_benches)
    verdicts = judge(figs)
    if args.json:
        print(json.dumps({"rounds": args.rounds, "profiles": args.profiles, "trees": args.tree,
                          "results": figs, "targets": verdicts, "problems": problems}, indent=2))
    else:
        print_report(figs, verdicts, problems)
    return 0


if __name__ == "__main__":
    sys.exit(main())
