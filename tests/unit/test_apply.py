"""`hermes_wizard.write.apply`, the only writer: every file is at all times wholly old or wholly new.

What is exercised, and how:

* every FileOps step of a one-file plan, a two-file plan and a chmod + write plan is
  failed in-process (ENOSPC, EROFS, EACCES, a plain RuntimeError): ApplyError only,
  all files old (rollback), modes kept, no temp files, the backup complete, and a
  second `plan_repairs` run converges;
* the process is killed (`os._exit(137)`, tests/support/apply_kill_driver.py) at every FileOps
  call of a two-file apply, backup and journal included: each file old or new as the
  step predicts; the next `doctor --fix --yes` or `undo` rolls an interrupted apply back
  (saying so), leaves both files old or both new and no incomplete folder, and a later
  doctor writes nothing more;
* real faults: a directory or an edit appearing between planning and applying, a
  lock held by another process, a full tmpfs, a read-only mount, a rename onto a
  directory;
Modes, owners, symlinks, backup sets, undo and the doctor's CLI: tests/unit/test_apply_files.py; the homes
and observations both use: tests/support/apply_homes.py.

"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from apply_homes import (
    ROOT,
    SCENARIOS,
    YAML_WEIXIN_OPEN,
    build,
    check_backup,
    converge,
    doctor_plan,
    expected_after,
    leftovers,
    mode_of,
    state,
    states,
    tree,
    wizard_cli,
)
from in_process import wizard_in_process

from hermes_wizard.core.atomic import LOCK_FILE, TMP_MARK, FileOps
from hermes_wizard.plan.changes import ENV, YAML
from hermes_wizard.write.apply import ApplyError, apply_plan
from hermes_wizard.write.backups import BACKUP_DIR, backup_sets
from hermes_wizard.write.undo import undo_latest

DRIVER = Path(__file__).resolve().parents[1] / "support" / "apply_kill_driver.py"
NOBODY = 65534
IS_ROOT = os.geteuid() == 0

# ------------------------------------------------------------------------------- recording / faulting


class RecordingOps(FileOps):
    """Counts and names every FileOps call: (step, file the call is about)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []
        self.counts: Counter = Counter()
        self.current = "?"

    def _note(self, step: str, path: Path | None = None) -> int:
        if path is not None:
            self.current = path.name.split(TMP_MARK)[0][1:] if TMP_MARK in path.name else path.name
        self.counts[step] += 1
        self.calls.append((step, self.current))
        return self.counts[step]

    def open_tmp(self, path):
        self._note("open_tmp", path)
        return super().open_tmp(path)

    def write(self, fd, data):
        self._note("write")
        super().write(fd, data)

    def fsync(self, fd):
        self._note("fsync")
        super().fsync(fd)

    def close(self, fd):
        self._note("close")
        super().close(fd)

    def set_owner_mode(self, fd, mode, uid, gid):
        self._note("set_owner_mode")
        super().set_owner_mode(fd, mode, uid, gid)

    def replace(self, src, dst):
        self._note("replace", dst)
        super().replace(src, dst)

    def fsync_dir(self, path):
        self._note("fsync_dir")
        super().fsync_dir(path)

    def chmod(self, path, mode):
        self._note("chmod", path)
        super().chmod(path, mode)


class FaultOps(RecordingOps):
    """Raises `make_exc()` at the `nth` call of `step` (a write is cut short first, a close
    really closes first — as the kernel does when it reports an error)."""

    def __init__(self, step: str, nth: int, make_exc) -> None:
        super().__init__()
        self.step, self.nth, self.make_exc, self.fired = step, nth, make_exc, False

    def _due(self, step: str, path=None) -> bool:
        due = self._note(step, path) == self.nth and step == self.step
        self.fired |= due
        return due

    def open_tmp(self, path):
        if self._due("open_tmp", path):
            raise self.make_exc()
        return FileOps.open_tmp(self, path)

    def write(self, fd, data):
        if self._due("write"):
            FileOps.write(self, fd, data[: len(data) // 2])
            raise self.make_exc()
        FileOps.write(self, fd, data)

    def fsync(self, fd):
        if self._due("fsync"):
            raise self.make_exc()
        FileOps.fsync(self, fd)

    def close(self, fd):
        due = self._due("close")
        FileOps.close(self, fd)
        if due:
            raise self.make_exc()

    def set_owner_mode(self, fd, mode, uid, gid):
        if self._due("set_owner_mode"):
            raise self.make_exc()
        FileOps.set_owner_mode(self, fd, mode, uid, gid)

    def replace(self, src, dst):
        if self._due("replace", dst):
            raise self.make_exc()
        FileOps.replace(self, src, dst)

    def fsync_dir(self, path):
        if self._due("fsync_dir"):
            raise self.make_exc()
        FileOps.fsync_dir(self, path)

    def chmod(self, path, mode):
        if self._due("chmod", path):
            raise self.make_exc()
        FileOps.chmod(self, path, mode)


FAULTS = {  # name -> (exception factory, words the ApplyError must use)
    "ENOSPC": (lambda: OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)), "the disk is full"),
    "EROFS": (lambda: OSError(errno.EROFS, os.strerror(errno.EROFS)), "read-only"),
    "EACCES": (lambda: PermissionError(errno.EACCES, os.strerror(errno.EACCES)), "permission denied"),
    "RuntimeError": (lambda: RuntimeError("injected fault in FileOps"), "injected fault in FileOps"),
}
REQUIRED_STEPS = {"open_tmp", "write", "fsync", "set_owner_mode", "replace", "fsync_dir", "chmod"}


def _record(scenario: str) -> list[tuple[str, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        home = build(Path(tmp) / "home", scenario)
        ops = RecordingOps()
        apply_plan(doctor_plan(home), ops=ops, base_env={})
        return ops.calls


CALLS = {scenario: _record(scenario) for scenario in SCENARIOS}


def _fault_cases():
    for scenario, calls in CALLS.items():
        seen: Counter = Counter()
        for step, name in calls:
            seen[step] += 1
            for fault in FAULTS:
                yield pytest.param(scenario, step, seen[step], fault,
                                   id=f"{scenario}-{step}#{seen[step]}({name})-{fault}")


def test_scenarios_plan_what_the_fault_matrix_assumes():
    shapes = {}
    for scenario in SCENARIOS:
        with tempfile.TemporaryDirectory() as tmp:
            plan = doctor_plan(build(Path(tmp) / "h", scenario))
            shapes[scenario] = sorted((c.file, c.action) for c in plan.changes)
    assert shapes["env-only"] == [(ENV, "set")]
    assert shapes["two-files"] == [(ENV, "set"), (YAML, "set")]
    assert shapes["mode-and-yaml"] == [(ENV, "mode"), (YAML, "set")]
    all_steps = {step for calls in CALLS.values() for step, _ in calls}
    assert REQUIRED_STEPS <= all_steps
    assert [name for step, name in CALLS["two-files"] if step == "replace"] == [ENV, YAML]


# ---------------------------------------------------------------------------- 1. in-process faults


@pytest.mark.parametrize("scenario,step,nth,fault", list(_fault_cases()))
def test_fault_at_every_step_leaves_old_files_and_converges(tmp_path, scenario, step, nth, fault):
    home = build(tmp_path / "home", scenario)
    plan = doctor_plan(home)
    before = states(home)
    expected = expected_after(plan, before)
    make_exc, words = FAULTS[fault]
    ops = FaultOps(step, nth, make_exc)

    with pytest.raises(ApplyError) as info:  # any other exception type fails the test
        apply_plan(plan, ops=ops, base_env={})
    assert ops.fired
    message = str(info.value)
    sets = backup_sets(home)
    assert len(sets) == 1
    assert words in message and str(sets[0]) in message, message

    for name, (data, mode, uid, gid) in before.items():
        now = state(home / name)
        assert now[0] in (data, expected[name][0]), f"{name} is neither wholly old nor wholly new"
        assert now == (data, mode, uid, gid), f"{name} was not put back"
    assert leftovers(home) == []
    check_backup(home, sets[0], {name: before[name] for name in plan.files()})
    converge(home, expected)


# -------------------------------------------------------------------------------------- 2. real kill


def _all_calls(scenario: str) -> list[tuple[str, str]]:
    """Every FileOps call of a whole apply — backup copies, manifest, the writes, the journal's
    closing — as (step, "home/<name>" or "backup/<name>"), the order the kill driver counts them."""
    from hermes_wizard.core.homefs import At

    calls: list[tuple[str, str]] = []
    current = ["?"]
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as patch:
        home = build(Path(tmp) / "home", scenario)
        for step in ("open_tmp", "write", "fsync", "close", "set_owner_mode", "replace", "fsync_dir", "chmod",
                     "unlink"):
            def method(self, *args, real=getattr(FileOps, step), step=step):
                for arg in args:
                    if isinstance(arg, At) and arg.name:
                        where = "backup" if BACKUP_DIR in arg.path.parts else "home"
                        name = arg.name.split(TMP_MARK)[0].lstrip(".") if TMP_MARK in arg.name else arg.name
                        current[0] = f"{where}/{name}"
                calls.append((step, current[0]))
                return real(self, *args)
            patch.setattr(FileOps, step, method)
        apply_plan(doctor_plan(home), base_env={})
    return calls


KILL_CALLS = _all_calls("two-files")
KILL_POINTS = [pytest.param(n, False, id=f"before-{n:02d}-{step}({name})")
               for n, (step, name) in enumerate(KILL_CALLS, 1)]
KILL_POINTS.append(pytest.param(len(KILL_CALLS), True, id=f"after-{len(KILL_CALLS):02d}-last"))


def _folders(home: Path) -> dict[str, str | None]:
    """Every folder under .wizard-backups -> its journal state (None: no manifest)."""
    root = home / BACKUP_DIR
    out = {}
    for folder in (root.iterdir() if root.is_dir() else ()):
        manifest = folder / "manifest.json"
        out[folder.name] = json.loads(manifest.read_text()).get("state") if manifest.is_file() else None
    return out


@pytest.mark.parametrize("n,after", KILL_POINTS)
def test_kill_at_every_step_then_the_next_run_finishes_or_rolls_back(tmp_path, n, after):
    """Item 13: a two-file apply killed anywhere; the next `doctor --fix` (even n) or `undo` (odd n)
    finds it, leaves .env and config.yaml both old or both new, and prunes incomplete folders. The killed run is
    a real process (SIGKILL); the runs after it are in-process, as the files are all they share."""
    home = build(tmp_path / "home", "two-files")
    plan = doctor_plan(home)
    before = states(home)
    expected = expected_after(plan, before)
    done = n if after else n - 1  # FileOps calls that completed before the process died
    replaced = {name.split("/")[1] for step, name in KILL_CALLS[:done] if step == "replace" and name[:5] == "home/"}

    killed = subprocess.run([sys.executable, str(DRIVER), str(home), str(n), *(["--after"] if after else [])],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert killed.returncode == 137, killed.stderr
    for name, (data, mode, uid, gid) in before.items():
        now = state(home / name)
        assert now[0] == (expected[name][0] if name in replaced else data), name
        assert now[1:] == (mode, uid, gid), name
    interrupted = [state for state in _folders(home).values() if state != "complete"]
    assert len(_folders(home)) <= 1

    if n % 2 == 0:
        fixed = wizard_in_process("doctor", "--fix", "--yes", "--home", str(home))
        assert fixed.returncode == 0, fixed.stdout + fixed.stderr
        assert ("rolled back" in fixed.stdout) == ("applying" in interrupted), fixed.stdout
        assert {name: (state(home / name)[0], mode_of(home / name)) for name in before} == expected
        sets = backup_sets(home)
        assert len(sets) == 1
        check_backup(home, sets[0], before)
    else:
        undone = wizard_in_process("undo", "--yes", "--home", str(home))
        assert ("rolled back" in undone.stdout) == ("applying" in interrupted), undone.stdout + undone.stderr
        assert undone.returncode == (1 if interrupted == [None] else 0), undone.stdout + undone.stderr
        assert states(home) == before  # both old: rolled back, or the completed apply undone
    assert set(_folders(home).values()) <= {"complete"}, _folders(home)  # nothing incomplete is left
    assert leftovers(home) == []

    snapshot = tree(home)
    again = wizard_in_process("doctor", "--home", str(home))
    assert "rolled back" not in again.stdout
    assert tree(home) == snapshot


# ------------------------------------------------------------------------------------- 3. real faults


def test_env_replaced_by_directory_between_plan_and_apply(tmp_path):
    home = build(tmp_path / "home")
    plan = doctor_plan(home)
    (home / ENV).rename(tmp_path / "env.moved")
    (home / ENV).mkdir()
    (home / ENV / "inside").write_text("not ours\n")
    snapshot = tree(home, but_lock=True)
    with pytest.raises(ApplyError, match="changed since it was read") as info:
        apply_plan(plan, base_env={})
    assert ".env" in str(info.value)
    assert tree(home, but_lock=True) == snapshot
    assert not (home / BACKUP_DIR).exists()


@pytest.mark.parametrize("edited", [YAML, ENV])
def test_file_edited_between_plan_and_apply_is_refused(tmp_path, edited):
    home = build(tmp_path / "home")
    plan = doctor_plan(home)
    with open(home / edited, "a") as fh:
        fh.write("# edited by hand while the wizard was open\n")
    snapshot = tree(home, but_lock=True)
    with pytest.raises(ApplyError, match=f"{edited} changed since it was read"):
        apply_plan(plan, base_env={})
    assert tree(home, but_lock=True) == snapshot
    assert backup_sets(home) == []


HOLD_LOCK = ("import fcntl, os, sys\n"
             "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)\n"
             "fcntl.flock(fd, fcntl.LOCK_EX)\n"
             "print('locked', flush=True)\n"
             "sys.stdin.read()\n")


def test_lock_held_by_another_process(tmp_path):
    home = build(tmp_path / "home")
    plan = doctor_plan(home)
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(home / LOCK_FILE)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        snapshot = tree(home)
        with pytest.raises(ApplyError, match="another hermes-wizard"):
            apply_plan(plan, base_env={})
        cli = wizard_cli("doctor", "--fix", "--yes", "--home", str(home))
        assert cli.returncode == 1 and "another hermes-wizard" in cli.stderr, cli.stderr
        assert tree(home) == snapshot
    finally:
        holder.stdin.close()
        holder.wait(timeout=10)
    apply_plan(plan, base_env={})  # released: the same plan now applies
    assert not doctor_plan(home)


def test_lock_held_by_another_fd_in_this_process(tmp_path):
    import fcntl

    home = build(tmp_path / "home")
    plan = doctor_plan(home)
    fd = os.open(home / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        snapshot = tree(home)
        with pytest.raises(ApplyError, match="another hermes-wizard"):
            apply_plan(plan, base_env={})
        assert tree(home) == snapshot
    finally:
        os.close(fd)


def test_rename_onto_a_directory_that_appeared_mid_apply(tmp_path):
    """config.yaml becomes a directory after .env was written: the last look before the rename sees it."""
    home = build(tmp_path / "home")
    plan = doctor_plan(home)
    before = states(home)

    class SwapConfigForDirectory(FileOps):
        def open_tmp(self, path):
            if path.name.startswith(f".{YAML}"):
                (home / YAML).rename(tmp_path / "config.moved")
                (home / YAML).mkdir()
            return super().open_tmp(path)

    with pytest.raises(ApplyError, match="config.yaml changed since it was read") as info:
        apply_plan(plan, ops=SwapConfigForDirectory(), base_env={})
    assert str(backup_sets(home)[0]) in str(info.value)
    assert state(home / ENV) == before[ENV]  # rolled back
    assert (home / YAML).is_dir() and not any((home / YAML).iterdir())
    assert (tmp_path / "config.moved").read_bytes() == before[YAML][0]
    assert leftovers(home) == []



def test_rollback_that_fails_too_is_still_an_apply_error(tmp_path, monkeypatch):
    home = build(tmp_path / "home")
    plan = doctor_plan(home)
    disk_full = []
    real_write = FileOps.write

    def write(self, fd, data):  # every writer, rollback's own FileOps() included
        if disk_full:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_write(self, fd, data)

    class FillDiskAtSecondReplace(FileOps):
        def replace(self, src, dst):
            if dst.name == YAML:
                disk_full.append(True)
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            super().replace(src, dst)

    monkeypatch.setattr(FileOps, "write", write)
    with pytest.raises(ApplyError) as info:
        apply_plan(plan, ops=FillDiskAtSecondReplace(), base_env={})
    (folder,) = (home / BACKUP_DIR).iterdir()
    assert str(folder) in str(info.value) and "hermes-wizard undo" in str(info.value)
    assert json.loads((folder / "manifest.json").read_text())["state"] == "applying"  # the journal stays open
    disk_full.clear()
    undone = undo_latest(home, base_env={})  # as the message says: the next run rolls the apply back
    assert "rolled back" in undone.recovered
    assert (home / ENV).read_text() == SCENARIOS["two-files"][0] and not (home / BACKUP_DIR / folder.name).exists()


# -- real file systems: a tiny tmpfs (full, read-only); needs mount(8) and the right to use it


@pytest.fixture
def tmpfs(tmp_path):
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    if not shutil.which("mount"):
        pytest.skip("no mount(8)")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k,mode=0755", "tmpfs", str(mnt)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mnt
    finally:
        if subprocess.run(["umount", str(mnt)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def _fill(mnt: Path, free_pages: int) -> Path:
    filler = mnt / "filler"
    vfs = os.statvfs(mnt)
    with open(filler, "wb") as fh:
        fh.write(b"\0" * (vfs.f_bavail * vfs.f_frsize - free_pages * 4096))
    vfs = os.statvfs(mnt)
    assert vfs.f_bavail * vfs.f_frsize == free_pages * 4096
    return filler


def _big_config_home(mnt: Path) -> Path:
    """two-files, with config.yaml padded to 4094 bytes so its new version (4097) needs a second page."""
    home = build(mnt / "home")
    pad = 4094 - len(YAML_WEIXIN_OPEN) - 3
    (home / YAML).write_text("# " + "x" * pad + "\n" + YAML_WEIXIN_OPEN)
    return home


def test_real_disk_full_while_writing_the_second_file(tmpfs):
    home = _big_config_home(tmpfs)
    plan = doctor_plan(home)
    before = states(home)
    expected = expected_after(plan, before)
    assert len(expected[YAML][0]) > 4096
    # 4 pages: backup takes 3 (.env, config.yaml, manifest); .env's temp file takes the 4th and its rename
    # frees the old .env's page; config.yaml's two-page temp file then runs out of space.
    filler = _fill(tmpfs, 4)
    with pytest.raises(ApplyError, match="the disk is full") as info:
        apply_plan(plan, base_env={})
    sets = backup_sets(home)
    assert len(sets) == 1 and str(sets[0]) in str(info.value)
    assert states(home) == before
    assert leftovers(home) == []
    check_backup(home, sets[0], before)
    filler.unlink()
    converge(home, expected)



def test_real_disk_full_while_backing_up(tmpfs):
    home = _big_config_home(tmpfs)
    plan = doctor_plan(home)
    before = states(home)
    _fill(tmpfs, 1)
    with pytest.raises(ApplyError, match="the disk is full"):
        apply_plan(plan, base_env={})
    assert states(home) == before


def test_real_read_only_file_system(tmpfs):
    home = build(tmpfs / "home")
    plan = doctor_plan(home)
    snapshot = tree(home)
    subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    with pytest.raises(ApplyError, match="nothing was written") as info:
        apply_plan(plan, base_env={})
    assert "Read-only file system" in str(info.value)
    assert tree(home) == snapshot
