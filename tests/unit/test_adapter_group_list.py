"""A group allowlist the wizard writes lets the listed group chat through the real adapter, and no other.

Under group_policy allowlist the WhatsApp, Weixin, WeCom, QQBot and Yuanbao adapters forward only the group
messages of the chats their own group list names (each reads it from its own place: the catalog's
`group_chats_env`/`group_chats_key`).  Pinned against every oracle: the home the wizard writes for "group
allowlist: CHAT" has the real adapter forward CHAT's group message and drop another chat's (Weixin's group gate
before 0.22 is inline in its message handler: tests/support/oracle/authz_probe.py `_weixin_inline_group_gate`);
`access` says the same of both chats, and its overview names the chat.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from oracle import VERSIONS, model_version, require_oracle
from oracle.authz import ask

from hermes_wizard.cases.fixing import Fixing
from hermes_wizard.faces.cli import main
from hermes_wizard.hermes.loader.plugins import HostFacts
from hermes_wizard.hermes.versions import judgement

# a group chat ID of each platform's shape (the catalog's group_chat_hint), and credentials each accepts
LISTED = {"whatsapp": "120363012345678901@g.us", "weixin": "1234567890@chatroom", "wecom": "wrOgQhDgAAcwMTB7YmDkbe",
          "qqbot": "C9F778FE2A3B4C5D6E7F8091A2B3C4D5", "yuanbao": "328461745"}
UNLISTED, MEMBER = "987654321", "15551230009"
CREDENTIALS = {"weixin": {"WEIXIN_ACCOUNT_ID": "b0f5demo@im.bot", "WEIXIN_TOKEN": "demo-token-1234567890"},
               "wecom": {"WECOM_BOT_ID": "bot-demo-1", "WECOM_SECRET": "secret-demo-1234567890"},
               "qqbot": {"QQ_APP_ID": "102000001", "QQ_CLIENT_SECRET": "secret-demo-1234567890"},
               "yuanbao": {"YUANBAO_APP_ID": "app-demo-1", "YUANBAO_APP_SECRET": "secret-demo-1234567890"},
               "whatsapp": {}}


def _group(platform: str, chat: str) -> dict:
    return {"platform": platform, "user_id": MEMBER, "chat_type": "group", "chat_id": chat, "is_bot": False,
            "user_name": ""}


def _written_by_the_wizard(home: Path, version: str, platform: str) -> None:
    facts = HostFacts(modules=None).judged_as(judgement(model_version(version), None, "given"))
    fixing = Fixing(home, base_env={}, facts=facts)
    session = fixing.session
    for key, value in CREDENTIALS[platform].items():
        assert session.type_value(platform, key, value) is None
    session.set_access(platform, "pairing")
    session.set_group(platform, "allowlist", chats=[LISTED[platform]])
    fixing.apply(fixing.propose(), reason="test")


def _cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(list(argv))
    return rc, out.getvalue()


@pytest.mark.parametrize("version", VERSIONS)
def test_the_wizards_group_allowlist_forwards_the_listed_chat(version, tmp_path, hermes_oracle_at):
    require_oracle(version)
    homes = {platform: tmp_path / platform for platform in LISTED}
    for platform, home in homes.items():
        _written_by_the_wizard(home, version, platform)
    hermes_oracle_at(version)
    requests = [(home, [_group(platform, LISTED[platform]), _group(platform, UNLISTED)])
                for platform, home in homes.items()]
    theirs = dict(zip(homes, ask(version, requests, tmp_path / "oracle"), strict=True))
    judged = ["--hermes-version", model_version(version)]
    wrong = []
    for platform, home in homes.items():
        answer = theirs[platform]
        assert answer["error"] is None and platform in answer["live"], answer
        listed, unlisted = answer["intake"]
        if (listed, unlisted) != (True, False):
            wrong.append(f"{platform}: Hermes forwards the listed chat {listed}, another chat {unlisted}: {answer}")
            continue
        for chat, index in ((LISTED[platform], 0), (UNLISTED, 1)):
            rc, said = _cli("access", platform, MEMBER, "--chat", "group", "--chat-id", chat, "--home", str(home),
                            "--format", "json", *judged)
            through = answer["intake"][index] is True and answer["results"][index] is True
            if json.loads(said)["gets_through"] is not through or rc != (0 if through else 1):
                wrong.append(f"{platform} chat {chat}: Hermes lets it through {through}, access says {said}")
        _, overview = _cli("access", "--home", str(home), *judged)
        if f"only the group chats its group list names: {LISTED[platform]}" not in overview:
            wrong.append(f"{platform}: access's overview does not name the chat:\n{overview}")
    assert not wrong, f"Hermes {version}:\n" + "\n".join(wrong)
