"""The small files a home's gateway writes (gateway_state.json, gateway-starts.log, creds.json, …) read as an
attacker would leave them: a FIFO, a link to /dev/zero, a regular file swapped for a FIFO between the look and
the read.  Each read returns at once, bounded, with the file judged unreadable — it never blocks (root's
doctor, or the gate before every start, would hang) and never reads without end."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# The loop evidence of `check --service` and `doctor`, read in a child so that a blocking read fails the test
# (by its timeout) instead of hanging the suite.
READ_HOME = """
import sys
from pathlib import Path
from hermes_wizard.service.loop import Evidence, read_home
evidence = read_home(Evidence("hermes-gateway.service"), Path(sys.argv[1]))
print(evidence.starts_last_hour, evidence.state_reason)
"""


def read_home_in_child(home: Path) -> str:
    done = subprocess.run([sys.executable, "-c", READ_HOME, str(home)], capture_output=True, text=True, timeout=20,
                          cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


@pytest.mark.parametrize("name", ["gateway_state.json", "gateway-starts.log"])
def test_loop_evidence_does_not_wait_on_a_fifo(demo, name):
    (demo / name).unlink()
    os.mkfifo(demo / name)
    read_home_in_child(demo)  # before: blocked in open() until the 20 s timeout


@pytest.mark.parametrize("name", ["gateway_state.json", "gateway-starts.log"])
def test_loop_evidence_does_not_read_dev_zero_without_end(demo, name):
    (demo / name).unlink()
    (demo / name).symlink_to("/dev/zero")
    read_home_in_child(demo)  # before: read until memory ran out (or the timeout)


def test_loop_evidence_still_reads_the_gateways_own_record(demo):
    starts, state = read_home_in_child(demo).split(maxsplit=1)
    assert state.startswith("whatsapp:") and int(starts) > 0


def test_a_file_swapped_for_a_fifo_after_the_look_is_not_waited_on(tmp_path):
    """The window between stat() and open(): what was looked at is what is read, or nothing is."""
    from hermes_wizard.core.smallfile import read_as_stated

    path = tmp_path / "gateway_state.json"
    path.write_text('{"gateway_state": "running"}')
    seen = path.stat()
    os.mkfifo(tmp_path / "fifo")
    os.replace(tmp_path / "fifo", path)
    with pytest.raises(OSError, match="changed"):
        read_as_stated(path, seen, 1024)


def test_what_was_looked_at_is_read_whole_and_bounded(tmp_path):
    from hermes_wizard.core.smallfile import read_as_stated

    path = tmp_path / "creds.json"
    path.write_bytes(b"x" * 100)
    assert read_as_stated(path, path.stat(), 1024) == b"x" * 100
    with pytest.raises(OSError, match="larger"):
        read_as_stated(path, path.stat(), 50)


# What version of Hermes a home runs is read from its own venv (`<home>/hermes-agent/venv`): the home's
# owner writes those files too.  The gate reads them before every start.
def fake_install(home: Path) -> Path:
    site = home / "hermes-agent" / "venv" / "lib" / "python3.11" / "site-packages"
    (site / "gateway").mkdir(parents=True)
    (site / "gateway" / "config.py").write_text("# not Hermes: detection never imports it\n")
    for info in ("hermes_agent-0.19.0.dist-info", "hermes_wizard-0.1.0.dist-info"):
        (site / info).mkdir()
    return site


def run_in_child(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hermes_wizard", *argv], capture_output=True, text=True, timeout=20,
                          cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})


@pytest.mark.parametrize("hostile", ["fifo", "dev-zero"])
@pytest.mark.parametrize("name", ["hermes_agent-0.19.0.dist-info/METADATA",
                                  "hermes_wizard-0.1.0.dist-info/entry_points.txt"])
def test_the_installed_versions_files_are_not_waited_on(demo, name, hostile):
    site = fake_install(demo)
    (site / "hermes_agent-0.19.0.dist-info" / "METADATA").write_text("Name: hermes-agent\nVersion: 0.19.0\n\n")
    target = site / name
    if target.exists():
        target.unlink()
    if hostile == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/zero")
    gate = run_in_child("check", "--gate", "--home", str(demo))  # before: blocked until the timeout
    assert gate.returncode == 78, gate.stderr
    for output in ("text", "json"):  # the text report also looks for this tool's plugin in Hermes's venv
        check = run_in_child("check", "--home", str(demo), "--format", output)
        assert check.returncode == 78, check.stderr
