"""The loop stop, proven on a real systemd with the real Hermes (not a fake one: the promise is about what systemd
does).

One private systemd 252 is booted for the module (tests/support/real_systemd.py: new PID, mount and network
namespaces, private /tmp and /run, every image unit masked).  Its units are shaped like Hermes's own
system unit (`Restart=always`, `StartLimitIntervalSec=0`, `RestartPreventExitStatus=78`,
`Environment=HERMES_HOME=…`, RestartSec=1 for speed) and start the **real `hermes gateway run`** from
the oracle venv on copies of the demo home.  `hermes-wizard` runs inside the namespaces with the real
`systemctl` and `journalctl`.  Windows are measured with systemd's own counters, never assumed.

The work folder is outside the private mounts (real_systemd.work_root: the checkout's .cache, or the
user's cache folder for a checkout under /tmp); the checkout and the venvs are kept (bound back) when
they live under /tmp, as a folder under /tmp made by the fixture is, and a test reads it from inside.
The last test stops systemd by its pid and checks the machine's /tmp.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import oracle
import pytest
from real_systemd import PrivateSystemd, Unavailable, boot_script, hidden_by, wait_for, why_unavailable, work_root
from scratch_root import candidate_parents, scratch_root
from unit.test_versions import fake_hermes

from hermes_wizard.service import dropin
from hermes_wizard.service.units import read_systemd
from system.test_gate_as_unit_user import plugin_wizard, refusing_home

# one booted systemd; the tests build on each other in order, so under pytest-xdist (--dist loadgroup) they
# stay in one worker
pytestmark = [pytest.mark.systemd, pytest.mark.oracle, pytest.mark.slow, pytest.mark.xdist_group("real-systemd")]

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "assets" / "homes" / "death-loop"
WIZARD = Path(sys.executable).parent / "hermes-wizard"
UNIT = "hermes-gateway.service"
GATED = "hermes-gateway-gated.service"
REFUSING = "Refusing to start"


def hermes_unit(home: Path, work: Path, extra_env: str = "") -> str:
    """Hermes 0.19.0's system unit (hermes_cli/gateway.py:2810-2842) for `home`, RestartSec=1 for speed."""
    venv = oracle.venv_dir()
    return f"""[Unit]
Description=Hermes Agent Gateway - Messaging Platform Integration
After=network-online.target
Wants=network-online.target
StartLimitIntervalSec=0

[Service]
Type=simple
User=root
Group=root
ExecStart={venv}/bin/python -m hermes_cli.main gateway run
WorkingDirectory={home}
Environment="HOME={work / 'userhome'}"
Environment="PATH={venv}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
Environment="VIRTUAL_ENV={venv}"
Environment="HERMES_HOME={home}"
Environment="HERMES_DISABLE_LAZY_INSTALLS=1"
{extra_env}Restart=always
RestartSec=1
RestartForceExitStatus=75
RestartPreventExitStatus=78
KillMode=mixed
KillSignal=SIGTERM
TimeoutStopSec=30
StandardOutput=journal
StandardError=journal

[Install]
WantedBy=multi-user.target
"""


def copy_demo(dest: Path) -> Path:
    shutil.copytree(DEMO, dest)
    (dest / ".env").chmod(0o600)
    (dest / "gateway-starts.log").unlink(missing_ok=True)  # the loop measured is this test's own
    return dest


@pytest.fixture(scope="module")
def world():
    """The booted systemd, the work folder (outside /tmp) and a record of the machine's /tmp before."""
    reason = why_unavailable()
    if reason:
        pytest.skip(reason)
    oracle.require_oracle()
    if not WIZARD.is_file():
        pytest.skip(f"{WIZARD} is not installed (the test command installs it)")
    work = work_root(REPO) / f"run-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    (work / "userhome").mkdir(parents=True)
    kept_in_tmp = Path(tempfile.mkdtemp(prefix="hermes-wizard-kept-", dir="/tmp"))  # must show inside as it is
    (kept_in_tmp / "probe").write_text(f"the machine's /tmp, seen from inside ({os.getpid()})\n")
    sentinel = Path("/tmp") / f"hermes-wizard-real-systemd-sentinel-{os.getpid()}"
    sentinel.write_text("a file systemd-tmpfiles --boot --remove would delete\n")
    os.utime(sentinel, (time.time() - 400 * 86400,) * 2)  # older than any tmpfiles age rule
    before = {entry.name for entry in os.scandir("/tmp") if _older_than(entry, 3600)}
    keep = [REPO, oracle.venv_dir(), Path(sys.prefix), work, kept_in_tmp]
    sd = PrivateSystemd(work / "systemd", keep=keep)
    try:
        sd.start()
    except Unavailable as exc:
        sentinel.unlink()
        shutil.rmtree(kept_in_tmp, ignore_errors=True)
        pytest.skip(str(exc))
    state = {"sd": sd, "work": work, "sentinel": sentinel, "before": before, "kept_in_tmp": kept_in_tmp}
    yield state
    sd.stop()
    sentinel.unlink(missing_ok=True)
    shutil.rmtree(kept_in_tmp, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)


def _older_than(entry, seconds: float) -> bool:
    try:
        return time.time() - entry.stat(follow_symlinks=False).st_mtime > seconds
    except OSError:
        return False


def wizard(sd: PrivateSystemd, world, *args: str, timeout: float = 300):
    return sd.run([str(WIZARD), *args], check=False, env={"HOME": str(world["work"] / "userhome"),
                                                          "NO_COLOR": "1"}, timeout=timeout)




# ---------------------------------------------------------------------------------------------------------------


def test_the_work_folder_is_never_one_the_private_mounts_hide():
    for checkout in (Path("/tmp/hw-clone"), Path("/var/tmp/hw-clone"), Path("/run/user/0/hw-clone")):
        root = work_root(checkout)
        assert hidden_by(root) is None and not root.is_relative_to(checkout), root
    if hidden_by(REPO) is None:
        assert work_root(REPO) == (REPO / ".cache" / "real-systemd").resolve()
    with pytest.raises(ValueError, match="cannot be kept"):  # replaced wholesale, never bound back
        boot_script(REPO / ".cache" / "x", [Path("/etc/systemd/system/hermes.service.d")])


def test_a_kept_folder_under_tmp_is_the_machines_folder_inside(world):
    sd, kept = world["sd"], world["kept_in_tmp"]
    seen = sd.run(["cat", str(kept / "probe")], check=False)
    assert seen.returncode == 0 and seen.stdout == (kept / "probe").read_text(), seen.stderr
    assert sd.run(["test", "-x", str(WIZARD)], check=False).returncode == 0  # the tool under test, wherever it is


def test_the_real_hermes_loops_under_a_real_systemd(world):
    sd, work = world["sd"], world["work"]
    home = copy_demo(work / "home")
    sd.install(UNIT, hermes_unit(home, work))
    sd.run(["systemctl", "start", UNIT])
    grown = wait_for(lambda: int(sd.show(UNIT).get("NRestarts", 0)) >= 3, timeout=60)
    journal = sd.journal(UNIT)
    assert grown, f"NRestarts stayed at {sd.show(UNIT).get('NRestarts')}:\n" + "\n".join(journal[-20:])
    assert sum(REFUSING in line for line in journal) >= 3
    assert sd.show(UNIT)["ExecMainStatus"] == "0"  # the refusal exits 0: Restart=always restarts it


def test_check_and_doctor_report_systemds_own_figures(world):
    sd, work = world["sd"], world["work"]
    done = wizard(sd, world, "check", "--service", "--home", str(work / "home"), "--format", "json")
    assert done.returncode == 78, done.stdout + done.stderr
    findings = {f["code"]: f for f in json.loads(done.stdout)["findings"]}
    message = findings["HW404"]["message"]
    restarts = int(message.split("has restarted ")[1].split(" times")[0].replace(",", ""))
    assert restarts >= 3 and restarts <= int(sd.show(UNIT)["NRestarts"])  # systemd's counter, as it was then
    assert "last exit status 0" in message and f"its journal's last refusal: \"{REFUSING}: whatsapp" in message
    assert "HW401" in findings
    report = wizard(sd, world, "doctor", "--home", str(work / "home"))
    assert report.returncode == 1 and "HW404 service-restart-loop" in report.stdout, report.stdout + report.stderr


def test_doctor_stops_the_loop_and_the_gateway_stays_up(world):
    sd, work = world["sd"], world["work"]
    home = work / "home"
    done = wizard(sd, world, "doctor", "--fix", "--yes", "--install-gate", "--restart", "--settle", "6",
                  "--no-verify", "--home", str(home))
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "Stopped hermes-gateway.service (the loop is over)." in out
    assert "Verified: the gateway is running" in out
    assert (home / ".wizard-backups").is_dir()
    hermes = oracle.run_gateway(home, work / "oracle", stop_after_check=True)  # Hermes agrees it starts
    assert hermes.report is not None and hermes.report["reason"] is None, hermes.output[-2000:]
    refusals = sum(REFUSING in line for line in sd.journal(UNIT))
    seen = sd.watch(UNIT, 8)  # measured, not assumed
    assert all(s["ActiveState"] == "active" and s["SubState"] == "running" for s in seen), seen
    assert {s["NRestarts"] for s in seen} == {"0"}, seen
    assert sum(REFUSING in line for line in sd.journal(UNIT)) == refusals


def test_a_home_still_refused_is_skipped_by_the_gate_and_the_loop_ends(world):
    sd, work = world["sd"], world["work"]
    home = copy_demo(work / "refused")
    sd.install(GATED, hermes_unit(home, work))
    sd.run(["systemctl", "start", GATED])
    assert wait_for(lambda: int(sd.show(GATED).get("NRestarts", 0)) >= 2, timeout=60)
    done = wizard(sd, world, "doctor", "--install-gate", "--yes", "--home", str(home))  # the gate, no repair
    out = done.stdout + done.stderr
    assert "Not restarting hermes-gateway-gated.service" in out and "is stopped" in out, out
    sd.run(["systemctl", "start", GATED])  # someone starts it anyway: the gate skips the start
    skipped = wait_for(lambda: sd.show(GATED).get("Result") == "exec-condition", timeout=30)
    assert skipped, sd.show(GATED)
    seen = sd.watch(GATED, 6)
    assert {(s["ActiveState"], s["SubState"], s["Result"]) for s in seen} == {("inactive", "dead", "exec-condition")}
    assert len({s["NRestarts"] for s in seen}) == 1, seen  # not growing
    assert any("hermes-wizard gate: Hermes would refuse to start (whatsapp" in line for line in sd.journal(GATED))


def test_the_gate_never_blocks_a_healthy_home(world):
    sd = world["sd"]
    dropin = Path(f"/etc/systemd/system/{UNIT}.d/hermes-wizard-gate.conf")
    assert sd.run(["test", "-f", str(dropin)], check=False).returncode == 0  # installed by doctor above
    sd.run(["systemctl", "restart", UNIT])
    seen = sd.watch(UNIT, 5)
    assert seen[-1]["ActiveState"] == "active" and seen[-1]["Result"] == "success", seen


def test_without_hermes_wizard_the_guard_lets_the_gateway_start(world):
    """A gate whose hermes-wizard is gone (moved, uninstalled after doctor installed it) never blocks a start.
    doctor no longer installs such a gate (it tries the gate first), so the drop-in is written as it was left."""
    sd, work = world["sd"], world["work"]
    home = copy_demo(work / "no-wizard")
    name = "hermes-gateway-nowiz.service"
    sd.install(name, hermes_unit(home, work))
    (work / name).write_text(hermes_unit(home, work))
    unit = read_systemd(work / name, "system", Path("/"), work / "userhome")
    sd.write(f"/etc/systemd/system/{name}.d/hermes-wizard-gate.conf",
             dropin.gate_text(unit, work / "gone" / "hermes-wizard"))
    sd.run(["systemctl", "daemon-reload"])
    sd.run(["systemctl", "restart", name])  # the gate's command is missing
    assert wait_for(lambda: any(REFUSING in line for line in sd.journal(name)), 30)
    assert sd.show(name)["Result"] != "exec-condition"  # Hermes itself ran
    sd.run(["systemctl", "stop", name])


def test_a_gate_for_a_unit_run_by_another_user_runs_as_that_user(world, owner):
    """A gate is installed only once it ran as the unit's user, on the real systemd: a system unit with User= a
    throw-away user, this tool installed where only root can run it.  doctor tries the gate as that user and picks the
    hermes-wizard in the user's Hermes venv; systemd then runs it as that user before each start and skips the
    refusal."""
    sd, work = world["sd"], world["work"]
    # The user must pass through every folder above the home and the script: the work folder (the checkout's
    # .cache) may lie under a 0700 /root or /tmp, and the private mounts hide /tmp and /var/tmp from the units.
    seen_inside = [parent for parent in [work, *candidate_parents()] if hidden_by(parent) is None]
    with scratch_root("hw-other-user-", candidates=seen_inside) as base:
        _gate_as_the_units_user(sd, world, base, owner)


def _gate_as_the_units_user(sd, world, base: Path, owner) -> None:
    home = refusing_home(base, owner)
    script, runs = plugin_wizard(base, home, owner)
    name = "hermes-gateway-other.service"
    sd.install(name, f"""[Service]
Type=simple
User={owner[0]}
ExecStart=/bin/sh -c 'echo "Refusing to start: whatsapp"; exit 0'
Environment="HERMES_HOME={home}"
Restart=always
RestartSec=1
""")
    sd.run(["systemctl", "start", name])
    assert wait_for(lambda: int(sd.show(name)["NRestarts"]) >= 2, timeout=60), sd.show(name)
    done = wizard(sd, world, "doctor", "--install-gate", "--yes", "--unit", f"/etc/systemd/system/{name}",
                  "--home", str(home))
    out = done.stdout + done.stderr
    assert f"Gate tried as {owner[0]}" in out and "exited 78 (it skips the start)" in out, out
    gate = sd.run(["cat", f"/etc/systemd/system/{name}.d/hermes-wizard-gate.conf"]).stdout
    assert f'w="{script}"' in gate and str(WIZARD) not in gate
    sd.run(["systemctl", "reset-failed", name], check=False)
    sd.run(["systemctl", "restart", name], check=False)
    assert wait_for(lambda: sd.show(name)["Result"] == "exec-condition", timeout=60), sd.show(name)
    assert any("hermes-wizard gate: Hermes would refuse to start (whatsapp" in line for line in sd.journal(name))
    ran = [json.loads(line) for line in runs.read_text().splitlines()]
    assert {run["uid"] for run in ran} == {owner[1]} and ran[-1]["argv"][:2] == ["check", "--gate"]
    sd.run(["systemctl", "stop", name], check=False)


def test_an_unmodelled_hermes_that_cannot_be_asked_is_never_blocked_by_the_gate(world):
    """A Hermes no model judges is asked; this one's Python cannot import Hermes, so there is no verdict and the
    gate lets the gateway start, saying so in one journal line."""
    sd, work = world["sd"], world["work"]
    home = copy_demo(work / "unmodelled")
    fake = fake_hermes(work / "hermes-0.20", "0.20.0")
    (fake / "bin").mkdir()
    (fake / "bin" / "python").symlink_to(sys.executable)
    unit = "hermes-gateway-next.service"
    sd.install(unit, hermes_unit(home, work, f'Environment="HERMES_WIZARD_HERMES_PYTHON={fake}/bin/python"\n'))
    done = wizard(sd, world, "doctor", "--install-gate", "--yes", "--unit", f"/etc/systemd/system/{unit}",
                  "--home", str(home))
    assert "hermes-wizard-gate.conf" in done.stdout, done.stdout + done.stderr
    sd.run(["systemctl", "restart", unit])
    assert wait_for(lambda: any(REFUSING in line for line in sd.journal(unit)), 30), sd.journal(unit)
    journal = sd.journal(unit)
    assert any("Hermes 0.20.0 is not modelled and could not be asked" in line and "letting the gateway start" in line
               for line in journal), journal[-10:]
    sd.run(["systemctl", "stop", unit])


def test_undo_takes_the_gate_out_and_the_unit_behaves_as_before(world):
    sd, work = world["sd"], world["work"]
    home = work / "home"
    done = wizard(sd, world, "undo", "--yes", "--home", str(home))
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert f"Removed /etc/systemd/system/{UNIT}.d/hermes-wizard-gate.conf." in out
    assert sd.run(["test", "-e", f"/etc/systemd/system/{UNIT}.d/hermes-wizard-gate.conf"],
                  check=False).returncode != 0
    assert "WEIXIN_DM_POLICY=open" in (home / ".env").read_text()  # the files are back too
    (home / "gateway-starts.log").unlink(missing_ok=True)  # else Hermes's own respawn backoff sleeps first
    sd.run(["systemctl", "restart", UNIT])  # as before: the refusal is restarted again
    assert wait_for(lambda: int(sd.show(UNIT).get("NRestarts", 0)) >= 2, timeout=60), sd.show(UNIT)
    sd.run(["systemctl", "stop", UNIT])


def test_nothing_outside_the_namespace_was_touched(world):
    sd = world["sd"]
    pid = sd.pid
    sd.stop()
    assert not Path(f"/proc/{pid}").exists(), "the private systemd is still running"
    assert sd._cgroup_dirs() <= sd._cgroups_before, "cgroups it made are left behind"
    assert world["sentinel"].is_file(), "the machine's /tmp was cleaned"
    gone = sorted(name for name in world["before"] if not os.path.lexists(Path("/tmp") / name))
    assert not gone, f"entries of the machine's /tmp disappeared: {gone[:20]}"
