"""The drop-in writer against the owner of a user unit's folder: root runs `doctor --install-gate` and
`undo`, the home's owner controls `~/.config/systemd/user` and everything in it.

Each test is the attacker's move: the drop-in folder (`hermes-gateway.service.d`) made a symlink to
another unit's drop-in folder (install must write nothing there, undo and a recovery must remove
nothing there), the folder swapped for a link between the check of our file and its removal, the
unit's folder reached through a user's link that lands in a root-owned system folder, and a folder
owned by a third user.  Legitimate setups (a `~/.config` linked into a dotfiles tree) keep working.

The throw-away owners are bare uids (chown needs no account); everything runs as root.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from fake_systemd import user_unit
from test_service_flow import UNIT, box, doctor  # noqa: F401  (box: the fixture)
from wizard.faces.cli import main
from wizard.service import dropin
from wizard.service import scope as service
from wizard.service.units import FALLBACK_DROPIN, GATE_DROPIN, read_systemd

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="chown to other users needs root")

ALICE, BOB = 47011, 47012  # the unit's owner, and a third user (no account needed for chown)
ADMIN_CONF = "[Service]\nLimitNOFILE=65536\n"


def undo(capsys, home) -> tuple[int, str]:
    service.reset()
    rc = main(["undo", "--yes", "--home", str(home)])
    out, err = capsys.readouterr()
    return rc, out + err


def other_units_folder(root: Path) -> Path:
    """A root-owned system unit's drop-in folder (sshd's), holding the admin's own drop-in."""
    victim = root / "etc" / "systemd" / "system" / "sshd.service.d"
    victim.mkdir(parents=True)
    (victim / "10-admin.conf").write_text(ADMIN_CONF)
    return victim


def names(folder: Path) -> list[str]:
    return sorted(os.listdir(folder))


# ---------------------------------------------------------------- a symlinked drop-in folder


def test_undo_does_not_remove_our_dropin_from_the_folder_a_symlink_points_at(box, capsys, tmp_path):
    fake, home, dropins = box
    rc, out = doctor(capsys, home, "--fix", "--yes", "--install-gate")
    assert rc == 0, out
    victim = other_units_folder(tmp_path / "root")
    ours = (dropins / GATE_DROPIN).read_bytes()
    (victim / GATE_DROPIN).write_bytes(ours)  # our drop-in, installed by root for another unit
    shutil.rmtree(dropins)
    dropins.symlink_to(victim)
    rc, out = undo(capsys, home)
    assert names(victim) == ["10-admin.conf", GATE_DROPIN] and (victim / GATE_DROPIN).read_bytes() == ours
    assert f"{dropins} is a symbolic link" in out and "Removed" not in out


def test_a_recovery_does_not_remove_through_a_symlinked_folder(box, capsys, tmp_path):
    fake, home, dropins = box
    rc, out = doctor(capsys, home, "--fix", "--yes", "--install-gate")
    assert rc == 0, out
    manifest_path = sorted((home / ".wizard-backups").iterdir())[-1] / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["state"] = "applying"  # "killed" mid-run: the next write path takes the drop-in back out
    manifest_path.write_text(json.dumps(manifest))
    victim = other_units_folder(tmp_path / "root")
    (victim / GATE_DROPIN).write_bytes((dropins / GATE_DROPIN).read_bytes())
    shutil.rmtree(dropins)
    dropins.symlink_to(victim)
    service.reset()
    rc, out = doctor(capsys, home, "--fix", "--yes")
    assert names(victim) == ["10-admin.conf", GATE_DROPIN]
    assert f"{dropins} is a symbolic link" in out


def test_install_writes_nothing_into_the_folder_a_symlink_points_at(box, capsys, tmp_path):
    fake, home, dropins = box
    original = (home / ".env").read_bytes()
    victim = other_units_folder(tmp_path / "root")
    (victim / FALLBACK_DROPIN).write_text("# Written by hermes-wizard for sshd.service\n[Service]\n")
    dropins.symlink_to(victim)
    rc, out = doctor(capsys, home, "--fix", "--yes", "--install-gate")
    assert rc != 0
    assert names(victim) == ["10-admin.conf", FALLBACK_DROPIN]  # no gate written, our other variant kept
    assert f"{dropins} is a symbolic link" in out
    assert (home / ".env").read_bytes() == original  # the repair was taken back with it


def test_a_dropin_seen_through_a_symlinked_folder_is_not_in_place(tmp_path):
    units = tmp_path / "user" / ".config" / "systemd" / "user"
    units.mkdir(parents=True)
    (units / UNIT).write_text(user_unit("/bin/true", tmp_path / "home"))
    unit = read_systemd(units / UNIT, "user", tmp_path / "root", tmp_path / "user")
    victim = other_units_folder(tmp_path / "root")
    (victim / GATE_DROPIN).write_text(dropin.render(unit, "gate", "/bin/true")[1])
    unit.dropin_dir.symlink_to(victim)
    assert not dropin.current(unit, "gate", "/bin/true")


def test_the_folder_swapped_for_a_link_after_the_check_removes_nothing_there(box, capsys, tmp_path, monkeypatch):
    """The owner renames the real folder away and puts a link in its place right after root read our
    header: the removal must still act on the folder that was checked, not follow the new link."""
    fake, home, dropins = box
    rc, out = doctor(capsys, home, "--fix", "--yes", "--install-gate")
    assert rc == 0, out
    victim = other_units_folder(tmp_path / "root")
    (victim / GATE_DROPIN).write_bytes((dropins / GATE_DROPIN).read_bytes())
    real_open, swapped = os.open, []

    def open_then_swap(path, flags, *args, **kwargs):
        fd = real_open(path, flags, *args, **kwargs)
        if os.fspath(path).endswith(GATE_DROPIN) and not flags & os.O_CREAT and not swapped:
            dropins.rename(dropins.with_name("moved.d"))
            dropins.symlink_to(victim)
            swapped.append(True)
        return fd

    monkeypatch.setattr(os, "open", open_then_swap)
    undo(capsys, home)
    monkeypatch.undo()
    assert swapped and names(victim) == ["10-admin.conf", GATE_DROPIN]


# ---------------------------------------------------------------- who owns the way there


def alices_units(tmp_path: Path, link_to: Path | None = None) -> Path:
    """Alice's home with `~/.config/systemd/user`, all hers; with `link_to`, that folder is her symlink."""
    user_home = tmp_path / "alice"
    systemd = user_home / ".config" / "systemd"
    systemd.mkdir(parents=True)
    for folder in (user_home, user_home / ".config", systemd):
        os.chown(folder, ALICE, ALICE)
    units = systemd / "user"
    if link_to is None:
        units.mkdir()
        os.chown(units, ALICE, ALICE)
    else:
        units.symlink_to(link_to)
        os.lchown(units, ALICE, ALICE)
    return units


def test_a_users_link_into_a_system_folder_gets_no_dropin(tmp_path):
    """`~/.config/systemd/user` → /etc/systemd/system, where a root-owned hermes-gateway.service runs the
    same home: through Alice's link root would add a start condition to the system's unit."""
    system = tmp_path / "root" / "etc" / "systemd" / "system"
    system.mkdir(parents=True)
    (system / UNIT).write_text(user_unit("/bin/true", tmp_path / "home"))
    units = alices_units(tmp_path, link_to=system)
    unit = read_systemd(units / UNIT, "user", tmp_path / "root", tmp_path / "alice")
    with pytest.raises(OSError, match="not .*uid 47011"):
        dropin.install(unit, "gate", "/bin/true")
    assert not (system / f"{UNIT}.d").exists()


@pytest.mark.parametrize("relative", [False, True], ids=["absolute-link", "relative-link"])
def test_a_config_folder_linked_into_the_users_own_dotfiles_still_gets_its_dropin(tmp_path, relative):
    dotfiles = tmp_path / "alice-dotfiles" / "systemd-user"
    dotfiles.mkdir(parents=True)
    for folder in (dotfiles.parent, dotfiles):
        os.chown(folder, ALICE, ALICE)
    units = alices_units(tmp_path, link_to=Path("../../../alice-dotfiles/systemd-user") if relative else dotfiles)
    (units / UNIT).write_text(user_unit("/bin/true", tmp_path / "alice" / ".hermes"))
    os.chown(units / UNIT, ALICE, ALICE)
    unit = read_systemd(units / UNIT, "user", tmp_path / "root", tmp_path / "alice")
    written = dropin.install(unit, "gate", "/bin/true")
    assert names(dotfiles / f"{UNIT}.d") == [GATE_DROPIN] and written == units / f"{UNIT}.d" / GATE_DROPIN
    assert dropin.current(unit, "gate", "/bin/true")


@pytest.mark.parametrize("third", ["units folder", "drop-in folder"])
def test_a_folder_of_a_third_user_gets_no_dropin(tmp_path, third):
    units = alices_units(tmp_path)
    (units / UNIT).write_text(user_unit("/bin/true", tmp_path / "alice" / ".hermes"))
    os.chown(units / UNIT, ALICE, ALICE)
    (units / f"{UNIT}.d").mkdir()
    os.chown(units / f"{UNIT}.d", ALICE, ALICE)
    os.chown(units if third == "units folder" else units / f"{UNIT}.d", BOB, BOB)
    unit = read_systemd(units / UNIT, "user", tmp_path / "root", tmp_path / "alice")
    with pytest.raises(OSError, match="uid 47012"):
        dropin.install(unit, "gate", "/bin/true")
    assert names(units / f"{UNIT}.d") == []


def test_undo_removes_nothing_from_a_dropin_folder_a_third_user_owns(box, capsys):
    fake, home, dropins = box
    rc, out = doctor(capsys, home, "--fix", "--yes", "--install-gate")
    assert rc == 0, out
    units = dropins.parent
    (units / UNIT).chmod(0o644)
    for path in (units.parent.parent.parent, units.parent.parent, units.parent, units, units / UNIT):
        os.chown(path, ALICE, ALICE)  # the unit and its folders are Alice's ...
    os.chown(dropins, BOB, BOB)  # ... the drop-in folder is Bob's
    rc, out = undo(capsys, home)
    assert names(dropins) == [GATE_DROPIN] and "uid 47012" in out


def test_a_units_folder_anyone_may_write_in_gets_no_dropin(tmp_path):
    """World-writable without the sticky bit: any user could swap the drop-in folder for a link."""
    units = alices_units(tmp_path)
    (units / UNIT).write_text(user_unit("/bin/true", tmp_path / "alice" / ".hermes"))
    os.chown(units / UNIT, ALICE, ALICE)
    units.chmod(0o777)
    unit = read_systemd(units / UNIT, "user", tmp_path / "root", tmp_path / "alice")
    with pytest.raises(OSError, match="writable by every user"):
        dropin.install(unit, "gate", "/bin/true")
    assert names(units) == [UNIT]
