"""Differential: our `check` against the real Hermes of one version, over N generated homes.

    .venv/bin/python scripts/differential.py VERSION [N] [--judge-as X]

Prints how many homes disagree (tests/support/oracle/compare.py decides what must agree: the start verdict,
the refusing platform, the enabled platforms, exit 78), how many where `check` and `check --gate`
disagree, and the first disagreements.  `--judge-as X` judges our side as version X (`--hermes-version
X`), e.g. to measure an older way of judging against this version's oracle.  Needs the oracle venv
of VERSION (scripts/oracle-venv.sh VERSION).
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests" / "support"), str(REPO / "tests")]

import homegen  # noqa: E402
from oracle import Oracle, missing_reason  # noqa: E402
from oracle.compare import mismatches, run_ours  # noqa: E402


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("version")
    parser.add_argument("count", nargs="?", type=int, default=300)
    parser.add_argument("--judge-as", default=None)
    args = parser.parse_args(argv)
    if (reason := missing_reason(args.version)) is not None:
        print(reason, file=sys.stderr)
        return 2
    judge_as = args.judge_as or args.version
    work = Path(tempfile.mkdtemp(prefix="differential-", dir=REPO / ".cache"))
    oracle = Oracle(work / "oracle", version=args.version)
    kinds: collections.Counter[str] = collections.Counter()
    shown, disagree, gate_disagree = [], 0, 0
    try:
        for i, spec in enumerate(homegen.corpus(args.count)):
            home = spec.write(work / f"h{i:04d}")
            answer = oracle.evaluate(home)
            rc, ours, _ = run_ours(home, oracle.host_env(), judge_as)
            problems = mismatches(rc, ours, answer)
            gate_rc, _, _ = _gate(home, oracle.host_env(), judge_as)
            if (gate_rc == 78) != (rc == 78):
                gate_disagree += 1
                problems.append(f"check exit {rc}, gate exit {gate_rc}")
            if problems:
                disagree += 1
                kinds.update(p.split(":")[0] for p in problems)
                if len(shown) < 8:
                    shown.append(f"{spec!r}\n    " + "\n    ".join(problems))
    finally:
        oracle.close()
    print(f"Hermes {args.version}, judged as {judge_as}: {disagree} of {args.count} homes disagree "
          f"({gate_disagree} where check and the gate disagree); kinds: {dict(kinds)}")
    print("\n".join(shown))
    return 1 if disagree else 0


def _gate(home: Path, host_env: dict, version: str) -> tuple[int, None, str]:
    import contextlib
    import io

    from oracle.compare import _environ

    from hermes_wizard.faces.cli import main as cli

    err = io.StringIO()
    with _environ(host_env), contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            rc = cli(["check", "--gate", "--home", str(home), "--hermes-version", version])
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else 2
    return rc or 0, None, err.getvalue()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
