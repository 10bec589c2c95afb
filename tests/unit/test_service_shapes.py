"""Hermes's unit after 0.19 — Type=notify with a watchdog, SuccessExitStatus=75, quoted launchers — as the
service readers, checks and doctor see it (tests/support/hermes_units.py renders each version's shape).

Read from files: each shape's home, profile, interpreter, Type=, exit status lists and whether a refusal is
restarted (wizard/service/restart_rules.py; the same rules are measured against a booted systemd 252 in
tests/system/test_real_systemd_shapes.py).  Asked of systemd: the fake box fed with what systemd 252 and
the real Hermes 0.20.1 printed under Type=notify (a failed start, `Result=protocol`, timestamped log lines,
`activating/start` until READY=1).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import hermes_units
import pytest
from fake_systemd import LOOPING_NOTIFY, RUNNING, STARTING_NOTIFY, notify_loop_journal
from service_box import UNIT, doctor, verbs  # box, the fixture, is tests/conftest.py's

from hermes_wizard.faces.cli import main
from hermes_wizard.service import actions, dropin, restart_rules, units
from hermes_wizard.service.common import FALLBACK_DROPIN, GATE_DROPIN

PY = "/opt/hermes/venv/bin/python"
CASES = [("0.19", 0, "module"), ("0.20.1", 0, "module"), ("0.20.1", 30, "module")] + [
    ("main", watchdog, style) for watchdog in (0, 30) for style in ("module", "runtime", "launcher")]


def place(tmp_path: Path, text: str, name: str = UNIT, system: bool = False) -> units.Unit:
    """`text` as a unit of a fake machine, read back."""
    user_home, root = tmp_path / "user", tmp_path / "root"
    folder = root / "etc" / "systemd" / "system" if system else user_home / ".config" / "systemd" / "user"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    return units.read_systemd(folder / name, "system" if system else "user", root, user_home)


def with_dropin(tmp_path: Path, unit: units.Unit, name: str, text: str) -> units.Unit:
    """`unit` read again with the drop-in `name` holding `text`."""
    unit.dropin_dir.mkdir(exist_ok=True)
    (unit.dropin_dir / name).write_text(text)
    return units.read_systemd(unit.path, unit.scope, tmp_path / "root", tmp_path / "user")


@pytest.mark.parametrize("system", [False, True], ids=["user", "system"])
@pytest.mark.parametrize("shape, watchdog, style", CASES)
def test_every_shape_is_read_with_its_home_and_what_decides_a_restart(tmp_path, shape, watchdog, style, system):
    home = "/srv/hermes/.hermes/profiles/coder"
    unit = place(tmp_path, hermes_units.render(shape, PY, home, system=system, watchdog=watchdog, exec_style=style,
                                               profile="coder", account_home="/srv/hermes"), system=system)
    assert unit.error is None and unit.home == Path(home) and unit.profile == "coder"
    assert unit.python == ("/opt/hermes/venv/.hermes/bin/hermes" if style == "launcher" else PY)
    notify = watchdog > 0 and shape != "0.19"
    assert (unit.service_type, unit.watchdog, unit.waits_for_ready) == (
        ("notify", f"{watchdog}s", True) if notify else ("simple", None, False))
    assert unit.restart == "always" and unit.restart_sec == 5.0 and unit.prevents_78
    assert unit.force_statuses == {75} and unit.success_statuses == ({75} if shape == "main" else set())
    assert unit.restarts_refusal and unit.gate is None and unit.fallback is None
    assert (unit.user == "hermes") is system


@pytest.mark.parametrize("restart, notify, prevent, force, restarted", [
    ("always", False, "", "", True), ("always", True, "", "", True),
    ("on-success", False, "", "", True), ("on-success", True, "", "", False),  # protocol is no success
    ("on-failure", False, "", "", False), ("on-failure", True, "", "", True),  # ...but a failure
    ("on-abnormal", False, "", "", False), ("on-abnormal", True, "", "", True),
    ("on-watchdog", True, "", "", False), ("on-abort", True, "", "", False), ("no", True, "", "", False),
    ("always", True, "0", "", False), ("always", False, "SUCCESS", "", False),  # prevention wins over Restart=
    ("no", False, "", "0", True), ("on-failure", False, "", "SUCCESS", True),  # forcing beats Restart=no
    ("always", False, "0", "0", False),  # prevention beats forcing
])
def test_a_refusal_is_restarted_as_systemd_decides(restart, notify, prevent, force, restarted):
    verdict = restart_rules.restarts_refusal(restart, "notify" if notify else "simple",
                                             restart_rules.exit_statuses(prevent.split()),
                                             restart_rules.exit_statuses(force.split()))
    assert verdict is restarted


def test_exit_status_lists_and_time_spans_read_as_systemd_reads_them():
    assert restart_rules.exit_statuses(["0", "CONFIG", "tempfail", "SIGTERM", "300", "x"]) == {0, 78, 75}
    spans = {"5": 5.0, "5s": 5.0, "1min 30s": 90.0, "1min30s": 90.0, "500ms": 0.5, "2 h": 7200.0, "": None,
             "5x": None, "infinity": None, "-5": None, "." : None}
    assert {span: restart_rules.seconds(span) for span in spans} == spans
    assert restart_rules.seconds("\u0661s") is None and restart_rules.seconds("5\u0455") is None  # ASCII only


def test_a_hostile_unit_neither_slows_the_reader_nor_passes_for_a_safe_one(tmp_path):
    """The unit is its owner's text: a Unicode digit is no exit status 0 to systemd (so no "prevented"), and
    huge values are read in one pass."""
    text = hermes_units.render("main", PY, tmp_path / "home", watchdog=30)
    hostile = text.replace("RestartPreventExitStatus=78", "RestartPreventExitStatus=78 \u0660 \u06f0 ０")
    assert place(tmp_path, hostile).restarts_refusal  # systemd ignores those words: the refusal still loops
    started = time.perf_counter()
    huge = text.replace("RestartSec=5", "RestartSec=" + "9" * 100_000 + "!").replace(
        "SuccessExitStatus=75", "SuccessExitStatus=" + "75 " * 50_000)
    unit = place(tmp_path, huge, name="hermes-gateway-huge.service")
    assert unit.restart_sec is None and unit.success_statuses == {75}
    assert time.perf_counter() - started < 2.0


@pytest.mark.parametrize("watchdog", [0, 30])
@pytest.mark.parametrize("shape", ["0.20.1", "main"])
def test_our_dropins_are_found_on_the_new_shapes_and_end_the_loop(tmp_path, shape, watchdog):
    unit = place(tmp_path, hermes_units.render(shape, PY, tmp_path / "home", watchdog=watchdog))
    gated = with_dropin(tmp_path, unit, GATE_DROPIN, dropin.gate_text(unit, "/opt/hw/bin/hermes-wizard"))
    assert gated.gate is not None and gated.gate.wizard == "/opt/hw/bin/hermes-wizard"
    assert gated.gate.home == str(tmp_path / "home") and gated.service_type == unit.service_type
    (unit.dropin_dir / GATE_DROPIN).unlink()
    fallback = with_dropin(tmp_path, unit, FALLBACK_DROPIN, dropin.fallback_text(unit))
    assert fallback.fallback is not None and fallback.restart == "on-failure"
    assert fallback.prevent_statuses == {0, 78} and not fallback.restarts_refusal
    # Restart=on-failure alone (the fallback before Type=notify) ends the loop of a simple unit only
    old = with_dropin(tmp_path, unit, FALLBACK_DROPIN, "[Service]\nRestart=on-failure\nRestartPreventExitStatus=78\n")
    assert old.restarts_refusal is (watchdog > 0)


def codes(capsys, *argv) -> tuple[int, dict]:
    rc = main(["check", "--format", "json", *argv])
    return rc, {f["code"]: f for f in json.loads(capsys.readouterr().out)["findings"] if f["code"].startswith("HW4")}


def test_hw401_says_why_a_notify_unit_restarts_the_refusal(box, capsys):
    _, home, dropins = box
    unit_path = dropins.parent / UNIT
    unit_path.write_text(hermes_units.render("main", PY, home, watchdog=30))
    rc, found = codes(capsys, "--home", str(home))
    message = found["HW401"]["message"]
    assert rc == 78 and "has Type=notify and Restart=always: Hermes exits 0 when it refuses to start, before it " \
                        "reports ready, so systemd counts a failed start (result 'protocol') and restarts it every " \
                        "5 s, forever." in message
    assert found["HW401"]["fix"] == f"hermes-wizard doctor --home {home} --fix --install-gate --restart"
    # a hand-made Restart=on-failure drop-in stops the simple unit's loop, not this one's
    dropins.mkdir()
    (dropins / "50-mine.conf").write_text("[Service]\nRestart=on-failure\nRestartSec=1min\n")
    message = codes(capsys, "--home", str(home))[1]["HW401"]["message"]
    assert "Type=notify and Restart=on-failure" in message and "every 60 s, forever" in message
    unit_path.write_text(hermes_units.render("main", PY, home))  # Hermes rewrote it without the watchdog
    assert "HW401" not in codes(capsys, "--home", str(home))[1]


def test_a_unit_that_forces_a_restart_of_exit_0_is_named_for_it(box, capsys):
    _, home, dropins = box
    (dropins.parent / UNIT).write_text(hermes_units.render("0.20.1", PY, home).replace(
        "Restart=always", "Restart=no").replace("RestartForceExitStatus=75", "RestartForceExitStatus=75 SUCCESS"))
    message = codes(capsys, "--home", str(home))[1]["HW401"]["message"]
    assert "has RestartForceExitStatus=0: Hermes exits 0 when it refuses to start" in message


def feed_notify_loop(fake) -> None:
    """The fake systemd answers as systemd 252 did for the real Hermes 0.20.1 refusing under Type=notify."""
    fake.state["phases"]["loop"] = {"show": dict(LOOPING_NOTIFY), "journal": notify_loop_journal(UNIT, "whatsapp", 1704)
                                    + notify_loop_journal(UNIT, "whatsapp", 1705)}
    fake.save()


def test_check_service_recognises_the_notify_loop_without_result_exit_code(box, capsys):
    fake, home, dropins = box
    (dropins.parent / UNIT).write_text(hermes_units.render("main", PY, home, watchdog=30))
    feed_notify_loop(fake)
    rc, found = codes(capsys, "--service", "--home", str(home))
    message = found["HW404"]["message"]
    assert rc == 78 and found["HW404"]["severity"] == "error"
    assert message.startswith(f"{UNIT} has restarted 1,705 times; last reason: whatsapp open policy without opt-in "
                              "(restarting now; last exit status 0; each start fails with result 'protocol': the "
                              "gateway exits before it reports ready (Type=notify)")
    # the quoted line is Hermes's message, without 0.20.1's timestamp and logger prefix
    assert "its journal's last refusal: \"Refusing to start: whatsapp has dm_policy" in message
    assert found["HW404"]["fix"] == f"hermes-wizard doctor --home {home} --fix --install-gate --restart"
    # between two turns too: a turn under way shows activating/start with Result reset to success
    fake.state["phases"]["loop"]["show"] = {**LOOPING_NOTIFY, "Result": "success", "SubState": "start"}
    fake.save()
    assert codes(capsys, "--service", "--home", str(home))[1]["HW404"]["severity"] == "error"


def test_doctor_stops_a_notify_loop_and_waits_for_ready_before_the_settle_window(box, capsys, monkeypatch):
    fake, home, dropins = box
    (dropins.parent / UNIT).write_text(hermes_units.render("main", PY, home, watchdog=30))
    feed_notify_loop(fake)
    fake.state["phases"]["restarted"]["then"] = [dict(STARTING_NOTIFY), dict(STARTING_NOTIFY), dict(RUNNING)]
    fake.save()
    monkeypatch.setattr(actions, "POLL_S", 0.01)
    rc, out = doctor(capsys, home, "--fix", "--yes", "--install-gate")
    assert rc == 0, out
    assert verbs(fake) == ["systemctl show", "journalctl", "systemctl --version", "systemctl stop",
                           "systemctl reset-failed", "systemctl daemon-reload", "systemctl restart",
                           *["systemctl show", "journalctl"] * 3]  # two polls still starting, then running
    assert "Stopped hermes-gateway.service (the loop is over)." in out and "Verified: the gateway is running" in out
    assert (dropins / GATE_DROPIN).is_file()


def test_a_notify_start_that_never_reports_ready_is_not_called_running(box, capsys, monkeypatch):
    fake, home, dropins = box
    (dropins.parent / UNIT).write_text(hermes_units.render("main", PY, home, watchdog=30))
    (home / ".env").write_text("TELEGRAM_BOT_TOKEN=1:x\nTELEGRAM_ALLOWED_USERS=42\n")
    (home / "config.yaml").unlink()
    fake.state["phase"] = "restarted"
    fake.state["phases"]["restarted"]["show"] = dict(STARTING_NOTIFY)
    fake.save()
    monkeypatch.setattr(actions, "POLL_S", 0.01)
    monkeypatch.setattr(actions, "READY_WAIT_S", 0.05)
    rc, out = doctor(capsys, home, "--restart", "--yes")
    assert rc == 1, out
    assert "is still activating/start after" in out and "its start never finished (under Type=notify: no READY=1" \
        in out
    assert "the gateway is running" not in out


def test_the_old_systemd_fallback_names_exit_0_for_the_notify_shape(box, capsys):
    fake, home, dropins = box
    (dropins.parent / UNIT).write_text(hermes_units.render("0.20.1", PY, home, watchdog=30))
    fake.state["version"] = "systemd 249 (249.11-0ubuntu3.12)\n+PAM +AUDIT\n"
    feed_notify_loop(fake)
    rc, out = doctor(capsys, home, "--fix", "--yes", "--install-gate")
    assert rc == 0, out
    assert "Restart=on-failure and RestartPreventExitStatus=0 (hermes-wizard-restart.conf)" in out
    assert "RestartPreventExitStatus=0 78" in (dropins / FALLBACK_DROPIN).read_text()
    assert "HW401" not in codes(capsys, "--home", str(home))[1]  # neither shape restarts the refusal now
