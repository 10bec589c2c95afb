"""The service steps as part of the Plan: journalled in the backup set, taken back by `undo` (and by
`undo` again), all-or-nothing with the file repair, and never steered by a backup set's contents.

Fake systemctl/journalctl (systemd 252 formats, tests/support/fake_systemd.py); the real systemd proof is
tests/system/test_real_systemd.py.
"""

from __future__ import annotations

import json

from service_box import UNIT, doctor, verbs  # box, the fixture, is tests/conftest.py's

from hermes_wizard.faces.cli import main
from hermes_wizard.service.units import FALLBACK_DROPIN, GATE_DROPIN


def undo(capsys, home) -> tuple[int, str]:
    rc = main(["undo", "--yes", "--home", str(home)])
    out, err = capsys.readouterr()
    return rc, out + err


def latest_manifest(home) -> dict:
    sets = sorted((home / ".wizard-backups").iterdir())
    return json.loads((sets[-1] / "manifest.json").read_text())


def test_the_backup_set_records_the_dropin_and_undo_takes_it_out(box, capsys):
    fake, home, dropins = box
    original = (home / ".env").read_text()
    rc, out = doctor(capsys, home, "--fix", "--yes", "--install-gate")
    assert rc == 0, out and (dropins / GATE_DROPIN).is_file()
    assert latest_manifest(home)["service"] == [{"unit": UNIT, "scope": "user", "before": [], "after": ["gate"]}]
    fake.log_path.write_text("")
    rc, out = undo(capsys, home)
    assert rc == 0, out
    assert not (dropins / GATE_DROPIN).exists() and (home / ".env").read_text() == original
    assert f"Removed {dropins / GATE_DROPIN}." in out and "systemctl daemon-reload" in verbs(fake)
    # undo again: the repair and the gate come back (the gate rendered anew, never copied from the set)
    rc, out = undo(capsys, home)
    assert rc == 0, out
    assert (dropins / GATE_DROPIN).read_text().startswith("# Written by hermes-wizard")
    assert "WEIXIN_DM_POLICY=pairing" in (home / ".env").read_text()


def test_a_gate_alone_is_a_plan_too_and_undone_alike(box, capsys):
    fake, home, dropins = box
    (home / ".env").write_text("TELEGRAM_BOT_TOKEN=1:x\nTELEGRAM_ALLOWED_USERS=42\n")
    (home / "config.yaml").unlink()
    fake.state["phase"] = "restarted"
    fake.save()
    rc, out = doctor(capsys, home, "--install-gate", "--yes")
    assert rc == 0, out and (dropins / GATE_DROPIN).is_file()
    assert "Backup:" in out
    rc, out = undo(capsys, home)
    assert rc == 0 and not (dropins / GATE_DROPIN).exists(), out


def test_a_dropin_that_cannot_be_written_keeps_the_file_repair_and_says_so(box, capsys):
    """As a user met it: the file repair is what stops the loop; a gate that cannot be installed is taken back alone,
    said ("Gate not installed"), and exits 1 — before, the whole repair was rolled back with it."""
    fake, home, dropins = box
    original = (home / ".env").read_bytes()
    dropins.parent.mkdir(parents=True, exist_ok=True)
    dropins.write_text("a file where the drop-in folder should be")  # mkdir fails
    rc, out = doctor(capsys, home, "--fix", "--yes", "--install-gate")
    assert rc == 1
    assert "Gate not installed: " in out and "The file changes were applied and kept" in out, out
    assert (home / ".env").read_bytes() != original and "WEIXIN_DM_POLICY=pairing" in (home / ".env").read_text()
    assert dropins.read_text() == "a file where the drop-in folder should be"
    assert "systemctl restart" in verbs(fake)  # the loop it stopped is started again on the repaired home


def test_a_reload_that_fails_takes_only_the_dropin_back_out(box, capsys):
    """No user bus (over SSH): systemd cannot be told about the drop-in.  The drop-in goes, the repair stays."""
    fake, home, dropins = box
    original = (home / ".env").read_bytes()
    fake.state["fail"] = {"daemon-reload": [1, "Access denied"]}
    fake.save()
    rc, out = doctor(capsys, home, "--fix", "--yes", "--install-gate")
    assert rc == 1
    assert "Gate not installed: systemd did not read the drop-in" in out and "taken back out" in out, out
    assert not (dropins / GATE_DROPIN).exists()
    assert (home / ".env").read_bytes() != original and "WEIXIN_DM_POLICY=pairing" in (home / ".env").read_text()
    capsys.readouterr()
    assert main(["check", "--home", str(home)]) in (0, 1)  # the home starts: the loop is over


def test_installing_the_fallback_then_undo_puts_nothing_of_ours_back(box, capsys):
    fake, home, dropins = box
    fake.state["version"] = "systemd 249 (249.11-0ubuntu3.12)\n+PAM +AUDIT\n"
    fake.save()
    rc, out = doctor(capsys, home, "--fix", "--yes", "--install-gate")
    assert rc == 0, out and sorted(p.name for p in dropins.iterdir()) == [FALLBACK_DROPIN]
    rc, out = undo(capsys, home)
    assert rc == 0 and list(dropins.iterdir()) == [], out


def test_an_interrupted_apply_takes_its_dropin_back_out(box, capsys):
    fake, home, dropins = box
    original = (home / ".env").read_text()
    rc, out = doctor(capsys, home, "--fix", "--yes", "--install-gate")
    assert rc == 0, out
    manifest_path = sorted((home / ".wizard-backups").iterdir())[-1] / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["state"] = "applying"  # as if killed after the drop-in, before the journal closed
    manifest_path.write_text(json.dumps(manifest))
    rc, out = doctor(capsys, home, "--fix", "--yes")  # any write path recovers first
    assert "was rolled back" in out and f"Removed {dropins / GATE_DROPIN}" in out
    assert not (dropins / GATE_DROPIN).exists()
    assert original != (home / ".env").read_text()  # then this run repaired again (without the gate)


def test_a_hostile_backup_set_cannot_steer_what_is_removed(box, capsys):
    """The home's owner writes the backup folder; root runs undo. Entries name units and variants only,
    the unit must run this home now, and only our own drop-in (our header, a regular file) is removed."""
    fake, home, dropins = box
    rc, out = doctor(capsys, home, "--fix", "--yes", "--install-gate")
    assert rc == 0, out
    mine = dropins / GATE_DROPIN
    mine.write_text("[Service]\nEnvironment=THE_ADMINS=own-file\n")  # same name, not written by us
    decoy = home.parent / "decoy.conf"
    decoy.write_text("keep me\n")
    manifest_path = sorted((home / ".wizard-backups").iterdir())[-1] / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["service"] += [{"unit": "../../decoy", "scope": "user", "before": [], "after": ["gate"]},
                            {"unit": UNIT, "scope": "system", "before": [], "after": ["gate"]},
                            {"unit": UNIT, "scope": "user", "before": ["/etc/passwd"], "after": []},
                            {"unit": UNIT, "scope": "user", "before": [], "after": [], "path": str(decoy)}]
    manifest_path.write_text(json.dumps(manifest))
    rc, out = undo(capsys, home)
    assert rc == 0, out
    assert mine.read_text() == "[Service]\nEnvironment=THE_ADMINS=own-file\n" and decoy.read_text() == "keep me\n"


def test_the_preview_judges_the_service_with_the_planned_gate_in_place(box, capsys):
    """As a user met it: with the gate planned, "After these changes" still said "systemd restarts it every 5 s,
    forever" (HW401, read from the unit as it is now).  The preview reads the unit with the planned drop-in
    in place, as `check` reads it once the doctor has written it."""
    fake, home, dropins = box
    for run in (["--dry-run", "--install-gate"], ["--fix", "--yes", "--install-gate"]):
        rc, out = doctor(capsys, home, *run)
        before_apply = out[out.index("After these changes: "):].split("\n$ ")[0].split("\nDone: ")[0]
        assert "HW401" not in before_apply and "forever" not in before_apply, out
    assert (dropins / GATE_DROPIN).exists()
    main(["check", "--home", str(home)])
    assert "HW401" not in capsys.readouterr().out


def test_check_service_names_one_command_for_the_loop_and_it_stops_it(box, capsys):
    """As a user met it: `check --service` on a looping home gave the operator different commands (HW301: doctor --fix
    --restart; HW401, HW404: doctor --fix --install-gate --restart).  Every loop finding now names the same one,
    and running exactly that command stops the loop: the gateway runs, the gate is in place."""
    import shlex

    fake, home, dropins = box
    main(["check", "--service", "--format", "json", "--home", str(home)])
    findings = json.loads(capsys.readouterr().out)["findings"]
    loop = {f["code"]: f["fix"] for f in findings if f["code"] in ("HW301", "HW401", "HW404")}
    assert set(loop) == {"HW301", "HW401", "HW404"}, findings
    assert len(set(loop.values())) == 1, loop
    command = shlex.split(next(iter(loop.values())))
    assert command[:2] == ["hermes-wizard", "doctor"], command
    rc, out = doctor(capsys, home, *command[2:], "--yes")
    assert rc == 0 and "Verified: the gateway is running" in out, out
    assert (dropins / GATE_DROPIN).exists()


def test_a_running_gateway_with_a_problem_left_is_not_verified(box, capsys):
    """One outcome sentence (ARCHITECTURE.md, "Contracts"): "Verified" only where check exits 0.  The unpaired WhatsApp
    kept (--dead-transport keep): the restart is watched and the gateway runs, but check still exits 1 (HW201), so the
    doctor says "Running", check's own verdict line, and pairing WhatsApp as the next step — never "Verified"."""
    fake, home, dropins = box
    rc, out = doctor(capsys, home, "--fix", "--yes", "--install-gate", "--dead-transport", "keep")
    assert rc == 1, out
    assert "Running: the gateway is running" in out and "Verified" not in out, out
    assert main(["check", "--home", str(home)]) == 1
    verdict = capsys.readouterr().out.splitlines()[-1]
    assert verdict in out.splitlines(), (verdict, out)
