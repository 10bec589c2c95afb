"""A fake machine for the service tests: the demo home, Hermes's user unit for it, fake systemd on PATH.

`box` is a fixture, made visible to every test by tests/conftest.py (it was test_service_flow.py's and is
used by the service, root and TUI tests alike); `doctor` and `verbs` are the helpers that go with it.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from fake_systemd import FakeSystemd, user_unit

from hermes_wizard.faces.cli import main

DEMO = Path(__file__).resolve().parents[2] / "assets" / "homes" / "death-loop"
UNIT = "hermes-gateway.service"
# The gate's command: this installation's own, which doctor tries as the unit's user before it plans the drop-in.
WIZARD = str(Path(sys.executable).with_name("hermes-wizard"))


@pytest.fixture
def box(tmp_path, monkeypatch):
    """A fake machine: the demo home, Hermes's user unit for it, fake systemd on PATH."""
    user_home, root = tmp_path / "user", tmp_path / "root"
    units = user_home / ".config" / "systemd" / "user"
    units.mkdir(parents=True)
    root.mkdir()
    home = tmp_path / "home"
    shutil.copytree(DEMO, home)
    (home / ".env").chmod(0o600)
    (units / UNIT).write_text(user_unit("/opt/hermes/venv/bin/python", home))
    monkeypatch.setenv("HOME", str(user_home))
    monkeypatch.setenv("HERMES_WIZARD_ROOT", str(root))
    fake = FakeSystemd(tmp_path, UNIT, "whatsapp").install(monkeypatch)
    fake.state["watch"] = [str(home / ".env")]
    fake.save()
    yield fake, home, units / f"{UNIT}.d"


def doctor(capsys, home, *extra) -> tuple[int, str]:
    rc = main(["doctor", "--home", str(home), "--wizard-path", WIZARD, "--settle", "0", *extra])
    out, err = capsys.readouterr()
    return rc, out + err


def verbs(fake) -> list[str]:
    """Each call as 'tool verb' (systemctl stop, journalctl, systemctl --version...)."""
    out = []
    for argv in fake.calls():
        words = [a for a in argv[1:] if not a.startswith("-")]
        out.append(f"{argv[0]} {'--version' if '--version' in argv else words[0] if argv[0] == 'systemctl' else ''}"
                   .strip())
    return out
