"""Surprises in Hermes's authorization (and its adapters' intake), each pinned, asked of the real Hermes.

Every case is a tiny home and one sender, with the answer we expect from each Hermes version
written down.  The real `_is_user_authorized` of each oracle version (one process per version,
tests/support/oracle/authz.py) must give that answer, and so must `hermes-wizard access ... --format json`
(exit 0 accepted, 1 denied) with the rule named here.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path

import pytest
from oracle import VERSIONS, missing_reason, model_version, require_oracle
from oracle.authz import ask
from oracle.compare import _environ

# One worker runs the module (xdist --dist loadgroup): the module-scoped answers start each Hermes once.
pytestmark = pytest.mark.xdist_group("access-conformance")
TOKEN = "TELEGRAM_BOT_TOKEN=7123456789:AAHdemoTokenNotReal_0123\n"
WA = "WHATSAPP_ENABLED=true\n"
MM = "MATTERMOST_URL=https://mm.example.org\nMATTERMOST_TOKEN=mm-token-0a1b2c\n"


def _sender(platform, user_id, chat_type="dm", chat_id=None, is_bot=False, user_name=None):
    return {"platform": platform, "user_id": user_id, "chat_type": chat_type, "chat_id": chat_id,
            "is_bot": is_bot, "user_name": user_name}


# 0.20 re-asks an own-policy adapter's DM allowlist (`_is_dm_allowed`) where earlier versions trusted it unasked
ADAPTER_RECHECKED = {"0.19.0": (True, "adapter-allowlist"), "0.18.2": (True, "adapter-allowlist"),
                     "0.20.1": (False, "adapter-not-allowlisted")}

# name -> (files, sender, {version: (authorized, rule)})
CASES = {
    # 0.19's _auth_env strips the flag; 0.18 compares os.getenv(...).lower() as it is
    "padded-allow-all": ({".env": TOKEN + 'TELEGRAM_ALLOW_ALL_USERS=" true"\n'}, _sender("telegram", "5"),
                         {"0.19.0": (True, "platform-allow-all"), "0.18.2": (False, "no-allowlist"),
                          "0.20.1": (True, "platform-allow-all")}),
    # the chat allowlist runs before the "no user id" guard: anonymous admins in a listed group get in
    "anonymous-in-listed-group": ({".env": TOKEN + "TELEGRAM_GROUP_ALLOWED_CHATS=-1001\n"},
                                  _sender("telegram", None, "group", "-1001"), (True, "chat-allowlist")),
    # YAML allowed_chats is a chat list for the adapter; the authorizer never reads it: DMs are denied
    "yaml-allowed-chats-not-for-dms": ({".env": TOKEN, "config.yaml": "telegram:\n  allowed_chats: ['5']\n"},
                                       _sender("telegram", "5"), (False, "no-allowlist")),
    # YAML allow_from is copied into TELEGRAM_ALLOWED_USERS
    "yaml-allow-from-is-an-allowlist": ({".env": TOKEN, "config.yaml": "telegram:\n  allow_from: [5]\n"},
                                        _sender("telegram", "5"), (True, "allowlist")),
    # YAML group_allowed_chats is copied into TELEGRAM_GROUP_ALLOWED_CHATS (the plugin's YAML hook)
    "yaml-group-allowed-chats": ({".env": TOKEN, "config.yaml": "telegram:\n  group_allowed_chats: [-1001]\n"},
                                 _sender("telegram", "5", "group", "-1001"), (True, "chat-allowlist")),
    # IDs are compared as written: case matters, spaces around items do not
    "case-matters": ({".env": TOKEN + "TELEGRAM_ALLOWED_USERS= Alice , 7\n"}, _sender("telegram", "alice"),
                     (False, "not-allowlisted")),
    # a sender "a@b" also matches an allowlisted "a"
    "at-splits-the-sender": ({".env": "SIGNAL_HTTP_URL=http://127.0.0.1:1\nSIGNAL_ACCOUNT=+15550001111\n"
                                      "SIGNAL_ALLOWED_USERS=bob\n"},
                             _sender("signal", "bob@host"),
                             {v: (True, "allowlist") for v in ("0.19.0", "0.18.2", "0.20.1")}
                             | {"0.22.2": (False, "not-allowlisted")}),  # the main line compares the ID whole
    # WhatsApp: a +number in the list matches the sender's JID with a device suffix
    "whatsapp-plus-and-jid": ({".env": WA + "WHATSAPP_ALLOWED_USERS=+15551234567\n"},
                              _sender("whatsapp", "15551234567:12@s.whatsapp.net"), (True, "allowlist")),
    # WhatsApp: a LID reaches the listed phone number through the bridge's alias file
    "whatsapp-lid-alias": ({".env": WA + "WHATSAPP_ALLOWED_USERS=15551234567\n",
                            "whatsapp/session/lid-mapping-15551234567.json": '"99887766554433@lid"'},
                           _sender("whatsapp", "99887766554433@lid"), (True, "allowlist")),
    # ... and the pairing store matches through the same aliases
    # (0.17 reads the alias files from whatsapp/session/ only: this one is not found)
    "whatsapp-paired-by-lid": ({".env": WA, "pairing/whatsapp-approved.json": '{"+15551234567": {}}',
                                "platforms/whatsapp/session/lid-mapping-99887766554433_reverse.json": '"15551234567"'},
                               _sender("whatsapp", "99887766554433@lid"),
                               {"0.19.0": (True, "pairing-approved"), "0.18.2": (True, "pairing-approved"),
                                "0.20.1": (True, "pairing-approved"), "0.17.0": (False, "no-allowlist")}),
    # approved users in the folder not in use are merged in by the store (0.18+; 0.17 reads pairing/ alone)
    "pairing-folders-merged": ({".env": TOKEN, "pairing/telegram-approved.json": '{"1": {}}',
                                "platforms/pairing/telegram-approved.json": '{"5": {}}'},
                               _sender("telegram", "5"), {"0.19.0": (True, "pairing-approved"),
                                                          "0.18.2": (True, "pairing-approved"),
                                                          "0.20.1": (True, "pairing-approved"),
                                                          "0.17.0": (False, "no-allowlist")}),
    # 0.17's runner loads its config (which makes <home>/pairing) before it opens the pairing store, so the
    # store is always the legacy folder: approvals kept only in platforms/pairing are never read there
    "pairing-new-folder-only": ({".env": TOKEN, "platforms/pairing/telegram-approved.json": '{"5": {}}'},
                                _sender("telegram", "5"), {"0.19.0": (True, "pairing-approved"),
                                                           "0.18.2": (True, "pairing-approved"),
                                                           "0.20.1": (True, "pairing-approved"),
                                                           "0.17.0": (False, "no-allowlist")}),
    # an approved file holding a number: Hermes's loop raises, the message is not served (0.17 never reads it)
    "approved-file-a-number": ({".env": TOKEN, "platforms/pairing/telegram-approved.json": "5"},
                               _sender("telegram", "5"), {"0.19.0": (False, "error"), "0.18.2": (False, "error"),
                                                          "0.20.1": (False, "error"),
                                                          "0.17.0": (False, "no-allowlist")}),
    # a file where the pairing folder belongs: PairingStore() raises, the gateway never serves anyone
    "pairing-folder-is-a-file": ({".env": TOKEN + "TELEGRAM_ALLOW_ALL_USERS=true\n", "pairing": "not a folder\n"},
                                 _sender("telegram", "5"), (False, "error")),
    # the own-policy adapter's allowlist is trusted when no env allowlist exists — whoever it forwards
    # (0.20 asks the adapter's `_is_dm_allowed` instead: its list is empty here)
    "whatsapp-adapter-allowlist": ({".env": WA + "WHATSAPP_DM_POLICY=allowlist\n"}, _sender("whatsapp", "1"),
                                   ADAPTER_RECHECKED),
    # WhatsApp Cloud's adapter falls back to WHATSAPP_DM_POLICY
    "cloud-uses-whatsapp-policy": ({".env": "WHATSAPP_CLOUD_PHONE_NUMBER_ID=1\nWHATSAPP_CLOUD_ACCESS_TOKEN=EAAGx1\n"
                                            "WHATSAPP_DM_POLICY=allowlist\n"}, _sender("whatsapp_cloud", "1"),
                                   ADAPTER_RECHECKED),
    # Yuanbao's adapter keeps its policy where Hermes does not look, but the loader copies
    # YUANBAO_DM_POLICY into config.extra, which is where Hermes falls back to
    "yuanbao-env-policy-via-extra": ({".env": "YUANBAO_APP_ID=a1\nYUANBAO_APP_SECRET=s1\n"
                                              "YUANBAO_DM_POLICY=allowlist\n"},
                                     _sender("yuanbao", "1"), (True, "adapter-allowlist")),
    # QQ's policy lives in YAML only, and an allowlist there is trusted
    "qq-yaml-policy": ({".env": "QQ_APP_ID=1\nQQ_CLIENT_SECRET=s1\n",
                        "config.yaml": "platforms:\n  qqbot:\n    extra:\n      dm_policy: allowlist\n"},
                       _sender("qqbot", "1"), ADAPTER_RECHECKED),
    # QQ has no env policy: QQ_DM_POLICY is never read
    "qq-env-policy-not-read": ({".env": "QQ_APP_ID=1\nQQ_CLIENT_SECRET=s1\nQQ_DM_POLICY=allowlist\n"},
                               _sender("qqbot", "1"), (False, "no-allowlist")),
    # the adapter is trusted only while its platform is enabled (a live adapter)
    "disabled-platform-no-adapter": ({".env": "WHATSAPP_ENABLED=false\nWHATSAPP_DM_POLICY=allowlist\n"},
                                     _sender("whatsapp", "1"), (False, "no-allowlist")),
    # a legacy Telegram group "user" list holding a chat ID still admits that chat
    "legacy-chat-id-in-user-list": ({".env": TOKEN + "TELEGRAM_GROUP_ALLOWED_USERS=-1002\n"},
                                    _sender("telegram", "9", "group", "-1002"), (True, "legacy-group-chat-ids")),
    # '*' in the global list opens every platform
    "global-wildcard": ({".env": TOKEN + "GATEWAY_ALLOWED_USERS=1,*\n"}, _sender("telegram", "9"),
                        (True, "allowlist-wildcard")),
    # bots: only mentions/all admit them, and only on the four platforms that have the switch
    # (0.17: Discord and Feishu only, after the no-user-id guard)
    "bots-admitted": ({".env": TOKEN + "TELEGRAM_ALLOW_BOTS= ALL\n"}, _sender("telegram", None, is_bot=True),
                      {"0.19.0": (True, "bot-admission"), "0.18.2": (True, "bot-admission"),
                       "0.20.1": (True, "bot-admission"), "0.17.0": (False, "no-user-id")}),
    # YAML allow_bots is copied (lower-cased) into TELEGRAM_ALLOW_BOTS by the plugin's YAML hook
    "yaml-allow-bots": ({".env": TOKEN, "config.yaml": "telegram:\n  allow_bots: Mentions\n"},
                        _sender("telegram", None, "group", "-5", is_bot=True),
                        {"0.19.0": (True, "bot-admission"), "0.18.2": (True, "bot-admission"),
                         "0.20.1": (True, "bot-admission"), "0.17.0": (False, "no-user-id")}),
    # 0.17's Discord bot admission comes after the no-user-id guard and the allow-all flag
    "discord-bot-0.17": ({".env": "DISCORD_BOT_TOKEN=MTAdemo.discord.token0\nDISCORD_ALLOW_BOTS=all\n"},
                         _sender("discord", "77", is_bot=True), (True, "bot-admission")),
    # 0.20: a live adapter's config.extra group_allowed_chats admits the chat, on any platform
    "adapter-group-allowed-chats": ({".env": "DISCORD_BOT_TOKEN=MTAdemo.discord.token0\n",
                                     "config.yaml": "platforms:\n  discord:\n    extra:\n"
                                                    "      group_allowed_chats: '-7, 9'\n"},
                                    _sender("discord", "5", "group", "9"),
                                    {"0.19.0": (False, "no-allowlist"), "0.18.2": (False, "no-allowlist"),
                                     "0.20.1": (True, "adapter-chat-allowlist")}),
    # 0.20: with no env allowlist, the live adapter's config.extra allow_from admits the sender (exact match)
    # (Mattermost: Discord's, Telegram's and Matrix's plugins copy a YAML allow_from into their env allowlist)
    "adapter-allow-from": ({".env": MM, "config.yaml": "platforms:\n  mattermost:\n    extra:\n"
                                                       "      allow_from: [' 5 ', 6]\n"},
                           _sender("mattermost", "5"),
                           {"0.19.0": (False, "no-allowlist"), "0.18.2": (False, "no-allowlist"),
                            "0.20.1": (True, "adapter-allow-from")}),
    # ... but only for the chat type's own list: a DM sender in group_allow_from is not admitted
    "adapter-group-allow-from-not-for-dms": ({".env": MM, "config.yaml": "platforms:\n  mattermost:\n    extra:\n"
                                                                         "      group_allow_from: '5'\n"},
                                             _sender("mattermost", "5"), (False, "no-allowlist")),
    # 0.20's new plugin platforms: their registry entries name their allowlists (a platform a version does not
    # know is not asked of it: `Platform("a2a")` raises there, and `access a2a` is refused as unknown)
    "a2a-registry-allowlist": ({".env": "A2A_ALLOWED_USERS=peer-1\n"}, _sender("a2a", "peer-1"),
                               {"0.20.1": (True, "allowlist")}),
    "buzz-registry-allow-all": ({".env": "BUZZ_ALLOW_ALL_USERS=yes\n"}, _sender("buzz", "npub1x"),
                                {"0.20.1": (True, "platform-allow-all")}),
    # SimpleX also matches the sender's display name
    "simplex-display-name": ({".env": "SIMPLEX_ALLOWED_USERS=alice\n"}, _sender("simplex", "42", user_name="alice"),
                             {v: (True, "allowlist") for v in ("0.19.0", "0.18.2", "0.20.1")}
                             | {"0.22.2": (False, "not-allowlisted")}),  # main line: contact IDs only (#44729)
}


def _applies(case, version):
    """Is `case` asked of `version`: a case pinned per version only for the versions it names (0.17 answers
    as 0.18.2)?"""
    want = CASES[case][2]
    return not isinstance(want, dict) or version in want or (version == "0.17.0" and "0.18.2" in want)


def _expected(case, version):
    want = CASES[case][2]
    if isinstance(want, dict):  # 0.17 answers as 0.18.2 unless pinned
        return want.get(version, want.get("0.18.2")) if version == "0.17.0" else want[version]
    return want


def _write(root: Path, files: dict[str, str | Path]) -> Path:
    """A home of `files` (a Path value is written as a symbolic link to it)."""
    root.mkdir(parents=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, Path):
            (root / name).symlink_to(text)
        else:
            (root / name).write_text(text)
    return root


@pytest.fixture(scope="module")
def hermes_answers(tmp_path_factory):
    """Every case asked of each oracle version (one process per version)."""
    answers = {}
    for version in VERSIONS:
        if missing_reason(version):
            continue
        root = tmp_path_factory.mktemp(f"authz-{version}")
        names = [name for name in CASES if _applies(name, version)]
        homes = [(_write(root / name, CASES[name][0]), [CASES[name][1]]) for name in names]
        for name, answer in zip(names, ask(version, homes, root / "oracle")):
            answers[(name, version)] = answer
    return answers


@pytest.mark.parametrize(("case", "version"), [(c, v) for c in CASES for v in VERSIONS if _applies(c, v)])
def test_hermes_decides_as_pinned(case, version, hermes_answers, hermes_oracle_at, tmp_path):
    require_oracle(version)
    authorized, rule = _expected(case, version)
    answer = hermes_answers[(case, version)]
    if rule == "error" and answer["error"]:  # Hermes raised building its runner: nothing is authorized
        theirs = "error: " + answer["error"]
    else:
        assert answer["error"] is None, answer["error"]
        theirs = answer["results"][0]
    assert (theirs.startswith("error") if rule == "error" else theirs is authorized), f"Hermes said {theirs!r}"
    files, sender, _ = CASES[case]
    home = _write(tmp_path / "home", files)
    from hermes_wizard.faces.cli import main

    argv = ["access", "--home", str(home), sender["platform"], sender["user_id"] or "", "--chat",
            sender["chat_type"], "--format", "json", "--hermes-version", model_version(version)]
    argv += ["--chat-id", sender["chat_id"]] if sender["chat_id"] else []
    argv += ["--bot"] if sender["is_bot"] else []
    argv += ["--name", sender["user_name"]] if sender["user_name"] else []
    out = io.StringIO()
    with _environ(hermes_oracle_at(version).host_env()), contextlib.redirect_stdout(out):
        rc = main(argv)
    data = json.loads(out.getvalue())
    assert (data["authorized"], data["rule"]) == (authorized, rule)
    # exit 0 promises more than the rule: the platform is on, its adapter forwards it, the gateway starts
    reaches = authorized and data["gets_through"] is not False and data["platform_enabled"] \
        and data["would_start"] is not False
    assert rc == (0 if reaches else 1)



# Which folder each version's gateway opens its pairing store in, pinned against its real `hermes gateway run`
# (the folder `gateway.pairing` chose when the runner imported it): name -> (files, folder or {version: folder}).
# 0.17's runner loads config.yaml first, which makes <home>/pairing (ensure_hermes_home), and then uses it, empty
# or not -- unless managed mode makes nothing, an earlier folder cannot be made, or `pairing` cannot be.
NEW_STORE = {"platforms/pairing/telegram-approved.json": '{"5": {}}'}
STORE_FOLDERS = {
    "new-folder-only": (NEW_STORE, {"0.19.0": "platforms/pairing", "0.18.2": "platforms/pairing",
                                    "0.20.1": "platforms/pairing", "0.22.2": "platforms/pairing",
                                    "0.17.0": "pairing"}),
    "both-folders": ({**NEW_STORE, "pairing/telegram-approved.json": '{"1": {}}'}, "pairing"),
    "managed-makes-nothing": ({**NEW_STORE, ".managed": ""}, "platforms/pairing"),
    "cron-cannot-be-made": ({**NEW_STORE, "cron": "a file\n"}, "platforms/pairing"),
    "pairing-a-dangling-link": ({**NEW_STORE, "pairing": Path("nowhere")}, "platforms/pairing"),
}


@pytest.mark.slow  # a real `hermes gateway run` per home
@pytest.mark.parametrize("version", VERSIONS)
def test_pairing_store_folder_is_the_real_gateways(version, tmp_path, hermes_oracle_at):
    require_oracle(version)
    from oracle import run_gateway, venv_python

    from hermes_wizard.hermes.loader.plugins import HostFacts
    from hermes_wizard.hermes.versions import judgement
    from hermes_wizard.judge.access import load_view

    homes = {name: _write(tmp_path / name, files) for name, (files, _) in STORE_FOLDERS.items()}
    answers = ask(version, [(home, []) for home in homes.values()], tmp_path / "oracle")
    host_env = hermes_oracle_at(version).host_env()
    for (name, home), answer in zip(homes.items(), answers):
        want = STORE_FOLDERS[name][1]
        want = want[version] if isinstance(want, dict) else want
        run = run_gateway(home, tmp_path / "gateway", stop_after_check=True, version=version)
        assert run.report is not None, f"{name}: the gateway did not reach its check\n{run.output[-1500:]}"
        assert os.path.relpath(run.report["pairing_dir"], run.home) == want, name
        assert answer["pairing_dir"] == want, f"{name}: the authz probe's runner opened {answer['pairing_dir']}"
        with _environ(host_env):
            facts = HostFacts.detect(home, str(venv_python(version)), dict(os.environ))
            facts = facts.judged_as(judgement(model_version(version), None, "given"))
            ours = load_view(home, facts=facts).files.pairing_dir
        assert os.path.relpath(ours, home) == want, f"{name}: our {version} model reads {ours}"


INTAKE_CASES = {
    # WhatsApp's default group_policy is pairing, under which its adapter forwards no group message at all:
    # a paired user is authorized, and still never heard in a group
    "whatsapp-groups-dropped-under-pairing": (
        {".env": WA, "platforms/pairing/whatsapp-approved.json": '{"15551234567": {}}'},
        _sender("whatsapp", "15551234567@s.whatsapp.net", "group", "g@g.us"), True, False,
        {"0.17.0": (False, True)}),  # 0.17's adapters forward every group; its store is pairing/ (empty)
    # WeCom: a dm allowlist in YAML is trusted by the authorizer for anyone; the adapter forwards its list only
    # (0.20's authorizer asks the adapter's list too)
    "wecom-adapter-list-at-intake": (
        {".env": "WECOM_BOT_ID=aibot-1\nWECOM_SECRET=s3cr3t-wecom\n",
         "config.yaml": "platforms:\n  wecom:\n    extra:\n      dm_policy: allowlist\n      allow_from: [alice]\n"},
        _sender("wecom", "bob"), True, False, {"0.20.1": (False, False), "0.22.2": (False, False)}),
}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("case", list(INTAKE_CASES))
def test_adapter_intake_as_pinned(case, version, tmp_path, hermes_oracle_at):
    require_oracle(version)
    files, sender, authorized, forwarded, *by_version = INTAKE_CASES[case]
    authorized, forwarded = (by_version[0] if by_version else {}).get(version, (authorized, forwarded))
    home = _write(tmp_path / "home", files)
    (answer,) = ask(version, [(home, [sender])], tmp_path / "oracle")
    assert (answer["results"][0], answer["intake"][0]) == (authorized, forwarded), answer
    from hermes_wizard.faces.cli import main

    out = io.StringIO()
    argv = ["access", "--home", str(home), sender["platform"], sender["user_id"], "--chat", sender["chat_type"],
            "--format", "json", "--hermes-version", model_version(version)]
    argv += ["--chat-id", sender["chat_id"]] if sender["chat_id"] else []
    with _environ(hermes_oracle_at(version).host_env()), contextlib.redirect_stdout(out):
        main(argv)
    data = json.loads(out.getvalue())
    assert (data["authorized"], data["reaches_gateway"], data["gets_through"]) == (authorized, forwarded,
                                                                                   authorized and forwarded)
