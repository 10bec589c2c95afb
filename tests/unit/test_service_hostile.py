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
from scratch_root import scratch_root
from service_box import UNIT, doctor  # box, the fixture, is tests/conftest.py's

from hermes_wizard.faces.cli import main
from hermes_wizard.service import dropin
from hermes_wizard.service.units import FALLBACK_DROPIN, GATE_DROPIN, read_systemd

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="chown to other users needs root")

ALICE, BOB = 47011, 47012  # the unit's owner, and a third user (no account needed for chown)
ADMIN_CONF = "[Service]\nLimitNOFILE=65536\n"


@pytest.fixture
def tmp_path():
    """Where each test's machine lies: a folder every user may enter.  Alice's unit files are read as she could
    read them, and she cannot reach into pytest's own tmp_path (root's, 0700), nor always into /tmp."""
    with scratch_root("hw-service-") as folder:
        yield folder


@pytest.fixture
def open_tmp():
    """A second such folder: where root-owned files a user may read (a packaged unit, /etc/systemd/system)
    stand in the tests."""
    with scratch_root("hw-open-") as folder:
        yield folder


def undo(capsys, home) -> tuple[int, str]:
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
    assert (home / ".env").read_bytes() != original  # decided at plan time: the file repair applies alone


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


def test_a_users_link_into_a_system_folder_gets_no_dropin(tmp_path, open_tmp):
    """`~/.config/systemd/user` → /etc/systemd/system, where a root-owned hermes-gateway.service runs the
    same home: through Alice's link root would add a start condition to the system's unit."""
    system = open_tmp / "etc" / "systemd" / "system"
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
    assert names(dropins) == [GATE_DROPIN] and "uid 47012" in out and rc == 1


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


# ---------------------------------------------------------------- plan time: no drop-in promised in a refused folder


def test_a_refused_folder_gets_no_dropin_in_the_preview(box, capsys, tmp_path):
    """The preview (doctor --dry-run, the review) must not promise a drop-in apply will refuse to write."""
    fake, home, dropins = box
    victim = other_units_folder(tmp_path / "root")
    dropins.symlink_to(victim)
    rc, out = doctor(capsys, home, "--dry-run", "--install-gate")
    assert rc != 0
    assert "hermes-wizard-gate.conf" not in out and "daemon-reload" not in out
    assert f"Gate not planned: {dropins} is a symbolic link" in out


def test_install_gate_into_a_refused_folder_repairs_the_files_and_exits_1(box, capsys, tmp_path):
    """Like any drop-in that cannot be planned: the file repair applies, the service step is not run, exit 1."""
    fake, home, dropins = box
    victim = other_units_folder(tmp_path / "root")
    dropins.symlink_to(victim)
    rc, out = doctor(capsys, home, "--fix", "--yes", "--install-gate")
    assert rc == 1, out
    assert names(victim) == ["10-admin.conf"] and "daemon-reload" not in " ".join(map(" ".join, fake.calls()))
    assert f"Gate not planned: {dropins} is a symbolic link" in out
    assert "Verified: the gateway will start" in out


def test_a_dropin_folder_in_the_users_dotfiles_is_still_planned(box, capsys, tmp_path):
    fake, home, dropins = box
    dotfiles = tmp_path / "dotfiles" / f"{UNIT}.d"
    dotfiles.mkdir(parents=True)
    dropins.parent.rename(tmp_path / "dotfiles-units")
    (tmp_path / "dotfiles-units").rename(tmp_path / "dotfiles" / "user")
    dropins.parent.symlink_to(tmp_path / "dotfiles" / "user")  # ~/.config/systemd/user -> the dotfiles
    rc, out = doctor(capsys, home, "--fix", "--yes", "--install-gate")
    assert rc == 0, out
    assert names(tmp_path / "dotfiles" / "user" / f"{UNIT}.d") == [GATE_DROPIN]


# ---------------------------------------------------------------- undo: drop-ins left are said, and not "done"


def refuse_the_folder(dropins: Path, victim: Path) -> None:
    """Our installed drop-in folder replaced by a link to another unit's folder (holding our file too)."""
    (victim / GATE_DROPIN).write_bytes((dropins / GATE_DROPIN).read_bytes())
    shutil.rmtree(dropins)
    dropins.symlink_to(victim)


def test_undo_preview_names_the_dropin_it_will_leave(box, capsys, tmp_path):
    fake, home, dropins = box
    rc, out = doctor(capsys, home, "--fix", "--yes", "--install-gate")
    assert rc == 0, out
    refuse_the_folder(dropins, other_units_folder(tmp_path / "root"))
    rc = main(["undo", "--dry-run", "--home", str(home)])
    out = capsys.readouterr().out
    assert "puts the service drop-ins back" not in out, out
    assert f"It leaves {GATE_DROPIN} of {UNIT} as it is: {dropins} is a symbolic link" in out


def test_undo_that_leaves_a_dropin_does_not_exit_0(box, capsys, tmp_path):
    fake, home, dropins = box
    rc, out = doctor(capsys, home, "--fix", "--yes", "--install-gate")
    assert rc == 0, out
    victim = other_units_folder(tmp_path / "root")
    refuse_the_folder(dropins, victim)
    rc, out = undo(capsys, home)
    assert rc == 1, out
    assert names(victim) == ["10-admin.conf", GATE_DROPIN] and "Restored .env" in out


def test_undo_of_a_dropin_in_a_linked_dotfiles_folder_removes_it_and_exits_0(box, capsys, tmp_path):
    fake, home, dropins = box
    units = dropins.parent
    units.rename(tmp_path / "dotfiles-user")
    units.symlink_to(tmp_path / "dotfiles-user")
    rc, out = doctor(capsys, home, "--fix", "--yes", "--install-gate")
    assert rc == 0, out
    assert main(["undo", "--dry-run", "--home", str(home)]) == 0
    assert "It also puts the service drop-ins back" in capsys.readouterr().out
    rc, out = undo(capsys, home)
    assert rc == 0, out
    assert names(tmp_path / "dotfiles-user" / f"{UNIT}.d") == [] and "Removed" in out


# ---------------------------------------------------------------- reading a user's unit and drop-ins


SECRET_UNIT = "[Service]\nEnvironment=HERMES_HOME=/root/secret-place\nExecStart=/usr/bin/hermes gateway run\n"


def root_only_file(where: Path, text: str, name: str = "private.conf") -> Path:
    secret = where / "etc" / name
    secret.parent.mkdir(parents=True, exist_ok=True)
    secret.write_text(text)
    secret.chmod(0o600)
    return secret


def test_a_users_unit_linked_to_a_root_only_file_is_not_read(tmp_path, open_tmp):
    units = alices_units(tmp_path)
    secret = root_only_file(open_tmp, SECRET_UNIT)
    (units / UNIT).symlink_to(secret)
    os.lchown(units / UNIT, ALICE, ALICE)
    unit = read_systemd(units / UNIT, "user", tmp_path / "root", tmp_path / "alice")
    assert unit.home is None and unit.python is None
    assert unit.error is not None and unit.error.startswith("cannot be read") and "uid 47011" in unit.error


def test_a_users_dropin_linked_to_a_root_only_file_is_not_read(tmp_path, open_tmp):
    units = alices_units(tmp_path)
    (units / UNIT).write_text(user_unit("/bin/true", tmp_path / "alice" / ".hermes"))
    os.chown(units / UNIT, ALICE, ALICE)
    folder = units / f"{UNIT}.d"
    folder.mkdir()
    os.chown(folder, ALICE, ALICE)
    (folder / "override.conf").symlink_to(root_only_file(open_tmp, SECRET_UNIT))
    os.lchown(folder / "override.conf", ALICE, ALICE)
    unit = read_systemd(units / UNIT, "user", tmp_path / "root", tmp_path / "alice")
    assert unit.error is None and unit.home == tmp_path / "alice" / ".hermes"


def test_a_users_unit_linked_to_a_readable_file_in_a_root_only_folder_is_not_read(tmp_path, open_tmp):
    units = alices_units(tmp_path)
    secret = root_only_file(open_tmp, SECRET_UNIT)
    secret.chmod(0o644)
    secret.parent.chmod(0o700)  # like /root: the file's mode says nothing if Alice cannot get to it
    (units / UNIT).symlink_to(secret)
    unit = read_systemd(units / UNIT, "user", tmp_path / "root", tmp_path / "alice")
    assert unit.home is None and "may not enter" in (unit.error or "")


def test_a_users_unit_linked_to_a_fifo_is_refused_without_waiting(tmp_path):
    units = alices_units(tmp_path)
    os.mkfifo(tmp_path / "alice" / "pipe")
    os.chown(tmp_path / "alice" / "pipe", ALICE, ALICE)
    (units / UNIT).symlink_to(tmp_path / "alice" / "pipe")
    unit = read_systemd(units / UNIT, "user", tmp_path / "root", tmp_path / "alice")
    assert unit.error == "cannot be read (it is not a regular file)"


def test_a_users_unit_linked_to_another_users_file_is_not_read(tmp_path):
    units = alices_units(tmp_path)
    bobs = tmp_path / "bob" / "unit.service"
    bobs.parent.mkdir()
    bobs.write_text(SECRET_UNIT)
    os.chown(bobs, BOB, BOB)
    bobs.chmod(0o600)  # Bob's alone: Alice may not read it (one every user may read would be hers to read)
    (units / UNIT).symlink_to(bobs)
    unit = read_systemd(units / UNIT, "user", tmp_path / "root", tmp_path / "alice")
    assert unit.home is None and "cannot be read" in (unit.error or "")


@pytest.mark.parametrize("owner", ["alice", "root"])
def test_a_unit_linked_in_the_systemctl_link_way_is_still_read(tmp_path, open_tmp, owner):
    """`systemctl --user link ~/src/hermes-gateway.service`: the unit is the user's own file elsewhere, or a
    root-owned file everyone may read (a packaged unit)."""
    units = alices_units(tmp_path)
    elsewhere = (tmp_path / "alice" if owner == "alice" else open_tmp / "usr") / "src" / UNIT
    elsewhere.parent.mkdir(parents=True)
    elsewhere.write_text(user_unit("/bin/true", tmp_path / "alice" / ".hermes"))
    if owner == "alice":
        os.chown(elsewhere.parent, ALICE, ALICE)
        os.chown(elsewhere, ALICE, ALICE)
    (units / UNIT).symlink_to(elsewhere)
    os.lchown(units / UNIT, ALICE, ALICE)
    unit = read_systemd(units / UNIT, "user", tmp_path / "root", tmp_path / "alice")
    assert unit.error is None and unit.home == tmp_path / "alice" / ".hermes"


@pytest.mark.parametrize("mine", [False, True])
def test_a_users_launch_agent_linked_to_a_root_only_plist_is_not_read(tmp_path, open_tmp, mine):
    """launchd's LaunchAgents is the user's folder too: a plist linked to a root-only file is not read for
    root (its EnvironmentVariables would become the unit's home); the user's own plist still is."""
    import plistlib

    from hermes_wizard.service.supervisors import read_plist

    alice = tmp_path / "alice"
    agents = alice / "Library" / "LaunchAgents"
    agents.mkdir(parents=True)
    for folder in (alice, alice / "Library", agents):
        os.chown(folder, ALICE, ALICE)
    plist = plistlib.dumps({"Label": "ai.hermes.gateway", "ProgramArguments": ["/bin/true"],
                            "EnvironmentVariables": {"HERMES_HOME": "/srv/secret-home"}})
    target = (alice / "mine.plist") if mine else open_tmp / "etc" / "root-only.plist"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(plist)
    if mine:
        os.chown(target, ALICE, ALICE)
    else:
        target.chmod(0o600)
    (agents / "ai.hermes.gateway.plist").symlink_to(target)
    unit = read_plist(agents / "ai.hermes.gateway.plist", alice)
    if mine:
        assert unit.error is None and unit.home == Path("/srv/secret-home")
    else:
        assert unit.home is None and (unit.error or "").startswith("cannot be read") and "uid 47011" in unit.error


def test_trying_the_gate_on_a_home_a_unit_file_cannot_name_refuses_with_a_sentence(tmp_path):
    """A home whose path holds `$` (the owner chose it): the gate cannot be written for it, and trying it says so
    instead of raising; a candidate named by a relative or reinterpreted path is never run."""
    import sys

    from hermes_wizard.service import gate_proof

    units = tmp_path / "units"
    units.mkdir()
    (units / UNIT).write_text(user_unit("/bin/true", tmp_path / "ho$me"))
    unit = read_systemd(units / UNIT, "user", tmp_path / "root", tmp_path)
    wizard = Path(sys.executable).with_name("hermes-wizard")
    proof = gate_proof.choose_and_prove(unit, wizard, None, None)
    assert proof.wizard is None and "holds characters a unit file would reinterpret" in proof.why_not
    for named, why in ((Path("bin/hermes-wizard"), "not an absolute path"),
                       (tmp_path / "a$b" / "hermes-wizard", "its path holds characters")):
        proof = gate_proof.choose_and_prove(unit, named, None, None)
        assert proof.wizard is None and why in proof.why_not, proof.why_not
