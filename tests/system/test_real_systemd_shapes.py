"""Hermes's unit after 0.19 on a real systemd: Type=notify with a watchdog, SuccessExitStatus=75, the
ExecStop=/ExecStopPost= helpers, HERMES_SUPERVISED_CHILD=1 — the loop, its evidence, and our drop-ins.

One private systemd 252 for the module (tests/support/real_systemd.py, as tests/system/test_real_systemd.py).
First the rules wizard/service/restart_rules.py reads from a unit are held against systemd's own behaviour
for every Type= × Restart= (and exit status lists) on /bin/sh units.  Then the real Hermes refuses in units
rendered in the main line's shape (tests/support/hermes_units.py): 0.20.1 (`hermesx gateway run`'s module)
where its READY=1 matters, 0.19.0 under the gate (modelled), and the 0.22.2 fork under the gate, which asks
it.  The units' interpreter is a wrapper script made here: it runs Hermes's own Python, and records each ExecStop=/
ExecStopPost= helper systemd runs (main's `gateway.systemd_stop_mark` is not in 0.19/0.20.1: the wrapper
answers for it).  Between starts the unit file is rewritten in another shape and reloaded, as Hermes does
at its starts; our drop-in must keep working.  Windows are systemd's counters, measured, never assumed.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import hermes_units
import oracle
import pytest
from real_systemd import PrivateSystemd, Unavailable, wait_for, why_unavailable, work_root

from hermes_wizard.service import dropin
from hermes_wizard.service.common import FALLBACK_DROPIN, GATE_DROPIN
from hermes_wizard.service.units import read_systemd

pytestmark = [pytest.mark.systemd, pytest.mark.oracle, pytest.mark.slow, pytest.mark.xdist_group("real-systemd")]

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "assets" / "homes" / "death-loop"
WIZARD = Path(sys.executable).parent / "hermes-wizard"
UNITS = Path("/etc/systemd/system")
REFUSING = "Refusing to start"
NOTIFY_PROPS = "NRestarts,ActiveState,SubState,Result,ExecMainStatus,Type,DropInPaths,StatusText"


@pytest.fixture(scope="module")
def world():
    reason = why_unavailable()
    if reason:
        pytest.skip(reason)
    for version in ("0.19.0", "0.20.1", "0.22.2"):
        oracle.require_oracle(version)
    if not WIZARD.is_file():
        pytest.skip(f"{WIZARD} is not installed (the test command installs it)")
    work = work_root(REPO) / f"shapes-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    (work / "userhome").mkdir(parents=True)
    sentinel = Path(tempfile.mkstemp(prefix="hermes-wizard-shapes-sentinel-", dir="/tmp")[1])
    os.utime(sentinel, (time.time() - 400 * 86400,) * 2)  # what systemd-tmpfiles --boot --remove would delete
    sd = PrivateSystemd(work / "systemd", keep=[REPO, oracle.venv_dir("0.19.0"), oracle.venv_dir("0.20.1"),
                                                 oracle.venv_dir("0.22.2"), Path(sys.prefix), work])
    try:
        sd.start()
    except Unavailable as exc:
        sentinel.unlink()
        pytest.skip(str(exc))
    yield {"sd": sd, "work": work, "sentinel": sentinel}
    sd.stop()
    sentinel.unlink(missing_ok=True)
    shutil.rmtree(work, ignore_errors=True)


def interpreter(work: Path, version: str) -> Path:
    """`<work>/python-<version>/bin/python`: Hermes `version`'s Python for the unit, logging the helpers systemd runs
    (to `helpers.log` beside it) and answering for the one that version lacks."""
    real = oracle.venv_python(version)
    script = work / f"python-{version}" / "bin" / "python"
    script.parent.mkdir(parents=True, exist_ok=True)
    log = script.parent.parent / "helpers.log"
    script.write_text(f"""#!/bin/sh
if [ "$1" = -m ] && [ "${{2#gateway.}}" != "$2" ]; then
  echo "$2 MAINPID=$MAINPID HERMES_HOME=$HERMES_HOME" >> "{log}"
  [ "$2" = gateway.systemd_stop_mark ] && ! "{real}" -c 'import gateway.systemd_stop_mark' 2>/dev/null && exit 0
fi
exec "{real}" "$@"
""")
    script.chmod(0o755)
    return script


def hermes_home(work: Path, name: str, watchdog: int = 0) -> Path:
    home = work / name
    shutil.copytree(DEMO, home)
    (home / ".env").chmod(0o600)
    (home / "gateway-starts.log").unlink()  # else Hermes's respawn breaker sleeps before its first start
    if watchdog:  # what makes 0.20.1 send READY=1 once running (gateway/run.py:14035-14049, :30179-30183)
        with open(home / "config.yaml", "a") as config:
            config.write(f"\ngateway:\n  systemd_watchdog_seconds: {watchdog}\n")
    return home


def unit_text(world, shape: str, version: str, home: Path, watchdog: int = 0) -> str:
    """A system unit for `home` in `shape`, run as root, RestartSec=1 for speed; PATH leads to the real venv, so
    the gate finds Hermes's `hermes` as it would beside the interpreter."""
    return hermes_units.render(shape, str(interpreter(world["work"], version)), home, system=True, user="root",
                               account_home=str(world["work"] / "userhome"), uid=0, watchdog=watchdog, restart_sec=1,
                               timeout_stop=30, extra_env=f'Environment="PATH={oracle.venv_dir(version)}/bin:'
                                                         '/usr/bin:/bin"\nEnvironment="HERMES_DISABLE_LAZY_INSTALLS=1"')


def wizard(world, *args: str, timeout: float = 300):
    return world["sd"].run([str(WIZARD), *args], check=False, timeout=timeout,
                           env={"HOME": str(world["work"] / "userhome"), "NO_COLOR": "1"})


def findings(world, home: Path) -> dict:
    done = wizard(world, "check", "--service", "--home", str(home), "--format", "json")
    return {f["code"]: f for f in json.loads(done.stdout)["findings"]}


def helper_lines(world, version: str) -> list[str]:
    log = world["work"] / f"python-{version}" / "helpers.log"
    return log.read_text().splitlines() if log.exists() else []


# ---------------------------------------------------------------------------------------------------------------


MATRIX_RESTARTS = ("no", "always", "on-success", "on-failure", "on-abnormal", "on-watchdog", "on-abort")
MATRIX_LISTS = ("", "RestartPreventExitStatus=0", "RestartForceExitStatus=SUCCESS")
READY_THEN = ("/usr/bin/python3 -c 'import os,socket,sys,time; s=socket.socket(socket.AF_UNIX,socket.SOCK_DGRAM); "
              'a=os.environ["NOTIFY_SOCKET"]; s.connect(chr(0)+a[1:] if a[0]=="@" else a); s.send(b"READY=1"); '
              "time.sleep(100)'")


def test_systemd_restarts_a_refusal_exactly_where_the_unit_reader_says(world, tmp_path):
    """Every Type= × Restart= × exit status list, and our fallback drop-in on each Type=: the unit as read
    (restarts_refusal) against what systemd did with a main process that exits 0 at once."""
    sd = world["sd"]
    cases = {}
    for kind in ("simple", "notify"):
        for restart in MATRIX_RESTARTS:
            for i, extra in enumerate(MATRIX_LISTS):
                cases[f"m-{kind}-{restart}-{i}"] = (f"Type={kind}\nRestart={restart}\n{extra}", "exit 0", None)
        for exit_code in (0, 75):  # our fallback: the refusal stops, a planned restart (75) does not
            cases[f"fb-{kind}-{exit_code}"] = (f"Type={kind}\nRestart=always\nRestartForceExitStatus=75\n"
                                               "SuccessExitStatus=75", f"exit {exit_code}", "fallback")
    cases["fb-watchdog"] = ("Type=notify\nNotifyAccess=main\nWatchdogSec=1s\nRestart=always", None, "fallback")
    local = tmp_path / "units"
    local.mkdir()
    for name, (service, body, variant) in cases.items():
        start = f"/bin/sh -c '{body}'" if body else READY_THEN
        text = f"[Unit]\nStartLimitIntervalSec=0\n[Service]\n{service}\nRestartSec=1\nExecStart={start}\n"
        (local / f"{name}.service").write_text(text)
        sd.write(str(UNITS / f"{name}.service"), text)
        if variant:
            unit = read_systemd(local / f"{name}.service", "system", tmp_path, tmp_path)
            fallback = dropin.fallback_text(unit)
            (local / f"{name}.service.d").mkdir()
            (local / f"{name}.service.d" / FALLBACK_DROPIN).write_text(fallback)
            sd.write(str(UNITS / f"{name}.service.d" / FALLBACK_DROPIN), fallback)
    sd.run(["systemctl", "daemon-reload"])
    sd.run(["systemctl", "start", "--no-block", *(f"{name}.service" for name in cases)], check=False)
    time.sleep(5)  # >= 3 turns of RestartSec=1; the watchdog (1 s) fires within 2
    seen = {name: sd.show(f"{name}.service") for name in cases}
    wrong = {}
    for name in cases:
        read = read_systemd(local / f"{name}.service", "system", tmp_path, tmp_path).restarts_refusal
        # the fallback: exit 0 never restarted (as read), a planned restart (75) and a watchdog kill still are
        expected = name in ("fb-simple-75", "fb-notify-75", "fb-watchdog") if name.startswith("fb-") else read
        if (int(seen[name]["NRestarts"]) > 0) != expected or (name.startswith("fb-") and read):
            wrong[name] = {**seen[name], "read as restarting": read}
    assert not wrong, wrong
    # how the refusal ended: a failed start under Type=notify, a success otherwise (where systemd kept the unit)
    assert seen["m-notify-on-success-0"]["Result"] == "protocol" and seen["m-notify-no-0"]["Result"] == "protocol"
    assert seen["fb-notify-0"]["Result"] == "protocol" and seen["fb-notify-0"]["ExecMainStatus"] == "0"
    assert seen["fb-watchdog"]["Result"] in ("watchdog", "success")  # between two turns, or during one
    sd.run(["systemctl", "stop", *(f"{name}.service" for name in cases)], check=False)


def test_a_refusal_under_type_notify_is_the_loop_check_reports(world):
    """The real Hermes 0.20.1 refusing in main's unit with a watchdog: every start fails with result 'protocol'
    (no Result=exit-code, no "Deactivated successfully"), NRestarts climbs, and check says so."""
    sd, work = world["sd"], world["work"]
    home = hermes_home(work, "notify", watchdog=30)
    sd.install("hermes-gateway-notify.service", unit_text(world, "main", "0.20.1", home, watchdog=30))
    sd.run(["systemctl", "start", "hermes-gateway-notify.service"], check=False)
    results = set()

    def turned() -> bool:
        props = sd.show("hermes-gateway-notify.service")
        results.add((props["SubState"], props["Result"], props["ExecMainStatus"]))
        return int(props["NRestarts"]) >= 2

    def journal() -> list[str]:
        return sd.journal("hermes-gateway-notify.service")

    assert wait_for(turned, timeout=120, step=0.3), "\n".join(journal()[-30:])
    assert ("auto-restart", "protocol", "0") in results, results  # between two turns, as measured
    assert sum(REFUSING in line for line in journal()) >= 2
    assert sum("Failed with result 'protocol'" in line for line in journal()) >= 2
    assert not any("Deactivated successfully" in line for line in journal())
    assert any(line.startswith("gateway.cgroup_cleanup MAINPID=") for line in helper_lines(world, "0.20.1"))
    found = findings(world, home)
    message = found["HW404"]["message"]
    assert "hermes-gateway-notify.service has restarted" in message, message
    assert "last reason: whatsapp open policy without opt-in" in message
    assert "each start fails with result 'protocol'" in message
    assert f"its journal's last refusal: \"{REFUSING}: whatsapp" in message  # 0.20.1's timestamp left out
    assert "has Type=notify and Restart=always" in found["HW401"]["message"]


def test_the_fallback_ends_the_notify_loop_and_survives_a_rewrite(world):
    """Restart=on-failure alone (the fallback before main's shape) still restarts the refusal under Type=notify;
    ours does not, and still does not once Hermes rewrites the unit without the watchdog."""
    sd, work = world["sd"], world["work"]
    name = "hermes-gateway-notify.service"
    home = work / "notify"
    unit = read_systemd(_local_copy(sd, work, name), "system", work, work)
    folder = f"{UNITS}/{name}.d"
    sd.write(f"{folder}/50-on-failure.conf", "[Service]\nRestart=on-failure\n")
    _restart(sd, name, home)
    assert wait_for(lambda: int(sd.show(name)["NRestarts"]) >= 1, timeout=90), sd.show(name)
    sd.run(["rm", f"{folder}/50-on-failure.conf"])
    sd.write(f"{folder}/{FALLBACK_DROPIN}", dropin.fallback_text(unit))
    for shape, watchdog, outcome in (("main", 30, ("failed", "failed", "protocol")),
                                     ("main", 0, ("inactive", "dead", "success"))):  # Hermes rewrote its unit
        sd.run(["systemctl", "stop", name])  # no turn under way while the refusals are counted
        sd.write(f"{UNITS}/{name}", unit_text(world, shape, "0.20.1", home, watchdog=watchdog))
        refusals = sum(REFUSING in line for line in sd.journal(name))
        _restart(sd, name, home)
        assert wait_for(lambda: sd.show(name)["ActiveState"] in ("failed", "inactive"), timeout=90), sd.show(name)
        seen = sd.watch(name, 6)
        assert {(s["ActiveState"], s["SubState"], s["Result"], s["NRestarts"]) for s in seen} == {(*outcome, "0")}, seen
        assert sum(REFUSING in line for line in sd.journal(name)) == refusals + 1  # one turn, not restarted
    props = sd.show(name, NOTIFY_PROPS)
    assert props["Type"] == "simple" and f"{folder}/{FALLBACK_DROPIN}" in props["DropInPaths"]


def _local_copy(sd: PrivateSystemd, work: Path, name: str) -> Path:
    """The unit as systemd has it, copied where this process can read it (the namespace's /etc is private)."""
    local = work / "copies" / name
    local.parent.mkdir(exist_ok=True)
    local.write_text(sd.run(["cat", f"{UNITS}/{name}"]).stdout)
    return local


def _restart(sd: PrivateSystemd, name: str, home: Path) -> None:
    (home / "gateway-starts.log").unlink(missing_ok=True)  # Hermes's respawn breaker would sleep first
    sd.run(["systemctl", "daemon-reload"])
    sd.run(["systemctl", "reset-failed", name], check=False)
    sd.run(["systemctl", "restart", name], check=False)


def _loop_then_install_gate(world, name: str, version: str, home: Path, restarts: int):
    """Hermes `version` looping in main's unit `name` (at least `restarts` restarts), then `doctor
    --install-gate`, which stops it and does not restart it; doctor's run."""
    sd = world["sd"]
    sd.install(name, unit_text(world, "main", version, home))
    sd.run(["systemctl", "start", name])
    assert wait_for(lambda: int(sd.show(name)["NRestarts"]) >= restarts, timeout=120), sd.journal(name)[-20:]
    done = wizard(world, "doctor", "--install-gate", "--yes", "--home", str(home))
    assert f"Not restarting {name}" in done.stdout, done.stdout + done.stderr
    return done


def test_the_gate_stops_the_loop_and_survives_hermes_rewriting_its_unit(world):
    """Hermes 0.19.0 (modelled: the gate judges it itself) looping in main's unit without a watchdog; doctor
    installs the gate; Hermes rewrites the unit as notify, then in 0.20.1's shape: every start stays skipped."""
    sd, work = world["sd"], world["work"]
    name = "hermes-gateway-gated.service"
    home = hermes_home(work, "gated")
    done = _loop_then_install_gate(world, name, "0.19.0", home, restarts=2)
    assert "is stopped" in done.stdout, done.stdout + done.stderr
    gate = sd.run(["cat", f"{UNITS}/{name}.d/{GATE_DROPIN}"]).stdout
    assert "ExecCondition=" in gate
    for shape, watchdog, kind in (("main", 30, "notify"), ("0.20.1", 0, "simple")):
        sd.write(f"{UNITS}/{name}", unit_text(world, shape, "0.19.0", home, watchdog=watchdog))
        _restart(sd, name, home)
        assert wait_for(lambda: sd.show(name)["Result"] == "exec-condition", timeout=30), sd.show(name)
        seen = sd.watch(name, 5)
        assert {(s["ActiveState"], s["SubState"], s["Result"], s["NRestarts"]) for s in seen} == {
            ("inactive", "dead", "exec-condition", "0")}, seen
        props = sd.show(name, NOTIFY_PROPS)
        assert props["Type"] == kind and f"{UNITS}/{name}.d/{GATE_DROPIN}" in props["DropInPaths"]
        assert sd.run(["cat", f"{UNITS}/{name}.d/{GATE_DROPIN}"]).stdout == gate  # untouched by the rewrite
    journal = sd.journal(name)
    assert sum("hermes-wizard gate: Hermes would refuse to start (whatsapp" in line for line in journal) >= 2
    assert sum("Skipped due to 'exec-condition'" in line for line in journal) >= 2
    assert any(line.startswith("gateway.cgroup_cleanup MAINPID=") for line in helper_lines(world, "0.19.0"))
    found = findings(world, home)
    assert found["HW404"]["severity"] == "info" and "HW401" not in found
    assert found["HW404"]["message"].startswith(f"{name} was not started: the hermes-wizard gate stopped it")


def test_the_gate_asks_a_hermes_no_model_judges_before_every_start(world):
    """The 0.22.2 main-line fork (another distribution name: asked, never judged by a model) looping in main's
    unit: doctor installs the gate, which asks that Hermes itself, as the unit runs it, before each start, and
    skips the starts it would refuse."""
    sd, work = world["sd"], world["work"]
    name = "hermes-gateway-asked.service"
    home = hermes_home(work, "asked")
    _loop_then_install_gate(world, name, "0.22.2", home, restarts=1)
    _restart(sd, name, home)
    assert wait_for(lambda: sd.show(name)["Result"] == "exec-condition", timeout=60), sd.show(name)
    seen = sd.watch(name, 5)
    assert {(s["ActiveState"], s["Result"], s["NRestarts"]) for s in seen} == {("inactive", "exec-condition", "0")}
    journal = sd.journal(name)
    assert any("hermes-wizard gate: asked Hermes 0.22.2.post1 (2026.9.24) itself: it would refuse to start "
               "(whatsapp" in line for line in journal), journal[-20:]


def test_doctor_repairs_and_waits_for_ready_under_type_notify(world):
    """The notify loop repaired: doctor stops it, fixes the home, installs the gate and restarts; the gateway
    (0.20.1, which sends READY=1 once running, ~9 s here) is called running only after systemd saw it ready."""
    sd, work = world["sd"], world["work"]
    name = "hermes-gateway-ready.service"
    home = hermes_home(work, "ready", watchdog=30)
    sd.install(name, unit_text(world, "main", "0.20.1", home, watchdog=30))
    sd.run(["systemctl", "start", name], check=False)
    assert wait_for(lambda: int(sd.show(name)["NRestarts"]) >= 1, timeout=120), sd.journal(name)[-20:]
    done = wizard(world, "doctor", "--fix", "--yes", "--install-gate", "--restart", "--settle", "3", "--no-verify",
                  "--home", str(home))
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert f"Stopped {name} (the loop is over)." in out and "Verified: the gateway is running" in out
    props = sd.show(name, NOTIFY_PROPS)
    assert (props["ActiveState"], props["SubState"], props["Type"]) == ("active", "running", "notify"), props
    assert props["StatusText"] == "Hermes Gateway running"  # sent with READY=1 by Hermes itself
    seen = sd.watch(name, 4)
    assert {(s["ActiveState"], s["NRestarts"]) for s in seen} == {("active", "0")}, seen
    sd.run(["systemctl", "stop", name])  # ExecStop= runs main's stop-mark helper before SIGTERM
    assert any(line.startswith("gateway.systemd_stop_mark MAINPID=") and not line.endswith("MAINPID= HERMES_HOME=")
               for line in helper_lines(world, "0.20.1"))


def test_nothing_outside_the_namespace_was_touched(world):
    sd = world["sd"]
    pid = sd.pid
    sd.stop()
    assert not Path(f"/proc/{pid}").exists(), "the private systemd is still running"
    assert sd._cgroup_dirs() <= sd._cgroups_before, "cgroups it made are left behind"
    assert world["sentinel"].is_file(), "the machine's /tmp was cleaned"
