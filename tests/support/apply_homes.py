"""Homes and observations for the writer's tests (tests/unit/test_apply.py and test_apply_files.py, the root
tests in tests/system/): three small homes, each planning a different shape of repair (`SCENARIOS`, `build`),
the doctor's plan for a home, what a file or a tree looks like (bytes, mode, owner, mtime), and the CLI run
as a user runs it."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from hermes_wizard.core.atomic import LOCK_FILE, TMP_MARK
from hermes_wizard.judge.engine import evaluate
from hermes_wizard.plan.changes import ENV, YAML, Change, Plan, fingerprint, planned_contents
from hermes_wizard.plan.repairs import plan_repairs
from hermes_wizard.write.apply import apply_plan
from hermes_wizard.write.backups import BACKUP_DIR

ROOT = Path(__file__).resolve().parents[2]

TELEGRAM = ("TELEGRAM_BOT_TOKEN=7123456789:AAHdemoTokenNotRealNotReal_0123456789\n"
            "TELEGRAM_ALLOWED_USERS=123456789\n")
WEIXIN = "WEIXIN_ACCOUNT_ID=b0f5c1d2e3a4@im.bot\nWEIXIN_TOKEN=demo-ilink-token-0000000000000000\n"
YAML_TELEGRAM = "# Hermes config\nplatforms:\n  telegram:\n    enabled: true\n"
YAML_WEIXIN_OPEN = YAML_TELEGRAM + "  weixin:\n    extra:\n      dm_policy: open\n"

# name -> (.env text, .env mode, config.yaml text); each plans a different shape of repair
SCENARIOS = {
    # .env content only: WEIXIN_DM_POLICY open -> pairing
    "env-only": ("# hermes\n" + TELEGRAM + WEIXIN + "WEIXIN_DM_POLICY=open\n", 0o600, YAML_TELEGRAM),
    # .env content (WhatsApp has no creds.json: disabled) and config.yaml content (weixin dm open -> pairing)
    "two-files": (TELEGRAM + WEIXIN + "WHATSAPP_ENABLED=true\nWHATSAPP_MODE=bot\nWHATSAPP_DM_POLICY=open\n", 0o600,
                  YAML_WEIXIN_OPEN),
    # .env mode only (0644 -> 0600, through FileOps.chmod) and config.yaml content
    "mode-and-yaml": (TELEGRAM + WEIXIN, 0o644, YAML_WEIXIN_OPEN),
}


def build(home: Path, scenario: str = "two-files") -> Path:
    env, env_mode, yaml_text = SCENARIOS[scenario]
    home.mkdir(parents=True, exist_ok=True)
    (home / ENV).write_text(env)
    os.chmod(home / ENV, env_mode)
    (home / YAML).write_text(yaml_text)
    os.chmod(home / YAML, 0o644)
    return home


def doctor_plan(home: Path) -> Plan:
    return plan_repairs(evaluate(home, base_env={})).plan


def state(path: Path):
    """(bytes, mode, uid, gid) of a file, following symlinks."""
    st = os.stat(path)
    return path.read_bytes(), stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid


def states(home: Path, names=(ENV, YAML)) -> dict:
    return {name: state(home / name) for name in names}


def mode_of(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def leftovers(*dirs: Path) -> list[Path]:
    return [p for d in dirs for p in Path(d).rglob(f".*{TMP_MARK}*")]


def tree(root: Path, but_lock: bool = False) -> dict:
    """Everything observable about a tree: type+mode, owner, size, mtime, bytes / link target.

    `but_lock`: leave out the lock file (and so the home's own mtime), the one thing an apply
    creates before it refuses."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in ["", *dirnames, *filenames]:
            path = Path(dirpath) / name if name else Path(dirpath)
            rel = str(path.relative_to(root))
            if but_lock and rel == LOCK_FILE:
                continue
            st = os.lstat(path)
            body = (path.read_bytes() if stat.S_ISREG(st.st_mode)
                    else os.readlink(path) if stat.S_ISLNK(st.st_mode) else None)
            mtime = None if but_lock and rel == "." else st.st_mtime_ns
            out[rel] = (st.st_mode, st.st_uid, st.st_gid, st.st_size, mtime, body)
    return out


def expected_after(plan: Plan, before: dict) -> dict:
    """name -> (bytes, mode) once `plan` is applied."""
    new = planned_contents(plan)
    modes = {c.file: int(c.after, 8) for c in plan.changes if c.action == "mode"}
    return {name: (new.get(name, data), modes.get(name, mode)) for name, (data, mode, _, _) in before.items()}


def check_backup(home: Path, folder: Path, originals: dict) -> None:
    """The set holds exactly the original bytes (0600) and their modes/owners, in a 0700 folder."""
    assert mode_of(home / BACKUP_DIR) == 0o700
    assert mode_of(folder) == 0o700
    assert mode_of(folder / "manifest.json") == 0o600
    manifest = json.loads((folder / "manifest.json").read_text())
    assert set(manifest["files"]) == set(originals)
    for name, (data, mode, uid, gid) in originals.items():
        entry = manifest["files"][name]
        assert entry == {"existed": True, "mode": mode, "uid": uid, "gid": gid}, name
        assert (folder / name).read_bytes() == data, name
        assert mode_of(folder / name) == 0o600, name


def converge(home: Path, expected: dict) -> None:
    """A fresh doctor plan applies cleanly, lands on `expected`, and a third plan is empty."""
    plan = doctor_plan(home)
    if plan:
        result = apply_plan(plan, base_env={})
        assert result.report.would_start
    for name, (data, mode) in expected.items():
        assert (home / name).read_bytes() == data, name
        assert mode_of(home / name) == mode, name
    assert not doctor_plan(home), doctor_plan(home).changes
    assert leftovers(home) == []


def wizard_cli(*args: str, **kwargs) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "HERMES_HOME"}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "hermes_wizard", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60, **kwargs)


def set_plan(home: Path, *changes: Change) -> Plan:
    """A plan of exactly *changes*, fingerprinted against the home's two files as they are now."""
    return Plan(home, {ENV: fingerprint(home / ENV), YAML: fingerprint(home / YAML)}, changes)

