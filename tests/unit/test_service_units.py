"""Detection of the installed Hermes services (file reads only) and the HW401-HW405 checks.

A fake machine per test: HOME and HERMES_WIZARD_ROOT point into tmp_path, so the user units
(~/.config/systemd/user), system units (<root>/etc/systemd/system), launchd agents and s6
service dirs are ours.  Plain `check` must run no systemctl: a fake one on PATH proves it.
"""

from __future__ import annotations

import json
import plistlib
import shutil
from pathlib import Path

import pytest
from fake_systemd import FakeSystemd, system_unit, user_unit

from hermes_wizard.faces.cli import main
from hermes_wizard.service import homes, units

DEMO = Path(__file__).resolve().parents[2] / "assets" / "homes" / "death-loop"
PY = "/opt/hermes/venv/bin/python"


@pytest.fixture
def machine(tmp_path, monkeypatch):
    """(user home, system root) of an empty fake machine; service scope reset around the test."""
    user_home, root = tmp_path / "user", tmp_path / "root"
    (user_home / ".config" / "systemd" / "user").mkdir(parents=True)
    (root / "etc" / "systemd" / "system").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(user_home))
    monkeypatch.setenv("HERMES_WIZARD_ROOT", str(root))
    yield user_home, root


def demo(tmp_path: Path, name: str = "home") -> Path:
    home = tmp_path / name
    shutil.copytree(DEMO, home)
    (home / ".env").chmod(0o600)
    return home


def healthy(tmp_path: Path) -> Path:
    home = tmp_path / "healthy"
    home.mkdir()
    (home / ".env").write_text("TELEGRAM_BOT_TOKEN=123:abc\nTELEGRAM_ALLOWED_USERS=42\n")
    (home / ".env").chmod(0o600)
    return home


def write_user_unit(user_home: Path, home: Path, name: str = "hermes-gateway.service", **kw) -> Path:
    path = user_home / ".config" / "systemd" / "user" / name
    path.write_text(user_unit(PY, home, **kw))
    return path


def codes(capsys, *argv) -> tuple[int, dict]:
    rc = main(["check", "--format", "json", *argv])
    report = json.loads(capsys.readouterr().out)
    return rc, {f["code"]: f for f in report["findings"] if f["code"].startswith("HW4")}


# ------------------------------------------------------------------------------ detection


def test_user_and_system_units_are_found_with_their_homes(machine, tmp_path):
    user_home, root = machine
    write_user_unit(user_home, user_home / ".hermes")
    write_user_unit(user_home, user_home / ".hermes" / "profiles" / "coder", "hermes-gateway-coder.service",
                    profile="coder")
    (root / "etc" / "passwd").write_text("root:x:0:0::/root:/bin/sh\nhermes:x:999:999::/srv/hermes:/bin/sh\n")
    (root / "etc" / "systemd" / "system" / "hermes-gateway.service").write_text(
        system_unit(PY, "/srv/hermes/.hermes", account_home="/srv/hermes"))
    (root / "etc" / "systemd" / "system" / "unrelated.service").write_text("[Service]\nExecStart=/bin/true\n")
    found = {(u.scope, u.name): u for u in units.detect()}
    assert set(found) == {("user", "hermes-gateway.service"), ("user", "hermes-gateway-coder.service"),
                          ("system", "hermes-gateway.service")}
    assert found["user", "hermes-gateway.service"].home == user_home / ".hermes"
    coder = found["user", "hermes-gateway-coder.service"]
    assert coder.profile == "coder" and coder.home == user_home / ".hermes" / "profiles" / "coder"
    system = found["system", "hermes-gateway.service"]
    assert system.home == Path("/srv/hermes/.hermes") and system.user == "hermes"
    for unit in found.values():
        assert unit.restart == "always" and unit.prevents_78 and unit.gate is None and unit.python == PY


def test_dropins_override_in_file_name_order(machine):
    user_home, _ = machine
    path = write_user_unit(user_home, user_home / ".hermes")
    d = path.parent / "hermes-gateway.service.d"
    d.mkdir()
    (d / "20-home.conf").write_text('[Service]\nEnvironment="HERMES_HOME=/data/h"\n')
    (d / "30-restart.conf").write_text("[Service]\nRestart=on-failure\nRestartPreventExitStatus=\n")
    (d / "notes.txt").write_text("[Service]\nRestart=always\n")  # not a .conf: ignored, as systemd does
    unit = units.detect()[0]
    assert unit.home == Path("/data/h") and unit.restart == "on-failure" and not unit.prevents_78
    assert [p.name for p in unit.dropins] == ["20-home.conf", "30-restart.conf"]


@pytest.mark.parametrize("hermes_home, profile, expected", [
    (None, None, "{u}/.hermes"),
    ("/opt/data", None, "/opt/data"),
    ("{u}/.hermes/profiles/coder", "coder", "{u}/.hermes/profiles/coder"),  # what Hermes writes
    ("/opt/data", "coder", "/opt/data/profiles/coder"),  # custom root: profiles live under it
    ("/opt/data/profiles/a", "b", "/opt/data/profiles/b"),
    ("{u}/.hermes", "default", "{u}/.hermes"),
])
def test_home_resolution_follows_hermes_profile_override(tmp_path, hermes_home, profile, expected):
    u = str(tmp_path)
    got = homes.hermes_home_for(hermes_home.format(u=u) if hermes_home else None, profile, tmp_path)
    assert got == Path(expected.format(u=u))


def test_profile_flag_spellings():
    assert homes.profile_arg(["py", "-m", "hermes_cli.main", "-p", "x", "gateway", "run"]) == "x"
    assert homes.profile_arg(["hermes", "--profile=y", "gateway", "run"]) == "y"
    assert homes.profile_arg(["hermes", "gateway", "run", "--", "-p", "z"]) is None


def test_launchd_and_s6_are_found(machine):
    user_home, root = machine
    agents = user_home / "Library" / "LaunchAgents"
    agents.mkdir(parents=True)
    with open(agents / "ai.hermes.gateway-coder.plist", "wb") as f:
        plistlib.dump({"Label": "ai.hermes.gateway-coder", "KeepAlive": True, "RunAtLoad": True,
                       "ProgramArguments": [PY, "-m", "hermes_cli.main", "--profile", "coder", "gateway", "run",
                                            "--replace"],
                       "EnvironmentVariables": {"HERMES_HOME": str(user_home / ".hermes" / "profiles" / "coder")}}, f)
    s6 = root / "run" / "service" / "gateway-default"
    s6.mkdir(parents=True)
    (s6 / "run").write_text('#!/command/with-contenv sh\nexport HOME=/opt/data\n'
                            '[ "$(id -u)" = 0 ] || exec hermes gateway run --replace\n'
                            'exec s6-setuidgid hermes hermes gateway run --replace\n')
    (s6 / "finish").write_text('#!/command/with-contenv sh\nif [ "$1" = "78" ]; then\n  exit 125\nfi\nexit 0\n')
    env = root / "run" / "s6" / "container_environment"
    env.mkdir(parents=True)
    (env / "HERMES_HOME").write_text("/opt/data")
    found = {u.manager: u for u in units.detect()}
    assert found["launchd"].name == "ai.hermes.gateway-coder" and found["launchd"].restart == "always"
    assert found["launchd"].home == user_home / ".hermes" / "profiles" / "coder"
    assert found["s6"].home == Path("/opt/data") and found["s6"].prevents_78


def test_unreadable_and_garbage_units_do_not_raise(machine):
    user_home, _ = machine
    folder = user_home / ".config" / "systemd" / "user"
    (folder / "hermes-gateway.service").write_bytes(b"\xff\xfe garbage \x00 [Service\nRestart")
    (folder / "hermes-gateway-x.service").mkdir()
    found = units.detect()
    by_name = {u.name: u for u in found}
    assert by_name["hermes-gateway-x.service"].error  # a directory
    assert by_name["hermes-gateway.service"].home is None  # no ExecStart: runs no home


# ------------------------------------------------------------------------------ checks


def test_plain_check_flags_the_loop_prone_unit_and_runs_no_command(machine, tmp_path, capsys, monkeypatch):
    user_home, _ = machine
    fake = FakeSystemd(tmp_path).install(monkeypatch)
    home = demo(tmp_path)
    write_user_unit(user_home, home)
    rc, found = codes(capsys, "--home", str(home))
    assert rc == 78
    assert found["HW401"]["severity"] == "error"
    assert "Restart=always" in found["HW401"]["message"] and "every 5 s, forever" in found["HW401"]["message"]
    assert found["HW401"]["fix"] == f"hermes-wizard doctor --home {home} --fix --install-gate --restart"
    assert "HW402" not in found and "HW404" not in found
    assert fake.calls() == []  # plain check: file reads only


def test_healthy_home_gets_a_warning_only_and_exit_0(machine, tmp_path, capsys):
    user_home, _ = machine
    home = healthy(tmp_path)
    write_user_unit(user_home, home)
    rc, found = codes(capsys, "--home", str(home))
    assert rc == 0 and found["HW401"]["severity"] == "warning"


def test_gate_dropin_silences_hw401_and_missing_78_is_hw402(machine, tmp_path, capsys):
    user_home, _ = machine
    home = healthy(tmp_path)
    path = write_user_unit(user_home, home)
    path.write_text(path.read_text().replace("RestartPreventExitStatus=78\n", ""))
    assert set(codes(capsys, "--home", str(home))[1]) == {"HW401", "HW402"}
    from hermes_wizard.service import dropin

    dropin.install(units.detect()[0], "gate", Path("/bin/true"))  # an executable file stands in for the wizard
    found = codes(capsys, "--home", str(home))[1]
    assert "HW401" not in found and "HW402" not in found


def test_stale_gate_is_hw405(machine, tmp_path, capsys):
    user_home, _ = machine
    home = healthy(tmp_path)
    write_user_unit(user_home, home)
    from hermes_wizard.service import dropin

    dropin.install(units.detect()[0], "gate", tmp_path / "gone" / "hermes-wizard")
    found = codes(capsys, "--home", str(home))[1]
    assert "not an executable file" in found["HW405"]["message"]


def test_unit_running_another_home_is_hw403(machine, tmp_path, capsys):
    user_home, _ = machine
    home, other = healthy(tmp_path), demo(tmp_path, "other")
    write_user_unit(user_home, other)
    rc, found = codes(capsys, "--home", str(home))
    assert set(found) == {"HW403"} and str(other) in found["HW403"]["message"]
    assert found["HW403"]["fix"] == f"hermes-wizard doctor --home {other}"
    # --unit names it explicitly: same finding, whatever its name
    named = write_user_unit(user_home, other, "my-gateway.service")
    found = codes(capsys, "--home", str(home), "--unit", str(named))[1]
    assert set(found) == {"HW403"}


def test_explicit_unit_outside_the_search_paths(machine, tmp_path, capsys):
    home = demo(tmp_path)
    elsewhere = tmp_path / "etc-copy" / "gw.service"
    elsewhere.parent.mkdir()
    elsewhere.write_text(user_unit(PY, home))
    rc, found = codes(capsys, "--home", str(home), "--unit", str(elsewhere))
    assert str(elsewhere) in found["HW401"]["message"]
    assert found["HW401"]["fix"] == (f"hermes-wizard doctor --home {home} --fix --install-gate --restart "
                                     f"--unit {elsewhere}")


# ------------------------------------------------------------------------------ speed / hygiene

IMPORTS = """
import json, sys
from hermes_wizard.faces.cli import main
try:
    rc = main(sys.argv[2:])
except SystemExit as e:
    rc = e.code
json.dump(sorted(sys.modules), open(sys.argv[1], "w"))
"""


@pytest.mark.parametrize("gate", [False, True], ids=["check", "check-gate"])
def test_check_with_a_unit_installed_stays_light(machine, tmp_path, gate):
    """Plain check reads unit files but loads no runner, no subprocess; the gate no service code."""
    import os
    import subprocess
    import sys

    user_home, root = machine
    home = demo(tmp_path)
    write_user_unit(user_home, home)
    out = tmp_path / "modules.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    argv = ["check", "--home", str(home)] + (["--gate"] if gate else [])
    proc = subprocess.run([sys.executable, "-c", IMPORTS, str(out), *argv], env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    modules = set(json.loads(out.read_text()))
    assert not modules & {"subprocess", "hermes_wizard.service.systemd", "hermes_wizard.service.loop",
                          "hermes_wizard.service.actions", "hermes_wizard.service.dropin", "plistlib"}
    if gate:
        assert not {m for m in modules
                    if m.startswith("hermes_wizard.service") or m == "hermes_wizard.judge.checks.service"}
    else:
        assert "hermes_wizard.service.units" in modules  # it did look


def test_launchd_and_s6_get_the_equivalent_advice(machine, tmp_path, capsys):
    user_home, root = machine
    home = demo(tmp_path)
    agents = user_home / "Library" / "LaunchAgents"
    agents.mkdir(parents=True)
    with open(agents / "ai.hermes.gateway.plist", "wb") as f:
        plistlib.dump({"Label": "ai.hermes.gateway", "KeepAlive": True,
                       "ProgramArguments": [PY, "-m", "hermes_cli.main", "gateway", "run", "--replace"],
                       "EnvironmentVariables": {"HERMES_HOME": str(home)}}, f)
    rc, found = codes(capsys, "--home", str(home))
    hit = found["HW401"]
    assert hit["severity"] == "error" and "KeepAlive restarts it after any exit" in hit["message"]
    assert "launchctl bootout gui/$(id -u)/ai.hermes.gateway" in hit["fix"]
    assert f"launchctl bootstrap gui/$(id -u) {agents / 'ai.hermes.gateway.plist'}" in hit["fix"]
    (agents / "ai.hermes.gateway.plist").unlink()
    s6 = root / "run" / "service" / "gateway-default"
    s6.mkdir(parents=True)
    (s6 / "run").write_text(f"#!/command/with-contenv sh\nexport HERMES_HOME={home}\n"
                            "exec s6-setuidgid hermes hermes gateway run --replace\n")
    found = codes(capsys, "--home", str(home))[1]
    assert f"s6-svc -d {s6}" in found["HW401"]["fix"] and f"s6-svc -u {s6}" in found["HW401"]["fix"]
    assert "finish" in found["HW402"]["fix"]  # no finish script: exit 78 is restarted too


def test_explicit_unit_scope_from_its_place_or_its_user_line(tmp_path):
    copy = tmp_path / "copy" / "gw.service"
    copy.parent.mkdir()
    copy.write_text(system_unit(PY, "/srv/h"))
    assert units.load(copy, tmp_path / "root", tmp_path).scope == "system"  # User= → system
    copy.write_text(user_unit(PY, "/srv/h"))
    assert units.load(copy, tmp_path / "root", tmp_path).scope == "user"
    etc_user = tmp_path / "root" / "etc" / "systemd" / "user" / "hermes-gateway.service"
    etc_user.parent.mkdir(parents=True)
    etc_user.write_text(user_unit(PY, "/srv/h"))
    assert units.load(etc_user, tmp_path / "root", tmp_path).scope == "user"


def test_system_unit_without_home_lines_uses_the_account_from_passwd(machine):
    _, root = machine
    (root / "etc" / "passwd").write_text("hermes:x:999:999::/srv/hermes:/usr/sbin/nologin\n")
    text = system_unit(PY, "/x")
    text = "\n".join(line for line in text.splitlines() if "HERMES_HOME" not in line and "HOME=" not in line)
    (root / "etc" / "systemd" / "system" / "hermes-gateway.service").write_text(text + "\n")
    assert units.detect()[0].home == Path("/srv/hermes/.hermes")


@pytest.mark.parametrize("value, home", [
    ('"HERMES_HOME=/srv/100%%/hermes"', "/srv/100%/hermes"),  # %% is a literal %
    ("HERMES_HOME=%h/bot", "{user_home}/bot"),  # %h: the user manager's home
    ('"HERMES_HOME=/srv/a\\x20b"', "/srv/a b"),  # C escapes are decoded
    ("HERMES_HOME=/srv/a\\040b", "/srv/a b"),
    ("HERMES_HOME=/srv/$$x", "/srv/$$x"),  # $$ is an Exec*= escape, not an Environment= one
    ("HERMES_HOME=/srv/ok HERMES_HOME=/srv/%Z", "/srv/ok"),  # an unknown specifier: that word is ignored
])
def test_environment_is_read_with_systemd_escapes_and_specifiers(tmp_path, value, home):
    from hermes_wizard.service.units import read_systemd

    path = tmp_path / "hermes-gateway.service"
    path.write_text(f"[Service]\nEnvironment={value}\nExecStart=/usr/bin/python -m hermes_cli.main gateway run\n")
    unit = read_systemd(path, "user", tmp_path / "root", tmp_path / "u")
    assert str(unit.home) == home.format(user_home=tmp_path / "u")
