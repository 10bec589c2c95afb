"""Installing the gate proves it as the unit's user (a gate is installed only once it ran as that user), from the
attacker's side.

Root runs `doctor --install-gate` for a system unit with `User=` a throw-away user.  This tool is installed
where only root can run it (the test venv: its interpreter lies under /root, mode 0700), so a drop-in naming it
would be inert — the drop-in turns "cannot execute" into a start.  The user's Hermes venv (in their home, as
Hermes's installer puts it) holds a hermes-wizard they can run, as Hermes's plugin installs it: a console
script that records who ran it and with what environment, then runs this tool.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import fake_hermes
from as_owner import WIZARD_SITE, owner_python

from hermes_wizard.service import dropin
from hermes_wizard.service.units import read_systemd
from system.test_root_homes import VENV_WIZARD

ROOT_SECRET = "ROOT-ONLY-gate-proof"


def system_unit(base: Path, home: Path, user: str) -> Path:
    units = base / "units"
    units.mkdir(exist_ok=True)
    unit = units / "hermes-gateway.service"
    unit.write_text(f"""[Service]
Type=simple
User={user}
ExecStart={home}/hermes-agent/venv/bin/python -m hermes_cli.main gateway run
Environment="HERMES_HOME={home}"
Environment="FROM_THE_UNIT=yes"
Restart=always
RestartSec=5
""")
    return unit


def refusing_home(base: Path, owner) -> Path:
    """The demo's refusal (an open WhatsApp without opt-in) in a home of the owner's."""
    home = base / "home"
    home.mkdir()
    (home / ".env").write_text("WHATSAPP_ENABLED=true\nWHATSAPP_DM_POLICY=open\n")
    (home / ".env").chmod(0o600)
    (home / "whatsapp" / "session").mkdir(parents=True)
    (home / "whatsapp" / "session" / "creds.json").write_text('{"me": {"id": "1@s.whatsapp.net"}}')
    for path in [home, *home.rglob("*")]:
        os.lchown(path, owner[1], owner[2])
    home.chmod(0o755)
    return home


def plugin_wizard(base: Path, home: Path, owner) -> tuple[Path, Path]:
    """Hermes 0.19.0's venv in the home (a stand-in Hermes), with a hermes-wizard its owner can run that records
    each run; (that executable, the record file)."""
    record = fake_hermes.record_place(base, owner)
    venv = home / "hermes-agent" / "venv"
    fake_hermes.plant(venv, record, owner)
    python = owner_python(WIZARD_SITE, base)
    assert isinstance(python, Path), python
    script = venv / "bin" / "hermes-wizard"
    script.write_text(f"""#!{python}
import json, os, sys
with open({str(record.with_name("wizard-runs.jsonl"))!r}, "a") as out:
    out.write(json.dumps({{"uid": os.getuid(), "argv": sys.argv[1:], "env": dict(os.environ),
                          "sid": os.getsid(0)}}) + "\\n")
from hermes_wizard.faces.entry import console
console()
""")
    script.chmod(0o755)
    fake_hermes.give(home / "hermes-agent", owner)
    return script, record.with_name("wizard-runs.jsonl")


def doctor(unit: Path, home: Path, *more: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, ROOT_SECRET=ROOT_SECRET, NO_COLOR="1")
    return subprocess.run([str(VENV_WIZARD), "doctor", "--install-gate", "--dry-run", "--unit", str(unit),
                           "--home", str(home), *more], capture_output=True, text=True, env=env, timeout=300)


def findings_with_gate(unit: Path, home: Path, wizard: Path) -> dict[str, dict]:
    """`check`'s findings by code, with a gate drop-in naming `wizard` written into the unit's folder by hand."""
    folder = unit.with_name(unit.name + ".d")
    folder.mkdir(exist_ok=True)
    parsed = read_systemd(unit, "system", Path("/"), Path("/root"))
    (folder / "hermes-wizard-gate.conf").write_text(dropin.gate_text(parsed, wizard))
    done = subprocess.run([str(VENV_WIZARD), "check", "--unit", str(unit), "--home", str(home), "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    return {f["code"]: f for f in json.loads(done.stdout)["findings"]}


def test_a_wizard_the_units_user_cannot_run_is_never_installed(place, owner):
    base, _ = place
    home = refusing_home(base, owner)
    unit = system_unit(base, home, owner[0])
    done = doctor(unit, home)
    out = done.stdout + done.stderr
    assert f"Gate not planned: hermes-gateway.service runs as {owner[0]}, who cannot run a hermes-wizard" in out, out
    assert f"{VENV_WIZARD}: cannot be executed by that user" in out or f"{VENV_WIZARD}: exit" in out
    assert "ExecCondition=" not in out and done.returncode == 1
    # named explicitly, it is tried all the same: never installed on faith
    done = doctor(unit, home, "--wizard-path", str(VENV_WIZARD))
    assert "Gate not planned" in done.stdout + done.stderr and "ExecCondition=" not in done.stdout


def test_the_gate_is_tried_as_the_unit_user_with_the_units_environment(place, owner):
    base, _ = place
    home = refusing_home(base, owner)
    unit = system_unit(base, home, owner[0])
    script, runs = plugin_wizard(base, home, owner)
    done = doctor(unit, home)
    out = done.stdout + done.stderr
    assert (f"Gate tried as {owner[0]}, with hermes-gateway.service's environment, on the home as it stands: "
            f"`{script} check --gate` exited 78 (it skips the start): hermes-wizard gate: Hermes would refuse to "
            "start (whatsapp") in out, out
    assert f'w="{script}"' in out  # the drop-in names what that user can run
    seen = [json.loads(line) for line in runs.read_text().splitlines()]
    assert [run["argv"][:2] for run in seen] == [["--version"], ["check", "--gate"]]
    for run in seen:
        assert run["uid"] == owner[1] and run["sid"] != os.getsid(0)  # a session of its own, not root's
        assert run["env"]["FROM_THE_UNIT"] == "yes" and run["env"]["HERMES_HOME"] == str(home)
        assert run["env"]["USER"] == owner[0] and ROOT_SECRET not in json.dumps(run["env"])


def test_check_reports_an_installed_gate_its_user_cannot_run(place, owner):
    base, _ = place
    home = refusing_home(base, owner)
    unit = system_unit(base, home, owner[0])
    found = findings_with_gate(unit, home, VENV_WIZARD)
    assert found["HW405"]["severity"] == "error" and f"as {owner[0]}" in found["HW405"]["message"]
    script, _ = plugin_wizard(base, home, owner)
    assert "HW405" not in findings_with_gate(unit, home, script)

def test_a_root_unit_never_gets_a_gate_that_runs_a_file_its_homes_owner_controls(place, owner):
    """A unit run as root (no User=) serving a user's home: the hermes-wizard in that home's Hermes venv belongs to
    the user, so a gate naming it would run their file as root at every start.  It is neither run by the proof
    nor named; this installation's own (root's) is chosen instead."""
    base, _ = place
    home = refusing_home(base, owner)
    unit = system_unit(base, home, "root")
    script, runs = plugin_wizard(base, home, owner)
    done = doctor(unit, home)
    out = done.stdout + done.stderr
    assert not runs.exists() or runs.read_text() == "", runs.read_text()  # never run, as root or otherwise
    assert f'w="{script}"' not in out and f'w="{VENV_WIZARD}"' in out, out
    assert "Gate tried as root" in out
    done = doctor(unit, home, "--wizard-path", str(script))  # named explicitly: refused all the same
    out = done.stdout + done.stderr
    assert f"{script}: it lies at" in out or f"{script}: it belongs to uid {owner[1]}" in out, out
    assert "Gate not planned" in out and not (runs.exists() and runs.read_text())
    found = findings_with_gate(unit, home, script)  # such a drop-in, written by hand, is an error for check
    assert found["HW405"]["severity"] == "error" and "another user's code" in found["HW405"]["message"]
