"""`hermes_wizard.write.apply`, the only writer (tests/unit/test_apply.py has its faults and kills): modes,
owners and symlinks; backup sets, pruning and undo; `doctor --dry-run` and `doctor --fix` without a
terminal writing nothing."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import time
import types
from pathlib import Path

import pytest
from apply_homes import build, check_backup, doctor_plan, leftovers, mode_of, set_plan, state, states, tree, wizard_cli

from hermes_wizard.plan.changes import ENV, YAML, Change, Plan
from hermes_wizard.write import backups as backups_mod
from hermes_wizard.write.apply import ApplyError, apply_plan
from hermes_wizard.write.backups import BACKUP_DIR, backup_sets
from hermes_wizard.write.undo import undo_latest

IS_ROOT = os.geteuid() == 0
NOBODY = 65534


# ------------------------------------------------------------------------------- 4. modes and owners




POLICY_EDIT = Change(ENV, "WEIXIN_DM_POLICY", "open", "pairing", platform="weixin")


def test_0640_env_keeps_its_mode_after_a_content_edit(tmp_path):
    home = build(tmp_path / "home", "env-only")
    os.chmod(home / ENV, 0o640)
    apply_plan(set_plan(home, POLICY_EDIT), base_env={})
    assert b"WEIXIN_DM_POLICY=pairing\n" in (home / ENV).read_bytes()
    assert mode_of(home / ENV) == 0o640


def test_0640_env_gets_the_planned_mode_with_a_content_edit(tmp_path):
    home = build(tmp_path / "home", "env-only")
    os.chmod(home / ENV, 0o640)
    apply_plan(set_plan(home, POLICY_EDIT, Change(ENV, "<mode>", "0640", "0600", "mode")), base_env={})
    assert b"WEIXIN_DM_POLICY=pairing\n" in (home / ENV).read_bytes()
    assert mode_of(home / ENV) == 0o600


def test_mode_only_plan_changes_only_the_mode(tmp_path):
    home = build(tmp_path / "home", "env-only")
    os.chmod(home / ENV, 0o644)
    env_before, yaml_before = os.stat(home / ENV), (state(home / YAML), os.stat(home / YAML).st_mtime_ns)
    data = (home / ENV).read_bytes()
    result = apply_plan(set_plan(home, Change(ENV, "<mode>", "0644", "0600", "mode")), base_env={})
    after = os.stat(home / ENV)
    assert stat.S_IMODE(after.st_mode) == 0o600
    assert (home / ENV).read_bytes() == data
    assert (after.st_ino, after.st_mtime_ns, after.st_uid, after.st_gid) == (
        env_before.st_ino, env_before.st_mtime_ns, env_before.st_uid, env_before.st_gid)
    assert (state(home / YAML), os.stat(home / YAML).st_mtime_ns) == yaml_before
    assert result.written == (ENV,)
    assert json.loads((result.backup / "manifest.json").read_text())["files"][ENV]["mode"] == 0o644


@pytest.mark.skipif(not IS_ROOT, reason="chown to another user needs root")
def test_chowned_env_keeps_its_owner_after_an_edit(tmp_path):
    home = build(tmp_path / "home", "env-only")
    os.chown(home / ENV, NOBODY, NOBODY)
    apply_plan(set_plan(home, POLICY_EDIT), base_env={})
    st = os.stat(home / ENV)
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (NOBODY, NOBODY, 0o600)
    assert b"WEIXIN_DM_POLICY=pairing\n" in (home / ENV).read_bytes()


def _symlinked_home(tmp_path: Path) -> tuple[Path, Path]:
    home = build(tmp_path / "home", "env-only")
    real = tmp_path / "secrets" / "hermes.env"
    real.parent.mkdir()
    (home / ENV).rename(real)
    os.symlink(real, home / ENV)
    return home, real


def test_symlinked_env_with_same_owner_is_written_through(tmp_path):
    home, real = _symlinked_home(tmp_path)
    os.chmod(real, 0o640)
    old = real.read_bytes()
    result = apply_plan(set_plan(home, POLICY_EDIT), base_env={})
    assert (home / ENV).is_symlink() and os.readlink(home / ENV) == str(real)
    assert real.read_bytes() == old.replace(b"WEIXIN_DM_POLICY=open", b"WEIXIN_DM_POLICY=pairing")
    assert mode_of(real) == 0o640
    assert (result.backup / ENV).read_bytes() == old
    assert leftovers(home, real.parent) == []


@pytest.mark.skipif(not IS_ROOT, reason="chown to another user needs root")
def test_symlink_to_a_file_of_another_owner_is_refused(tmp_path):
    home, real = _symlinked_home(tmp_path)
    os.chown(real, NOBODY, NOBODY)
    plan = set_plan(home, POLICY_EDIT)
    snapshot, target = tree(home, but_lock=True), tree(real.parent)
    with pytest.raises(ApplyError, match="owned by another user"):
        apply_plan(plan, base_env={})
    assert tree(real.parent) == target
    assert tree(home, but_lock=True) == snapshot
    assert backup_sets(home) == []


# ---------------------------------------------------------------------------------------- 5. backups


class FakeClock:
    """Stands in for the `time` module inside hermes_wizard.write.backups (make_backup names sets by the second)."""

    def __init__(self, start: float = 1_790_000_000.0) -> None:
        self.now = start

    def strftime(self, fmt: str) -> str:
        return time.strftime(fmt, time.localtime(self.now))


def _round_plan(home: Path, i: int) -> Plan:
    """Alternating plans: the policy flips pairing/allowlist, and a round marker records which apply it was."""
    policy = ("pairing", "allowlist")[i % 2]
    return set_plan(home, Change(ENV, "WEIXIN_DM_POLICY", None, policy), Change(ENV, "HW_TEST_ROUND", None, str(i)))


def _round_in(data: bytes) -> int | None:
    for line in data.decode().splitlines():
        if line.startswith("HW_TEST_ROUND="):
            return int(line.split("=", 1)[1])
    return None


def _apply_rounds(home: Path, rounds: int, clock: FakeClock, step: float) -> None:
    for i in range(rounds):
        apply_plan(_round_plan(home, i), base_env={})
        clock.now += step


def test_backup_set_layout(tmp_path):
    home = build(tmp_path / "home", "mode-and-yaml")
    os.chmod(home / YAML, 0o664)
    before = states(home)
    result = apply_plan(doctor_plan(home), base_env={})
    check_backup(home, result.backup, before)
    assert backup_sets(home) == [result.backup]


def test_only_the_last_20_backup_sets_are_kept(tmp_path, monkeypatch):
    home = build(tmp_path / "home", "env-only")
    clock = FakeClock()
    monkeypatch.setattr(backups_mod, "time", types.SimpleNamespace(strftime=clock.strftime))
    _apply_rounds(home, 25, clock, step=1.0)
    sets = backup_sets(home)
    assert len(sets) == 20 and len(list((home / BACKUP_DIR).iterdir())) == 20
    # the set made by apply i holds the .env from before it: round i-1; applies 5..24 survive
    assert [_round_in((s / ENV).read_bytes()) for s in sets] == list(range(4, 24))



def test_25_backup_sets_made_in_one_second_keep_the_newest_20(tmp_path, monkeypatch):
    home = build(tmp_path / "home", "env-only")
    clock = FakeClock()
    monkeypatch.setattr(backups_mod, "time", types.SimpleNamespace(strftime=clock.strftime))
    _apply_rounds(home, 25, clock, step=0.0)
    sets = backup_sets(home)
    assert len(sets) == 20
    assert [_round_in((s / ENV).read_bytes()) for s in sets] == list(range(4, 24))


def test_undo_after_11_applies_in_one_second_restores_the_latest(tmp_path, monkeypatch):
    home = build(tmp_path / "home", "env-only")
    clock = FakeClock()
    monkeypatch.setattr(backups_mod, "time", types.SimpleNamespace(strftime=clock.strftime))
    _apply_rounds(home, 11, clock, step=0.0)
    assert _round_in((home / ENV).read_bytes()) == 10
    undo_latest(home, base_env={})
    assert _round_in((home / ENV).read_bytes()) == 9


def test_undo_restores_bytes_and_mode_and_can_itself_be_undone(tmp_path):
    home = build(tmp_path / "home", "two-files")
    os.chmod(home / ENV, 0o640)
    before = states(home)
    plan = doctor_plan(home)
    assert (ENV, "mode") in {(c.file, c.action) for c in plan.changes}
    applied = apply_plan(plan, base_env={})
    after = states(home)
    assert after[ENV][1] == 0o600 and after != before

    first = undo_latest(home, base_env={})
    assert first.restored_from == applied.backup
    assert sorted(first.files) == [ENV, YAML]
    data, _, uid, gid = before[ENV]
    # bytes and owner; the mode only where it is no looser: a restore never loosens a secrets file (0640)
    assert states(home) == before | {ENV: (data, 0o600, uid, gid)}
    assert not first.report.would_start
    check_backup(home, first.backup, after)  # what the undo replaced was backed up first

    second = undo_latest(home, base_env={})
    assert second.restored_from == first.backup
    assert states(home) == after
    assert second.report.would_start
    assert leftovers(home) == []


# ------------------------------------------------------------------------------------ 6. doctor CLI


def test_doctor_dry_run_writes_nothing_and_exits_1_then_0(tmp_path):
    home = build(tmp_path / "home", "two-files")
    snapshot = tree(home)
    pending = wizard_cli("doctor", "--dry-run", "--home", str(home))
    assert pending.returncode == 1, pending.stdout + pending.stderr
    assert "+WHATSAPP_ENABLED=false" in pending.stdout and "dm_policy: pairing" in pending.stdout
    assert tree(home) == snapshot

    apply_plan(doctor_plan(home), base_env={})
    snapshot = tree(home)
    clean = wizard_cli("doctor", "--dry-run", "--home", str(home))
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Nothing to fix" in clean.stdout
    assert tree(home) == snapshot


@pytest.mark.parametrize("args,code", [(("--fix",), 2), ((), 1)], ids=["fix-without-tty", "no-fix"])
def test_doctor_without_consent_writes_nothing(tmp_path, args, code):
    home = build(tmp_path / "home", "two-files")
    snapshot = tree(home)
    done = wizard_cli("doctor", *args, "--home", str(home), stdin=subprocess.DEVNULL)
    assert done.returncode == code, done.stdout + done.stderr
    if "--fix" in args:
        assert "--yes" in done.stderr and "No changes were made" in done.stdout
    assert tree(home) == snapshot
