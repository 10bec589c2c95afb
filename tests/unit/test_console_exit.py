"""How the console script ends (wizard/faces/entry.py `console`): a check skips the interpreter's
teardown, so its output must be complete, its exit code exact, and a reader that leaves early must not
turn into a traceback or exit 120 — what the interpreter's own teardown does with an unflushed pipe."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_wizard.faces.cli import main

REPO = Path(__file__).resolve().parents[2]


def wizard(*argv: str, extra_env: dict[str, str] | None = None, **kwargs) -> subprocess.CompletedProcess:
    """`python -m hermes_wizard ARGV`: the console entry, in a fresh interpreter, its output buffered as under
    systemd or in a pipeline (PYTHONUNBUFFERED, which a developer's shell may set, would hide a lost flush)."""
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(REPO)}
    env.pop("PYTHONUNBUFFERED", None)
    env.update(extra_env or {})
    return subprocess.run([sys.executable, "-m", "hermes_wizard", *argv], env=env, timeout=60, cwd=REPO, **kwargs)


@pytest.mark.parametrize("profiles", [0, 30])
def test_the_report_arrives_whole_through_a_pipe(demo, capsys, profiles):
    """One home's JSON (a few KiB) stays in the stream's buffer until the end: only the console's own
    flush sends it.  Thirty profiles are more than a pipe holds: written while being read."""
    for i in range(profiles):
        shutil.copytree(demo, demo / "profiles" / f"p{i:02d}", ignore=shutil.ignore_patterns("profiles"))
    argv = ["check", "--all-profiles", "--home", str(demo), "--format", "json"]
    done = wizard(*argv, capture_output=True, text=True)
    assert main(argv) == done.returncode == 78
    assert done.stdout == capsys.readouterr().out
    assert len(json.loads(done.stdout)) == profiles + 1
    assert len(done.stdout) < 8192 if not profiles else len(done.stdout) > 65536
    assert done.stderr == ""


def test_a_reader_that_left_costs_no_traceback_and_keeps_the_verdict(demo):
    """The reader's end is closed before the check writes (`check | true`): the report, smaller than the
    stream's buffer, fails only at the final flush.  Without the console's own flush the interpreter
    says "Exception ignored ... BrokenPipeError" and exits 120."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = wizard("check", "--home", str(demo), stdout=write_end, stderr=subprocess.PIPE, text=True)
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (78, "")


def test_the_gate_and_a_healthy_check_keep_their_exit_codes(demo, tmp_path):
    assert wizard("check", "--gate", "--home", str(demo), capture_output=True).returncode == 78
    empty = tmp_path / "empty"
    empty.mkdir()
    assert wizard("check", "--home", str(empty), capture_output=True).returncode == 0
    usage = wizard("check", "--format", "yaml", capture_output=True, text=True)
    assert usage.returncode == 2 and "invalid choice" in usage.stderr



@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("argv", [["check", "--format", "json"], ["explain", "HW101"]], ids=["check", "explain"])
def test_output_that_cannot_be_written_exits_74_with_one_line(demo, argv, buffered):
    """A full disk under the report: one line on stderr and exit 74 (EX_IOERR), whether the failure comes
    while writing (unbuffered) or at the last flush — not "internal error, please report it" (exit 70),
    and not the interpreter's "Exception ignored" with exit 120."""
    home = ["--home", str(demo)] if argv[0] == "check" else []
    with open("/dev/full", "w") as full:
        done = wizard(*argv, *home, stdout=full, stderr=subprocess.PIPE, text=True,
                      extra_env={} if buffered else {"PYTHONUNBUFFERED": "1"})
    assert done.returncode == 74, done.stderr
    assert done.stderr.startswith("hermes-wizard: cannot write the output: No space left on device")
    assert done.stderr.count("\n") == 1 and "Exception" not in done.stderr


def test_a_closed_stdout_is_said_and_the_gate_keeps_its_verdict(demo):
    """`check >&-`: Python starts with no stdout at all.  The gate writes only to stderr: its exit code
    is systemd's answer and does not change."""
    def close_stdout():
        os.close(1)

    done = wizard("check", "--home", str(demo), stderr=subprocess.PIPE, text=True, preexec_fn=close_stdout)
    assert (done.returncode, done.stderr) == (74, "hermes-wizard: cannot write the output: the stream is closed; "
                                                  "nothing was written\n")
    with open("/dev/full", "w") as full:
        gate = wizard("check", "--gate", "--home", str(demo), stdout=full, stderr=subprocess.PIPE, text=True)
    assert gate.returncode == 78 and "Hermes would refuse to start" in gate.stderr


@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
def test_the_gate_keeps_its_verdict_when_its_line_cannot_be_written(demo, tmp_path, buffered):
    """Under systemd the gate's exit code is the decision (the drop-in maps anything but 78 to "start"): a
    journal line lost to a full disk must not turn a refusal into a start — the restart loop again."""
    extra = {} if buffered else {"PYTHONUNBUFFERED": "1"}
    empty = tmp_path / "empty"
    empty.mkdir()
    for home, verdict in ((demo, 78), (empty, 0)):
        with open("/dev/full", "w") as full:
            gate = wizard("check", "--gate", "--home", str(home), stdout=full, stderr=full, extra_env=extra)
        assert gate.returncode == verdict
