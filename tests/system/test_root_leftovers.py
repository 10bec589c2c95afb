"""Root on a home it does not own, what it leaves behind: modes a restore puts back, advice
naming the owner's programs, the owner's venv metadata, and what `--install-gate` creates in `~/.config`.

The attacker is the home's owner, a throw-away user (test_root_homes.py's `owner` fixture): they forge the
backup journal, plant a venv whose METADATA links to a root-only file, or simply own the home root works on.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest
from apply_homes import ROOT, mode_of, wizard_cli
from as_owner import wizard_for_everyone
from fake_systemd import user_unit
from service_box import UNIT, doctor  # box, owner and place, the fixtures, are the conftests'
from unit.test_service_hostile import (
    ALICE,
    alices_units,
    tmp_path,  # noqa: F401  (Alice's files where she may reach them)
)

from hermes_wizard.plan.changes import ENV, YAML
from hermes_wizard.service import dropin
from hermes_wizard.service.units import GATE_DROPIN, read_systemd
from hermes_wizard.write.backups import BACKUP_DIR
from system.test_root_homes import user_home


def _forge_latest_mode(home, owner, name: str, mode: int) -> None:
    """The owner rewrites the journal of root's latest backup set: `name` "had" `mode`."""
    latest = sorted((home / BACKUP_DIR).iterdir())[-1] / "manifest.json"
    manifest = json.loads(latest.read_text())
    manifest["files"][name]["mode"] = mode
    latest.write_text(json.dumps(manifest))
    os.chown(latest, owner[1], owner[2])


@pytest.mark.parametrize("name,had,limit", [(ENV, 0o600, 0o600), (YAML, 0o640, 0o640)])
def test_root_undo_never_restores_a_mode_looser_than_the_file_had(place, owner, name, had, limit):
    """Before: the forged 0777 was put back as is, a world-writable .env after root's undo."""
    base, _ = place
    home = user_home(base, owner)
    os.chmod(home / name, had)
    fixed = wizard_cli("doctor", "--fix", "--yes", "--home", str(home))
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    _forge_latest_mode(home, owner, name, 0o777)
    undone = wizard_cli("undo", "--yes", "--home", str(home))
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert mode_of(home / name) & ~limit == 0, oct(mode_of(home / name))


def test_an_env_restored_where_it_was_deleted_is_private(place, owner):
    """The owner deleted .env after root's fix; the forged journal says 0666: the new file is still 0600."""
    base, _ = place
    home = user_home(base, owner)
    fixed = wizard_cli("doctor", "--fix", "--yes", "--home", str(home))
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    _forge_latest_mode(home, owner, ENV, 0o666)
    (home / ENV).unlink()
    undone = wizard_cli("undo", "--yes", "--home", str(home))
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert stat.S_IMODE(os.stat(home / ENV).st_mode) == 0o600


# ---------------------------------------------------------------- advice naming the owner's programs


def _hermes_venv(home, owner, pip: bool = True, metadata: str = "Version: 0.19.0\n"):
    """Hermes's installer layout in the owner's home: <home>/hermes-agent/venv, everything the owner's."""
    venv = home / "hermes-agent" / "venv"
    info = venv / "lib" / "python3.11" / "site-packages" / "hermes_agent-0.19.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hermes-agent\n" + metadata)
    (venv / "bin").mkdir()
    if pip:
        (venv / "bin" / "pip").write_text("#!/bin/sh\necho the owner's code runs as $(id -u)\n")
        (venv / "bin" / "pip").chmod(0o755)
    for path in [home / "hermes-agent", *(home / "hermes-agent").rglob("*")]:
        os.lchown(path, owner[1], owner[2])
    return venv


def _check(home) -> str:
    """root's `check` of the home, with no Hermes named by the environment: the home's own venv is found."""
    env = {k: v for k, v in os.environ.items() if k not in ("HERMES_HOME", "HERMES_WIZARD_HERMES_PYTHON")}
    done = subprocess.run([sys.executable, "-m", "hermes_wizard", "check", "--home", str(home)], cwd=ROOT,
                          env=env | {"PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=60)
    assert "Traceback" not in done.stderr, done.stderr
    return done.stdout + done.stderr


def test_root_is_told_to_run_the_owners_pip_as_the_owner(place, owner):
    """Before: `Tip: `<home>/hermes-agent/venv/bin/pip install hermes-wizard`` — the owner's script, for root."""
    base, _ = place
    home = user_home(base, owner)
    venv = _hermes_venv(home, owner)
    out = _check(home)
    assert f"`sudo -u {owner[0]} {venv}/bin/pip install hermes-wizard`" in out, out


def test_a_venv_without_pip_is_never_advised_a_pip_found_further_up(place, owner):
    """Before: the search for bin/pip climbed to `/` and advised `//bin/pip`, the system's pip, as root."""
    base, _ = place
    home = user_home(base, owner)
    _hermes_venv(home, owner, pip=False)
    out = _check(home)
    assert "//bin/pip" not in out and "/bin/pip install" not in out.replace("<Hermes's venv>/bin/pip install", ""), out
    assert "<Hermes's venv>/bin/pip install hermes-wizard" in out, out


# ---------------------------------------------------------------- the owner's venv metadata, read for the owner


@pytest.fixture
def root_only(place):
    """A root-only folder (0700) outside the home, as /root or /etc/ssl/private would be."""
    base, _ = place
    folder = base / "root-only"
    folder.mkdir(mode=0o700)
    folder.chmod(0o700)
    return folder


def test_metadata_linked_to_a_root_only_file_is_not_read_for_root(place, owner, root_only):
    """Before: root read the link's target and printed "Hermes ROOTONLY-db-pass…" as the version."""
    base, _ = place
    home = user_home(base, owner)
    venv = _hermes_venv(home, owner)
    secret = root_only / "db.conf"
    secret.write_text("Metadata-Version: 2.1\nName: hermes-agent\nVersion: ROOTONLY-db-pass\n")
    secret.chmod(0o600)
    metadata = next(venv.glob("lib/python3.11/site-packages/hermes_agent-*.dist-info")) / "METADATA"
    metadata.unlink()
    metadata.symlink_to(secret)
    os.lchown(metadata, owner[1], owner[2])
    out = _check(home)
    assert "ROOTONLY" not in out and "Hermes 0.19.0" in out, out  # the dist-info's name, as the owner sees


def test_an_editable_checkout_version_in_a_root_only_file_is_not_read_for_root(place, owner, root_only):
    """direct_url.json (the owner's) points the editable install at a checkout whose hermes_cli/__init__.py
    only root may read."""
    base, _ = place
    home = user_home(base, owner)
    venv = _hermes_venv(home, owner)
    checkout = root_only / "checkout"
    (checkout / "gateway").mkdir(parents=True)
    (checkout / "gateway" / "config.py").write_text("")
    (checkout / "hermes_cli").mkdir()
    (checkout / "hermes_cli" / "__init__.py").write_text('__version__ = "ROOTONLY-checkout-secret"\n')
    info = next(venv.glob("lib/python3.11/site-packages/hermes_agent-*.dist-info"))
    (info / "direct_url.json").write_text(json.dumps({"url": f"file://{checkout}", "dir_info": {"editable": True}}))
    os.chown(info / "direct_url.json", owner[1], owner[2])
    out = _check(home)
    assert "ROOTONLY" not in out and "Hermes 0.19.0" in out, out


# ---------------------------------------------------------------- what --install-gate creates in ~/.config


def test_root_installing_a_user_units_gate_leaves_the_folder_and_dropin_to_the_user(place):
    """Before: root made `hermes-gateway.service.d/` and the drop-in root's, in Alice's ~/.config: her own
    `undo` could not take them out again.  (Her home lies where she may enter: her unit is read as she could.)"""
    base, _ = place
    units = alices_units(base)
    (units / UNIT).write_text(user_unit("/bin/true", base / "alice" / ".hermes"))
    os.chown(units / UNIT, ALICE, ALICE)
    unit = read_systemd(units / UNIT, "user", base / "root", base / "alice")
    written = dropin.install(unit, "gate", "/bin/true")
    for path in (written.parent, written):
        assert (os.lstat(path).st_uid, os.lstat(path).st_gid) == (ALICE, ALICE), path


def test_root_doctor_install_gate_on_a_users_unit_leaves_nothing_of_roots_in_their_config(box, capsys):
    fake, home, dropins = box
    user_home = dropins.parents[3]  # <user>/.config/systemd/user/<unit>.d
    for path in [user_home, *user_home.rglob("*")]:
        os.lchown(path, ALICE, ALICE)
    # the gate is tried as Alice before it is planned: it must name a hermes-wizard she can run
    everyone = wizard_for_everyone(user_home.parent)
    rc, out = doctor(capsys, home, "--fix", "--yes", "--install-gate", "--wizard-path", str(everyone))
    assert rc == 0 and GATE_DROPIN in os.listdir(dropins), out
    assert "Gate tried as 47011" in out, out
    roots = [p for p in [user_home, *user_home.rglob("*")] if os.lstat(p).st_uid != ALICE]
    assert roots == [], roots


def test_root_is_told_to_run_the_owners_gateway_as_the_owner(place, owner):
    """No service runs the home: the advice to run `hermes gateway run` by hand, given to root, would run
    Hermes (which loads the home's enabled plugins) as root.  It names the owner."""
    base, _ = place
    home = user_home(base, owner)
    fixed = wizard_cli("doctor", "--fix", "--yes", "--home", str(home))
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert f"Next: restart the gateway once: sudo -u {owner[0]} env HERMES_HOME={home} hermes gateway run" \
        in fixed.stdout, fixed.stdout
