"""`hermes-wizard access` from the user's side: its overview, its exit codes, and bad or hostile input.

Run as the user runs it (`python -m hermes_wizard access ...` in a subprocess): usage errors exit 2 with one
line and no traceback; the home's contents are escaped before display; secrets never appear; a
FIFO where the pairing store should be never hangs it; nothing in the home is written.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

TOKEN = "7123456789:AAHdemoTokenNotReal_0123"


def _run(*args: str, home: Path | None = None) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "hermes_wizard", "access", *(["--home", str(home)] if home else []), *args]
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERMES_")}
    return subprocess.run(argv, capture_output=True, text=True, timeout=30, env=env)


def _home(root: Path, env: str, files: dict[str, str] | None = None) -> Path:
    root.mkdir()
    (root / ".env").write_text(env)
    for name, text in (files or {}).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _tree(root: Path) -> dict:
    return {str(p): (p.read_bytes() if p.is_file() else None, p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if not p.is_fifo()}


@pytest.mark.parametrize("args", [("nosuchplatform", "1"), ("telegram", "--chat-id", "-1"),
                                  ("telegram", "1", "--chat", "room"), ("--all-profiles",),
                                  ("--bot",)])
def test_usage_errors_exit_2_in_one_line(args, tmp_path):
    home = _home(tmp_path / "h", f"TELEGRAM_BOT_TOKEN={TOKEN}\n")
    result = _run(*args, home=home)
    assert result.returncode == 2, result
    assert "Traceback" not in result.stderr and result.stdout == ""
    assert "access" in result.stderr or "error" in result.stderr


def test_overview_names_paired_waiting_and_allowlisted_people(tmp_path):
    now = time.time()
    home = _home(tmp_path / "h", f"TELEGRAM_BOT_TOKEN={TOKEN}\nTELEGRAM_ALLOWED_USERS=111, 222\nWHATSAPP_ENABLED=true\n"
                 "WHATSAPP_DM_POLICY=pairing\n", {
                     "platforms/pairing/telegram-approved.json": json.dumps({"111": {"user_name": "Ann"}}),
                     "platforms/pairing/telegram-pending.json": json.dumps(
                         {"e1": {"user_id": "333", "user_name": "Pat", "created_at": now - 600}})})
    before = _tree(home)
    result = _run(home=home)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "only 111 (Ann), 222 [TELEGRAM_ALLOWED_USERS]" in text
    assert "paired:  111 (Ann)" in text
    assert "waiting: Pat (10 min ago) → hermes pairing approve telegram <CODE>" in text
    assert "whatsapp\n  DMs:     nobody yet (pairing: no one approved)" in text
    assert _tree(home) == before  # read-only
    data = json.loads(_run("telegram", "--format", "json", home=home).stdout)
    assert [p["name"] for p in data["platforms"]] == ["telegram"]
    assert data["platforms"][0]["pending"] == [{"id": "333", "name": "Pat", "age_minutes": 10}]


def test_one_sender_exit_codes_and_json(tmp_path):
    home = _home(tmp_path / "h", f"TELEGRAM_BOT_TOKEN={TOKEN}\nTELEGRAM_ALLOWED_USERS=111\n")
    accepted = _run("telegram", "111", "--format", "json", home=home)
    assert accepted.returncode == 0
    data = json.loads(accepted.stdout)
    assert {k: data[k] for k in ("platform", "sender", "chat_type", "authorized", "rule", "source")} == {
        "platform": "telegram", "sender": "111", "chat_type": "dm", "authorized": True, "rule": "allowlist",
        "source": ".env:2"}
    denied = _run("telegram", "999", home=home)
    assert denied.returncode == 1 and "[✗] denied" in denied.stdout and "TELEGRAM_ALLOWED_USERS" in denied.stdout


def test_home_contents_are_escaped_and_secrets_masked(tmp_path):
    hostile = "\x1b]0;owned\x07\x1b[2J"
    home = _home(tmp_path / "h", f"TELEGRAM_BOT_TOKEN={TOKEN}\nTELEGRAM_ALLOWED_USERS=\"{hostile},{TOKEN}\"\n",
                 {"platforms/pairing/telegram-approved.json": json.dumps({"5": {"user_name": hostile}})})
    for args in ((), ("telegram", TOKEN), ("--format", "json")):
        result = _run(*args, home=home)
        out = result.stdout + result.stderr
        assert "\x1b" not in out and "\x07" not in out, out
        assert TOKEN not in out, out


def test_a_fifo_in_the_pairing_store_does_not_hang(tmp_path):
    home = _home(tmp_path / "h", f"TELEGRAM_BOT_TOKEN={TOKEN}\n")
    (home / "platforms" / "pairing").mkdir(parents=True)
    os.mkfifo(home / "platforms" / "pairing" / "telegram-approved.json")
    result = _run("telegram", "5", home=home)
    assert result.returncode == 1 and "no-allowlist" in result.stdout, result


def test_overview_says_when_the_adapter_drops_a_side(tmp_path):
    home = _home(tmp_path / "h", "WHATSAPP_ENABLED=true\nWHATSAPP_DM_POLICY=pairing\nWHATSAPP_GROUP_POLICY=disabled\n")
    text = _run(home=home).stdout
    assert "groups:  nobody — the adapter drops these messages (policy: disabled) [.env:3]" in text, text


def test_a_fifo_alias_file_does_not_hang(tmp_path):
    home = _home(tmp_path / "h", "WHATSAPP_ENABLED=true\nWHATSAPP_ALLOWED_USERS=15551234567\n")
    (home / "platforms" / "whatsapp" / "session").mkdir(parents=True)
    os.mkfifo(home / "platforms" / "whatsapp" / "session" / "lid-mapping-99887766554433.json")
    result = _run("whatsapp", "99887766554433@lid", home=home)
    assert result.returncode == 1 and "not-allowlisted" in result.stdout, result


def test_whatsapp_groups_under_pairing_never_reach_the_gateway(tmp_path):
    """A paired WhatsApp user is authorized everywhere, but the adapter forwards no group message under
    group_policy pairing (its default): access says both (agreement with Hermes: test_access_oracle.py)."""
    home = _home(tmp_path / "h", "WHATSAPP_ENABLED=true\nWHATSAPP_DM_POLICY=pairing\n",
                 {"platforms/pairing/whatsapp-approved.json": json.dumps({"15551234567": {"user_name": "Ann"}})})
    overview = _run(home=home).stdout
    assert "groups:  nobody — the adapter drops these messages (policy: pairing) [the adapter's default]" in overview
    result = _run("whatsapp", "15551234567@s.whatsapp.net", "--chat", "group", "--chat-id", "g@g.us",
                  "--format", "json", home=home)
    data = json.loads(result.stdout)
    # exit 1: authorized by the gateway's rules, but the message never reaches it
    assert result.returncode == 1 and data["authorized"] is True and data["rule"] == "pairing-approved"
    assert data["reaches_gateway"] is False and data["gets_through"] is False
    assert data["intake_rule"] == "group_policy pairing"
    dm = json.loads(_run("whatsapp", "15551234567@s.whatsapp.net", "--format", "json", home=home).stdout)
    assert dm["reaches_gateway"] is True and dm["gets_through"] is True


def test_wecom_dm_outside_its_allow_list_never_reaches_the_gateway(tmp_path):
    """WeCom's allowlist policy with only a YAML allow_from: Hermes's authorizer trusts the adapter (no env
    allowlist), so `authorized` is true for anyone — but the adapter forwards only the listed sender."""
    home = _home(tmp_path / "h", "WECOM_BOT_ID=aibot-1\nWECOM_SECRET=s3cr3t-wecom\n",
                 {"config.yaml": "platforms:\n  wecom:\n    extra:\n      dm_policy: allowlist\n"
                                 "      allow_from: ['wecom:user:Alice']\n"})
    v19 = ("--hermes-version", "0.19.0")
    listed = json.loads(_run("wecom", "alice", "--format", "json", *v19, home=home).stdout)
    assert (listed["authorized"], listed["rule"], listed["reaches_gateway"]) == (True, "adapter-allowlist", True)
    other = json.loads(_run("wecom", "bob", "--format", "json", *v19, home=home).stdout)
    assert (other["authorized"], other["reaches_gateway"], other["gets_through"]) == (True, False, False)
    assert "groups:  nobody — the adapter drops these messages (policy: pairing)" in _run(*v19, home=home).stdout
    # 0.20's authorizer asks the adapter's own DM list instead of trusting it for anyone
    other = json.loads(_run("wecom", "bob", "--format", "json", "--hermes-version", "0.20.1", home=home).stdout)
    assert (other["authorized"], other["rule"], other["gets_through"]) == (False, "adapter-not-allowlisted", False)


@pytest.mark.parametrize("version, everyone", [("0.19.0", True), ("0.17.0", False)])
def test_the_relay_is_trusted_upstream_only_where_the_judged_hermes_trusts_it(tmp_path, version, everyone):
    """0.19's authorizer lets every relay sender through (the connector authorized them upstream); 0.17's has
    no such rule and judges the relay as a platform without an allowlist.  The overview follows the judged
    version's authorizer, not a name check of its own."""
    home = _home(tmp_path / "home", "GATEWAY_RELAY_URL=wss://relay.example/ws\n")
    done = _run("relay", "--hermes-version", version, "--format", "json", home=home)
    assert done.returncode == 0, done.stderr
    (row,) = [r for r in json.loads(done.stdout)["platforms"] if r["name"] == "relay"]
    says_everyone = "upstream-relay" in json.dumps(row)
    assert says_everyone is everyone, row


@pytest.mark.parametrize("version", ["0.19.0", "0.17.0"])
def test_access_says_when_the_gateway_does_not_start(tmp_path, version):
    """The allowlist accepts the sender, but a runner that crashes at start (0.18 and later: a session-reset
    age that is not a number; 0.17 never reads it) hears nobody: every face of `access` says so first, and
    the answer about one sender is "not through" (exit 1) while the rule's own answer stays in `authorized`."""
    home = _home(tmp_path / "h", f"TELEGRAM_BOT_TOKEN={TOKEN}\nTELEGRAM_ALLOWED_USERS=5\n",
                 {"config.yaml": 'session_reset:\n  bg_process_max_age_hours: "48"\n'})
    crashes = version != "0.17.0"
    one = _run("telegram", "5", "--format", "json", "--hermes-version", version, home=home)
    data = json.loads(one.stdout)
    assert one.returncode == (1 if crashes else 0) and data["authorized"] is True, one
    assert data["would_start"] is (not crashes) and "gateway_starts" not in data, data
    text = _run("telegram", "5", "--hermes-version", version, home=home)
    overview = _run("--hermes-version", version, home=home).stdout
    said = "[✗] nobody: the gateway does not start — config.yaml's session_reset.bg_process_max_age_hours"
    assert text.stdout.startswith(said) is crashes and text.returncode == (1 if crashes else 0), text
    assert (said in overview) is crashes, overview
    listed = json.loads(_run("--format", "json", "--hermes-version", version, home=home).stdout)
    assert listed["would_start"] is (not crashes), listed


def test_access_on_the_demo_home_says_first_that_nobody_is_heard(demo):
    """The demo home refuses to start (`check` exits 78): a sender its allowlist accepts is still not heard,
    and `access` says that before the rule, and exits 1."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERMES_")}
    check = subprocess.run([sys.executable, "-m", "hermes_wizard", "check", "--home", str(demo)], capture_output=True,
                           text=True, timeout=30, env=env)
    assert check.returncode == 78, check
    text = _run("telegram", "123456789", home=demo)
    first, *rest = text.stdout.splitlines()
    assert text.returncode == 1, text
    assert first.startswith("[✗] nobody: the gateway does not start — Hermes stops at whatsapp"), text.stdout
    assert any("rule: allowlist" in line for line in rest), text.stdout
    data = json.loads(_run("telegram", "123456789", "--format", "json", home=demo).stdout)
    assert (data["would_start"], data["authorized"]) == (False, True), data


def test_a_platform_is_one_the_judged_hermes_knows(tmp_path):
    """0.20 added a2a and buzz: `access a2a` answers for a home judged as 0.20.1 (through the allowlist its
    registry entry names, as 0.20.1 decides: tests/conformance/test_access_conformance.py) and is refused as
    unknown, naming the version, for 0.19.0."""
    home = _home(tmp_path / "h", "A2A_ALLOWED_USERS=peer-1\n")
    known = _run("a2a", "peer-1", "--format", "json", "--hermes-version", "0.20.1", home=home)
    assert known.returncode == 1 and json.loads(known.stdout)["platform_enabled"] is False, known  # not turned on
    assert (json.loads(known.stdout)["rule"], json.loads(known.stdout)["hermes"]) == ("allowlist", "0.20.1")
    unknown = _run("a2a", "peer-1", "--hermes-version", "0.19.0", home=home)
    assert unknown.returncode == 2 and unknown.stdout == "", unknown
    assert "unknown platform 'a2a' for Hermes 0.19.0" in unknown.stderr and "Traceback" not in unknown.stderr


WEIXIN = "WEIXIN_ACCOUNT_ID=acct1234567\nWEIXIN_TOKEN=tok1234567\n"


@pytest.mark.parametrize("yaml", ["", "weixin:\n  group_policy: open\n"])
def test_a_policy_from_env_is_named_where_it_is_not_config_yaml(tmp_path, yaml):
    """Hermes copies WEIXIN_GROUP_POLICY into the platform's extra, over any YAML value (env wins): the overview
    named `[config.yaml]` for a policy set only in `.env`.  It names the `.env` line, with or without
    a YAML value the environment overrides."""
    home = _home(tmp_path / "h", WEIXIN + "WEIXIN_GROUP_POLICY=allowlist\n",
                 {"config.yaml": "model:\n  default: x\n" + yaml})
    result = _run(home=home)
    groups = next(line for line in result.stdout.splitlines() if line.strip().startswith("groups:"))
    assert "it names none: no group is answered (policy: allowlist) [.env:3]" in groups, result.stdout
    assert "config.yaml" not in groups


def test_a_policy_from_config_yaml_is_named_there(tmp_path):
    home = _home(tmp_path / "h", WEIXIN, {"config.yaml": "model:\n  default: x\nweixin:\n  group_policy: allowlist\n"})
    result = _run(home=home)
    assert "(policy: allowlist) [config.yaml:4]" in result.stdout, result.stdout
