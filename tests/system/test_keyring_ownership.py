"""Keyring entries belong to their home, and a user's keyring to that user (root never acts in a user's keyring).

The attacker owns a home whose config.yaml maps TELEGRAM_BOT_TOKEN to the victim home's entry (right service,
right `:VARIABLE` suffix, another home's path).  Nothing may read it: `check` refuses it as HW505, `secrets migrate
--to env` writes nothing, the plugin's source in Hermes skips it, and undo never touches it.  `secrets migrate` run
by root on a home another user owns refuses in both directions and says how to run it as the owner.
Keyrings: an in-memory backend chosen explicitly (as tests/system/test_keyring_secrets.py), and keyrings.alt's file
keyring with the real Hermes in the plugin venv (as tests/system/test_hermes_plugin.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from plugin_box import Box, require

from hermes_wizard.core import keyring_store
from hermes_wizard.faces import hermes_secrets
from hermes_wizard.faces.cli import main
from system.test_hermes_plugin import CONFIG_DRIVER, SUPPORTED
from system.test_keyring_secrets import (
    _SECRET_SERVICE_SESSION,
    mem_keyring,  # noqa: F401  (the in-memory keyring fixture)
)

VICTIM_TOKEN = "987654321:AAHvictimONLYtokenVALUE_zyxwvutsrqp"
OWN_TOKEN = "123456789:AAHattackerOWNtokenVALUE_abcdefghij"


def _home(path, env: str, config: str = "model: x\n"):
    path.mkdir()
    (path / ".env").write_text(env)
    (path / ".env").chmod(0o600)
    (path / "config.yaml").write_text(config)
    return path


def _mapping(username: str, variable: str = "TELEGRAM_BOT_TOKEN") -> str:
    return (f"plugins:\n  enabled: [{keyring_store.PLUGIN_NAME}]\nsecrets:\n  {keyring_store.SOURCE_NAME}:\n"
            f"    enabled: true\n    env:\n      {variable}: {{service: {keyring_store.SERVICE}, "
            f"username: '{username}'}}\n")


@pytest.fixture
def victim(tmp_path, mem_keyring):  # noqa: F811
    home = _home(tmp_path / "victim", "TELEGRAM_ALLOWED_USERS=111111\n")
    mem_keyring.set_password(*keyring_store.entry_for(home, "TELEGRAM_BOT_TOKEN"), VICTIM_TOKEN)
    return home


@pytest.fixture
def attacker(tmp_path, victim, monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no `hermes` on PATH: Hermes's Python is unknown
    stolen = keyring_store.entry_for(victim, "TELEGRAM_BOT_TOKEN")[1]
    return _home(tmp_path / "attacker", "TELEGRAM_ALLOWED_USERS=222222\n", _mapping(stolen))


def test_check_refuses_another_homes_entry_as_hw505_and_never_reads_it(attacker, mem_keyring, capsys,  # noqa: F811
                                                                        monkeypatch):
    asked, read = [], mem_keyring.get_password

    def spy(service, username):
        asked.append(username)
        return read(service, username)

    monkeypatch.setattr(mem_keyring, "get_password", spy)
    code = main(["check", "--home", str(attacker), "--format", "json"])
    out = capsys.readouterr().out
    report = json.loads(out)
    hw505 = [f for f in report["findings"] if f["code"] == "HW505"]
    assert hw505 and hw505[0]["severity"] == "error" and "victim" in hw505[0]["message"], out
    assert code != 0 and VICTIM_TOKEN not in out
    assert not any("victim" in name for name in asked), asked  # the victim's entry was never even read
    assert not [p for p in report["platforms"] if p["name"] == "telegram" and p["enabled"]]  # no token, as in Hermes
    assert main(["explain", "HW505"]) == 0 and "keyring-entry-of-another-home" in capsys.readouterr().out


def test_migrate_to_env_refuses_another_homes_entry_and_writes_nothing(attacker, mem_keyring, capsys):  # noqa: F811
    before = {name: (attacker / name).read_bytes() for name in (".env", "config.yaml")}
    code = main(["secrets", "migrate", "--to", "env", "--home", str(attacker), "--yes"])
    out = capsys.readouterr().out
    assert code == 1 and "HW505" in out and VICTIM_TOKEN not in out, out
    assert {name: (attacker / name).read_bytes() for name in before} == before
    assert not (attacker / ".wizard-backups").exists() or not list((attacker / ".wizard-backups").iterdir())
    assert VICTIM_TOKEN in mem_keyring.store.values()  # the victim's entry is untouched


@pytest.mark.parametrize("username", [
    "{victim}:TELEGRAM_BOT_TOKEN",  # another home, the right variable
    "{attacker}/../victim:TELEGRAM_BOT_TOKEN",  # a respelling that reaches the victim
    "x:TELEGRAM_BOT_TOKEN",  # no home at all
    "{attacker}:TELEGRAM_BOT_TOKEN:TELEGRAM_BOT_TOKEN",  # this home's path, padded
])
def test_the_plugins_source_reads_only_this_homes_own_entry(victim, tmp_path, mem_keyring, username):  # noqa: F811
    attacker = _home(tmp_path / "attacker", "")
    mem_keyring.set_password(keyring_store.SERVICE, username.format(victim=victim, attacker=attacker), VICTIM_TOKEN)
    cfg = {"enabled": True, "env": {"TELEGRAM_BOT_TOKEN": {
        "service": keyring_store.SERVICE, "username": username.format(victim=victim, attacker=attacker)}}}
    out = hermes_secrets.read_mapped(cfg, attacker)
    assert out.secrets == {} and out.kind == "REF_INVALID", out
    assert "HW505" in out.warnings[0] and VICTIM_TOKEN not in repr(out)
    # the home's own entry, reached through another spelling of the home (a link), still reads
    mem_keyring.set_password(*keyring_store.entry_for(attacker, "TELEGRAM_BOT_TOKEN"), OWN_TOKEN)
    (tmp_path / "link").symlink_to(attacker)
    own = {"enabled": True, "env": {"TELEGRAM_BOT_TOKEN": dict(zip(
        ("service", "username"), keyring_store.entry_for(tmp_path / "link", "TELEGRAM_BOT_TOKEN")))}}
    assert hermes_secrets.read_mapped(own, attacker).secrets == {"TELEGRAM_BOT_TOKEN": OWN_TOKEN}


def test_undo_acts_on_this_homes_entries_only_by_whatever_name(attacker, victim, mem_keyring, capsys):  # noqa: F811
    # the attacker's own token moved into the keyring through another spelling of the home, undone through its
    # real path: one entry for the home whatever its spelling, and the victim's is never touched
    (attacker / ".env").write_text(f"TELEGRAM_BOT_TOKEN={OWN_TOKEN}\nTELEGRAM_ALLOWED_USERS=222222\n")
    spelled = f"{attacker}/../{attacker.name}"
    assert main(["secrets", "migrate", "--to", "keyring", "--home", spelled, "--yes"]) == 0
    assert f"'{attacker}:TELEGRAM_BOT_TOKEN'" in (attacker / "config.yaml").read_text()
    assert main(["undo", "--home", str(attacker), "--yes"]) == 0
    victims = keyring_store.entry_for(victim, "TELEGRAM_BOT_TOKEN")
    assert mem_keyring.store == {victims: VICTIM_TOKEN}
    assert VICTIM_TOKEN not in (attacker / ".env").read_text() + capsys.readouterr().out


@pytest.mark.parametrize("direction", ["keyring", "env"])
def test_root_does_not_migrate_a_home_another_user_owns(tmp_path, mem_keyring, direction, capsys):  # noqa: F811
    if os.geteuid() != 0:
        pytest.skip("needs root")
    import pwd

    login = pwd.getpwuid(65534).pw_name
    home = _home(tmp_path / "theirs", f"TELEGRAM_BOT_TOKEN={OWN_TOKEN}\nTELEGRAM_ALLOWED_USERS=222222\n",
                 _mapping(keyring_store.entry_for(tmp_path / "theirs", "DISCORD_BOT_TOKEN")[1], "DISCORD_BOT_TOKEN"))
    mem_keyring.set_password(*keyring_store.entry_for(home, "DISCORD_BOT_TOKEN"), VICTIM_TOKEN)
    for path in (home, home / ".env", home / "config.yaml"):
        os.chown(path, 65534, 65534)
    before = {name: (home / name).read_bytes() for name in (".env", "config.yaml")}
    keyring_before = dict(mem_keyring.store)
    code = main(["secrets", "migrate", "--to", direction, "--home", str(home), "--yes"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert f"sudo -u {login} hermes-wizard secrets migrate --to {direction} --home {home}" in out, out
    assert "per user" in out and OWN_TOKEN not in out and VICTIM_TOKEN not in out
    assert {name: (home / name).read_bytes() for name in before} == before
    assert mem_keyring.store == keyring_before and not (home / ".wizard-backups").exists()


@pytest.mark.oracle
@pytest.mark.slow
@pytest.mark.parametrize("version", SUPPORTED)
@pytest.mark.parametrize("variable, profile", [("TELEGRAM_BOT_TOKEN", None),
                                               ("TELEGRAM_BOT_TOKEN_CODER", "coder")])
def test_real_hermes_never_gets_another_homes_token_through_the_plugin(tmp_path, version, variable, profile):
    """The attacker's home maps the victim home's own entry.  From 0.20.1 on Hermes applies plugin sources itself,
    and under a named profile a source's `FOO_<PROFILE>` also fills `FOO` (agent/secret_sources/registry.py
    `_profile_alias_target`): the profile case maps TELEGRAM_BOT_TOKEN_CODER, which that alias would turn into the
    Telegram token.  The refusal is in our source's fetch, so neither reaches the gateway's config."""
    home = tmp_path / "user" / ".hermes" / "profiles" / profile if profile else None
    box = Box(tmp_path, require(version), home=home)  # the attacker's home; a keyrings.alt file keyring
    victim = _home(tmp_path / "victim", "TELEGRAM_ALLOWED_USERS=111111\n")
    service, username = keyring_store.entry_for(victim, variable)
    box.store(service, username, VICTIM_TOKEN)
    (box.home / ".env").write_text("TELEGRAM_ALLOWED_USERS=222222\n")
    (box.home / "config.yaml").write_text(_mapping(username, variable))
    applied = box.python(CONFIG_DRIVER)
    assert applied.returncode == 0, applied.stderr
    assert json.loads(applied.stdout.splitlines()[-1]) == {"enabled": False, "fetches": 1, "token_sha256": None}
    assert "HW505" in applied.stderr and VICTIM_TOKEN not in applied.stdout + applied.stderr
    box.assert_no_secret_leaked(VICTIM_TOKEN)


# The victim's token stored in a real Secret Service (libraries.md §5.4) under the victim home's entry; the
# attacker's home maps it.  $1 scratch, $2 this Python, $3 the attacker's home, $4 the victim's entry's username.
_STOLEN = _SECRET_SERVICE_SESSION + """
printf %s "$5" |
    "$2" -c 'import sys, keyring; keyring.set_password("hermes-wizard", sys.argv[1], sys.stdin.read())' "$4"
"$2" -m hermes_wizard check --home "$3" --format json > "$1/check.json" || true
"$2" -m hermes_wizard secrets migrate --to env --home "$3" --yes && echo "migrate 0" || echo "migrate $?"
"$2" -c 'import sys, keyring; print("still", keyring.get_password("hermes-wizard", sys.argv[1]) == sys.argv[2])' \
    "$4" "$5"
"""


@pytest.mark.slow
def test_a_real_secret_service_entry_of_another_home_is_refused(tmp_path):
    if not (shutil.which("gnome-keyring-daemon") and shutil.which("dbus-run-session")):
        pytest.skip("gnome-keyring / dbus-run-session not installed (.ci/run installs them)")
    victim = _home(tmp_path / "victim", "TELEGRAM_ALLOWED_USERS=111111\n")
    username = keyring_store.entry_for(victim, "TELEGRAM_BOT_TOKEN")[1]
    attacker = _home(tmp_path / "attacker", "TELEGRAM_ALLOWED_USERS=222222\n", _mapping(username))
    before = (attacker / ".env").read_bytes()
    run = subprocess.run(["dbus-run-session", "--", "bash", "-c", _STOLEN, "-", str(tmp_path / "s"), sys.executable,
                          str(attacker), username, VICTIM_TOKEN], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).resolve().parents[2])
    said = run.stdout + run.stderr + (tmp_path / "s" / "check.json").read_text()
    assert run.returncode == 0 and "migrate 1" in run.stdout and "still True" in run.stdout, said
    assert "HW505" in run.stdout and VICTIM_TOKEN not in said
    assert [f["code"] for f in json.loads((tmp_path / "s" / "check.json").read_text())["findings"]
            if f["code"] == "HW505"] == ["HW505"]
    assert (attacker / ".env").read_bytes() == before
