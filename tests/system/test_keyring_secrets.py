"""Secrets in the OS keyring: check knows them, `secrets migrate` moves them through the Plan, undo reverses it.

In-process tests use an in-memory backend installed with `keyring.set_keyring` (priority -1: it never takes part
in auto-detection elsewhere, libraries.md §5.3) and PYTHON_KEYRING_BACKEND set, which is how a user chooses a
backend explicitly.  The real Secret Service test runs gnome-keyring under a private D-Bus session (§5.4).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError

from hermes_wizard.core import keyring_store
from hermes_wizard.faces.cli import main
from hermes_wizard.judge.engine import evaluate

TOKEN = "123456789:AAHsecretKEYRINGtokenVALUE_abcdefghij"
REPO = Path(__file__).resolve().parents[2]


class InMemoryKeyring(KeyringBackend):
    priority = -1  # <= 0: never chosen by auto-detection in this process (libraries.md §5.3)

    def __init__(self):
        super().__init__()
        self.store = {}

    def get_password(self, service, username):
        return self.store.get((service, username))

    def set_password(self, service, username, password):
        self.store[(service, username)] = password

    def delete_password(self, service, username):
        try:
            del self.store[(service, username)]
        except KeyError:
            raise PasswordDeleteError("not found") from None


class LockedKeyring(KeyringBackend):
    priority = -1

    def get_password(self, service, username):
        raise keyring.errors.KeyringLocked("Failed to unlock the collection!")

    def set_password(self, service, username, password):
        raise keyring.errors.KeyringLocked("Failed to unlock the collection!")

    def delete_password(self, service, username):
        raise keyring.errors.KeyringLocked("Failed to unlock the collection!")


@pytest.fixture
def mem_keyring(monkeypatch):
    previous = keyring.get_keyring()
    backend = InMemoryKeyring()
    keyring.set_keyring(backend)
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "test.InMemoryKeyring")  # chosen explicitly, as a user would
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no `hermes` on PATH: Hermes's Python is unknown
    path = tmp_path / "hermes"
    path.mkdir()
    (path / ".env").write_text(f"# bot\nTELEGRAM_BOT_TOKEN={TOKEN}\nTELEGRAM_ALLOWED_USERS=111111\n")
    (path / ".env").chmod(0o600)
    (path / "config.yaml").write_text("# mine\nmodel: x  # keep\n")
    return path


def _telegram(report):
    return next(row for row in report.rows if row.name == "telegram")


def test_migrate_to_keyring_and_back_keeps_the_gateway_whole(home, mem_keyring, capsys):
    before = {name: (home / name).read_bytes() for name in (".env", "config.yaml")}
    assert main(["secrets", "migrate", "--to", "keyring", "--home", str(home), "--yes"]) == 0
    out = capsys.readouterr().out
    assert TOKEN not in out and TOKEN not in (home / ".env").read_text()
    assert "TELEGRAM_BOT_TOKEN" not in (home / ".env").read_text()
    config = (home / "config.yaml").read_text()
    assert config.startswith("# mine\nmodel: x  # keep\n") and "wizard_keyring" in config
    assert mem_keyring.store == {keyring_store.entry_for(home, "TELEGRAM_BOT_TOKEN"): TOKEN}
    report = evaluate(home)
    assert _telegram(report).enabled and report.would_start and not report.errors()
    assert not [f for f in report.findings if f.code.startswith("HW5")]
    assert oct((home / ".env").stat().st_mode & 0o777) == "0o600"

    assert main(["secrets", "migrate", "--to", "env", "--home", str(home), "--yes"]) == 0
    assert TOKEN not in capsys.readouterr().out
    assert f"TELEGRAM_BOT_TOKEN={TOKEN}" in (home / ".env").read_text()
    assert mem_keyring.store == {}
    assert _telegram(evaluate(home)).enabled

    # undo of the move back stores the secret again; undo of that undo deletes it again
    assert main(["undo", "--home", str(home), "--yes"]) == 0
    assert mem_keyring.store == {keyring_store.entry_for(home, "TELEGRAM_BOT_TOKEN"): TOKEN}
    assert "TELEGRAM_BOT_TOKEN" not in (home / ".env").read_text()
    assert _telegram(evaluate(home)).enabled
    assert main(["undo", "--home", str(home), "--yes"]) == 0
    assert mem_keyring.store == {} and f"TELEGRAM_BOT_TOKEN={TOKEN}" in (home / ".env").read_text()
    assert TOKEN not in capsys.readouterr().out
    assert (home / "config.yaml").read_bytes().startswith(before["config.yaml"])  # the user's lines kept


def test_undo_of_a_move_to_the_keyring_puts_the_secret_back_in_env(home, mem_keyring):
    original = (home / ".env").read_bytes()
    assert main(["secrets", "migrate", "--to", "keyring", "--home", str(home), "--yes"]) == 0
    assert main(["undo", "--home", str(home), "--yes"]) == 0
    assert (home / ".env").read_bytes() == original and mem_keyring.store == {}


def test_a_missing_entry_is_reported_with_its_fix(home, mem_keyring, capsys):
    assert main(["secrets", "migrate", "--to", "keyring", "--home", str(home), "--yes"]) == 0
    mem_keyring.store.clear()
    capsys.readouterr()
    assert main(["check", "--home", str(home)]) == 1
    out = capsys.readouterr().out
    assert "HW501" in out and "put TELEGRAM_BOT_TOKEN back in .env" in out
    assert not any(r.name == "telegram" and r.enabled for r in evaluate(home).rows)  # no token: no Telegram


def test_a_locked_keyring_is_said_and_never_blocks_the_gate(home, mem_keyring, monkeypatch, capsys):
    assert main(["secrets", "migrate", "--to", "keyring", "--home", str(home), "--yes"]) == 0
    keyring.set_keyring(LockedKeyring())
    capsys.readouterr()
    code = main(["check", "--home", str(home)])
    out = capsys.readouterr().out
    assert code == 0 and "HW503" in out and "locked" in out
    assert _telegram(evaluate(home)).enabled  # judged as present, and said so
    gate = subprocess.run([sys.executable, "-m", "hermes_wizard", "check", "--gate", "--home", str(home)],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"})
    assert gate.returncode == 0, gate.stdout + gate.stderr


def test_no_usable_keyring_is_one_line_and_nothing_changes(home, monkeypatch, capsys):
    before = {name: (home / name).read_bytes() for name in (".env", "config.yaml")}
    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())
    monkeypatch.delenv("PYTHON_KEYRING_BACKEND", raising=False)
    try:
        assert main(["secrets", "migrate", "--to", "keyring", "--home", str(home), "--yes"]) == 1
    finally:
        keyring.set_keyring(previous)
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and "0600" in out[0]
    assert out[0].startswith("The secrets stay in .env (keep it mode 0600): no OS keyring is available")
    assert {name: (home / name).read_bytes() for name in (".env", "config.yaml")} == before


def test_a_keyring_that_does_not_read_back_writes_nothing(home, mem_keyring, monkeypatch):
    before = {name: (home / name).read_bytes() for name in (".env", "config.yaml")}
    monkeypatch.setattr(InMemoryKeyring, "set_password", lambda self, s, u, p: self.store.__setitem__((s, u), p[:-1]))
    assert main(["secrets", "migrate", "--to", "keyring", "--home", str(home), "--yes"]) == 1
    assert {name: (home / name).read_bytes() for name in (".env", "config.yaml")} == before
    assert mem_keyring.store == {}  # what was stored is taken back


@pytest.mark.oracle
def test_hermes_without_the_plugin_refuses_the_move(home, mem_keyring, capsys):
    oracle = os.environ.get("HERMES_ORACLE_VENV")
    if not oracle:
        pytest.skip("HERMES_ORACLE_VENV not set (scripts/test.sh makes it)")
    before = (home / ".env").read_bytes()
    code = main(["secrets", "migrate", "--to", "keyring", "--home", str(home), "--yes",
                 "--hermes-python", f"{oracle}/bin/python"])
    out = capsys.readouterr().out
    assert code == 1 and "Refused" in out and "pip install hermes-wizard" in out
    assert (home / ".env").read_bytes() == before and mem_keyring.store == {}


def test_a_hostile_journal_cannot_touch_other_entries(home, mem_keyring):
    import json

    assert main(["secrets", "migrate", "--to", "keyring", "--home", str(home), "--yes"]) == 0
    mem_keyring.store[("login", "root")] = "other"
    mem_keyring.store[("hermes-wizard", "/somewhere/else:TELEGRAM_BOT_TOKEN")] = "other home"
    manifest = next((home / ".wizard-backups").glob("*/manifest.json"))
    data = json.loads(manifest.read_text())
    data["keyring"] += [{"action": "store", "variable": "../../root", "service": "login", "username": "root"},
                        {"action": "store", "variable": "X", "username": "/somewhere/else:TELEGRAM_BOT_TOKEN"}]
    manifest.write_text(json.dumps(data))
    main(["undo", "--home", str(home), "--yes"])
    assert mem_keyring.store[("login", "root")] == "other"
    assert mem_keyring.store[("hermes-wizard", "/somewhere/else:TELEGRAM_BOT_TOKEN")] == "other home"


# A private Secret Service (libraries.md §5.4): $1 a scratch folder, $2 this Python, $3 the home.
_SECRET_SERVICE_SESSION = """
set -e
export XDG_DATA_HOME="$1/data" XDG_RUNTIME_DIR="$1/run" HOME="$1/userhome"
mkdir -p "$XDG_DATA_HOME" "$HOME" && mkdir -m 0700 -p "$XDG_RUNTIME_DIR"
eval "$(printf test-password | gnome-keyring-daemon --unlock --components=secrets)"
eval "$(gnome-keyring-daemon --start --components=secrets)"
unset PYTHON_KEYRING_BACKEND
"""
_SECRET_SERVICE = _SECRET_SERVICE_SESSION + """
"$2" -m hermes_wizard secrets migrate --to keyring --home "$3" --yes
"$2" -m hermes_wizard check --home "$3" --format json > "$1/check.json"
"$2" -c 'import keyring; print(type(keyring.get_keyring()).__name__)'
"$2" -m hermes_wizard undo --home "$3" --yes
"""


@pytest.mark.slow
@pytest.mark.keyring
def test_a_real_secret_service_keyring_round_trip(home, tmp_path):
    if not (shutil.which("gnome-keyring-daemon") and shutil.which("dbus-run-session")):
        pytest.skip("gnome-keyring / dbus-run-session not installed (.ci/run installs them)")
    import json

    original = (home / ".env").read_bytes()
    run = subprocess.run(["dbus-run-session", "--", "bash", "-c", _SECRET_SERVICE, "-", str(tmp_path),
                          sys.executable, str(home)], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Keyring" in run.stdout and TOKEN not in run.stdout + run.stderr
    report = json.loads((tmp_path / "check.json").read_text())
    telegram = next(p for p in report["platforms"] if p["name"] == "telegram")
    assert telegram["enabled"] and not [f for f in report["findings"] if f["code"].startswith("HW5")]
    assert TOKEN not in (tmp_path / "check.json").read_text()
    assert (home / ".env").read_bytes() == original  # undo put it back
    assert list((tmp_path / "data" / "keyrings").glob("*.keyring"))  # it really went through the Secret Service


def test_no_secret_in_the_plan_its_preview_or_the_backup_manifest(home, mem_keyring, capsys):
    from hermes_wizard.plan.changes import render_diff
    from hermes_wizard.plan.keyring_steps import plan_to_keyring

    plan = plan_to_keyring(evaluate(home))
    assert [step.variable for step in plan.keyring] == ["TELEGRAM_BOT_TOKEN"]
    assert TOKEN not in repr(plan) + render_diff(plan) + "".join(s.describe() for s in plan.keyring)
    assert main(["secrets", "migrate", "--to", "keyring", "--home", str(home), "--dry-run"]) == 0
    assert TOKEN not in capsys.readouterr().out and mem_keyring.store == {}
    assert main(["secrets", "migrate", "--to", "keyring", "--home", str(home), "--yes"]) == 0
    manifest = next((home / ".wizard-backups").glob("*/manifest.json")).read_text()
    assert TOKEN not in manifest and '"keyring"' in manifest
    assert main(["check", "--home", str(home), "--format", "json"]) == 0
    assert TOKEN not in capsys.readouterr().out


def test_an_answers_file_can_keep_the_secrets_in_the_keyring_idempotently(tmp_path, mem_keyring, monkeypatch,
                                                                          capsys):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setenv("MY_TELEGRAM_BOT_TOKEN", TOKEN)
    home = tmp_path / "new-home"
    answers = tmp_path / "answers.yaml"
    answers.write_text("secrets: keyring\nplatforms:\n  telegram:\n"
                       "    env: {TELEGRAM_BOT_TOKEN: {from_env: MY_TELEGRAM_BOT_TOKEN}}\n"
                       "    allowed_users: ['123456789']\n")
    saved = tmp_path / "saved.yaml"
    argv = ["setup", "--answers", str(answers), "--home", str(home), "--detailed-exitcode"]
    assert main([*argv, "--save-answers", str(saved)]) == 2
    assert TOKEN not in (home / ".env").read_text() + capsys.readouterr().out + saved.read_text()
    assert mem_keyring.store == {keyring_store.entry_for(home, "TELEGRAM_BOT_TOKEN"): TOKEN}
    report = evaluate(home)
    assert _telegram(report).enabled and report.would_start
    assert "secrets: keyring" in saved.read_text()
    assert main(argv) == 0  # the same answers again: nothing to change, nothing stored again
    by_flags = tmp_path / "by-flags"
    assert main(["setup", "--platform", "telegram", "--token-from-env", "MY_TELEGRAM_BOT_TOKEN", "--allow", "123456789",
                 "--secrets", "keyring", "--home", str(by_flags)]) == 0
    assert (by_flags / ".env").read_bytes() == (home / ".env").read_bytes()
    assert mem_keyring.store[keyring_store.entry_for(by_flags, "TELEGRAM_BOT_TOKEN")] == TOKEN


def test_an_answers_file_asking_for_a_keyring_where_there_is_none_writes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MY_TELEGRAM_BOT_TOKEN", TOKEN)
    monkeypatch.delenv("PYTHON_KEYRING_BACKEND", raising=False)
    home = tmp_path / "new-home"
    answers = tmp_path / "answers.yaml"
    answers.write_text("secrets: keyring\nplatforms:\n  telegram:\n"
                       "    env: {TELEGRAM_BOT_TOKEN: {from_env: MY_TELEGRAM_BOT_TOKEN}}\n")
    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())
    try:
        assert main(["setup", "--answers", str(answers), "--home", str(home)]) == 1
    finally:
        keyring.set_keyring(previous)
    assert "keyring was asked, but no OS keyring is available here" in capsys.readouterr().err and not home.exists()


class _ScriptedAsker:
    """Stands in for the plain face's Asker (wizard/faces/plain/ask.py): records what is said, answers confirms."""

    def __init__(self, answer: bool) -> None:
        self.answer, self.said, self.asked = answer, [], []

    def say(self, text: str = "", indent: str = "", hang: int = 2) -> None:
        self.said.append(text)

    def confirm(self, message: str, default: bool = False) -> bool:
        self.asked.append(message)
        return self.answer


def test_the_plain_face_offers_the_keyring_and_keeps_the_token_out_of_env(tmp_path, mem_keyring, monkeypatch):
    from hermes_wizard.faces.plain.flows import where_secrets_go
    from hermes_wizard.plan.session import Session
    from hermes_wizard.write.apply import apply_plan

    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    home = tmp_path / "h"
    session = Session(evaluate(home), "setup")
    asker = _ScriptedAsker(answer=True)
    assert where_secrets_go(asker, session) is False and not asker.asked  # nothing typed yet: nothing to ask
    session.type_value("telegram", "TELEGRAM_BOT_TOKEN", TOKEN)
    session.set_access("telegram", "allowlist", ["123456789"])
    assert where_secrets_go(asker, session) and len(asker.asked) == 1 and session.secrets_in_keyring
    assert session.outlook().would_start
    result = apply_plan(session.plan(), facts=session.report.facts)
    assert TOKEN not in (home / ".env").read_text() and _telegram(result.report).enabled


def test_the_plain_face_says_in_one_line_when_there_is_no_keyring(tmp_path, monkeypatch):
    from hermes_wizard.faces.plain.flows import where_secrets_go
    from hermes_wizard.plan.session import Session

    monkeypatch.delenv("PYTHON_KEYRING_BACKEND", raising=False)
    session = Session(evaluate(tmp_path / "h"), "setup")
    session.type_value("telegram", "TELEGRAM_BOT_TOKEN", TOKEN)
    asker = _ScriptedAsker(answer=True)
    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())
    try:
        assert where_secrets_go(asker, session)
    finally:
        keyring.set_keyring(previous)
    assert not asker.asked and not session.secrets_in_keyring
    assert len(asker.said) == 1 and "0600" in asker.said[0]
    assert asker.said[0].startswith("The secrets go to .env, mode 0600: no OS keyring is available here (")


def test_undo_leaves_an_entry_that_was_there_before_the_move(home, mem_keyring):
    entry = keyring_store.entry_for(home, "TELEGRAM_BOT_TOKEN")
    mem_keyring.store[entry] = "an older value"
    assert main(["secrets", "migrate", "--to", "keyring", "--home", str(home), "--yes"]) == 0
    assert mem_keyring.store[entry] == TOKEN
    assert main(["undo", "--home", str(home), "--yes"]) == 0
    assert entry in mem_keyring.store  # not deleted: it predates the move (.env holds the secret again and wins)
    assert f"TELEGRAM_BOT_TOKEN={TOKEN}" in (home / ".env").read_text()


_LOCKED_SECRET_SERVICE = _SECRET_SERVICE_SESSION + """
"$2" -m hermes_wizard secrets migrate --to keyring --home "$3" --yes > /dev/null
"$2" -c 'import secretstorage; c = secretstorage.get_default_collection(secretstorage.dbus_init()); c.lock()'
set +e
"$2" -m hermes_wizard check --home "$3" > "$1/check.txt"; echo "check $?"
"$2" -m hermes_wizard check --gate --home "$3"; echo "gate $?"
"""


@pytest.mark.slow
@pytest.mark.keyring
def test_a_real_locked_keyring_is_said_and_never_blocks_the_gate(home, tmp_path):
    if not (shutil.which("gnome-keyring-daemon") and shutil.which("dbus-run-session")):
        pytest.skip("gnome-keyring / dbus-run-session not installed (.ci/run installs them)")
    run = subprocess.run(["dbus-run-session", "--", "bash", "-c", _LOCKED_SECRET_SERVICE, "-", str(tmp_path),
                          sys.executable, str(home)], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "check 0" in run.stdout and "gate 0" in run.stdout, run.stdout + run.stderr
    said = (tmp_path / "check.txt").read_text()
    assert "HW503" in said and "locked" in said and TOKEN not in said + run.stdout + run.stderr


def test_typing_the_value_the_keyring_holds_still_takes_a_stale_env_line_out(home, mem_keyring):
    from hermes_wizard.plan.session import Session
    from hermes_wizard.write.apply import apply_plan

    assert main(["secrets", "migrate", "--to", "keyring", "--home", str(home), "--yes"]) == 0
    with (home / ".env").open("a") as env:
        env.write("TELEGRAM_BOT_TOKEN=123456789:AAHstaleOLDtokenOLDtokenOLDtoken_xy\n")  # wins over the keyring
    session = Session(evaluate(home), "setup")
    session.secrets_in_keyring = True
    session.type_value("telegram", "TELEGRAM_BOT_TOKEN", TOKEN)  # what the keyring already holds
    plan = session.plan()
    assert not plan.keyring  # nothing to store again
    apply_plan(plan, facts=session.report.facts)
    assert "TELEGRAM_BOT_TOKEN" not in (home / ".env").read_text()
    assert evaluate(home).effective.environ["TELEGRAM_BOT_TOKEN"] == TOKEN
