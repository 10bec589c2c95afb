"""A seeded generator of (home, senders) for the authorization conformance tests.

Each home enables a few platforms and sets who may reach them in the many ways Hermes reads:
env allowlists (with spaces, `+`, JIDs, LIDs, `@name`, `*`, case, trailing commas), the group
and chat allowlists, allow-all opt-ins in every spelling, `*_ALLOW_BOTS`, own-policy adapters'
`dm_policy` / `group_policy` in `.env` and in YAML (and WeCom's `groups.<id>.allow_from`), YAML
`allow_from` / `allowed_chats`, pairing stores in the legacy folder, the new one or both (approved
and pending entries, lists, broken JSON), and WhatsApp alias files.  The senders draw from the
same pools, so they hit and miss.  This is test data, not a model: the oracle says what it means.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from homegen import _CREDS

PLATFORMS = ("telegram", "whatsapp", "whatsapp_cloud", "weixin", "wecom", "qqbot", "yuanbao", "discord",
             "slack", "signal", "matrix", "email", "feishu")
EXTRA_SENDER_PLATFORMS = ("webhook", "homeassistant", "simplex", "irc", "dingtalk", "sms", "line", "teams",
                          "bluebubbles", "mattermost", "api_server")
_PREFIX = {"qqbot": "QQ", "whatsapp_cloud": "WHATSAPP_CLOUD"}
PHONES = ("15551234567", "447700900123", "8613800138000")
LIDS = ("99887766554433", "12121212121212")
IDS = ("111", "222", "333", "Alice", "alice", "ALICE", "@bob", "bob", "u@x.org", "-1001", "ou_abc", "o9c@im.wechat")
CHATS = ("-1001", "-1002", "g1", "G1", "grp@g.us", "room")
SPELLINGS = ("true", "TRUE", "1", "yes", "on", " true", "true ", "false", "", "Yes")
POLICIES = ("allowlist", "Allowlist", " allowlist ", "open", "pairing", "disabled", "")


def _whatsapp_forms(rng: random.Random) -> str:
    phone = rng.choice(PHONES)
    return rng.choice((phone, "+" + phone, f"{phone}@s.whatsapp.net", f"{phone}:7@s.whatsapp.net",
                       f"{rng.choice(LIDS)}@lid", rng.choice(LIDS), f" +{phone} ", f"{rng.choice(LIDS)}:3@lid",
                       f"+{phone[:2]} {phone[2:]}", "\uff11\uff15\uff15\uff15", f"++{phone}"))


def _identity(rng: random.Random, platform: str) -> str:
    if platform in ("whatsapp", "whatsapp_cloud") and rng.random() < 0.75:
        return _whatsapp_forms(rng)
    return rng.choice(IDS)


def _items(rng: random.Random, platform: str) -> str:
    items = [_identity(rng, platform) for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.08:
        items.append("*")
    if rng.random() < 0.15:
        items.append(rng.choice(CHATS))
    sep = rng.choice((",", ", ", " , "))
    return sep.join(items) + rng.choice(("", "", ","))


def _place(rng: random.Random, yaml: dict, platform: str) -> dict:
    """A YAML block where a platform setting can live: top level, platforms.X(.extra), gateway.platforms.X."""
    where = rng.choice(("top", "platforms", "extra", "gateway"))
    if where == "top":
        return yaml.setdefault(platform, {})
    if where == "gateway":
        return yaml.setdefault("gateway", {}).setdefault("platforms", {}).setdefault(platform, {})
    block = yaml.setdefault("platforms", {}).setdefault(platform, {})
    return block.setdefault("extra", {}) if where == "extra" else block


def _env_line(key: str, value: str) -> str:
    return f'{key}="{value}"' if value != value.strip() or " " in value or not value else f"{key}={value}"


def generate(seed: int) -> tuple[dict[str, bytes], list[dict]]:  # noqa: C901 -- the generator draws every access case in one pass; its ifs are the cases
    """(files relative to the home -> bytes, senders)."""
    rng = random.Random(seed)
    env: dict[str, str] = {}
    yaml: dict = {}
    enabled = rng.sample(PLATFORMS, rng.randint(1, 4))
    for platform in enabled:
        env.update(_CREDS[platform][0])
        prefix = _PREFIX.get(platform, platform.upper())
        if rng.random() < 0.5:
            env[f"{prefix}_ALLOWED_USERS"] = _items(rng, platform)
        if rng.random() < 0.2:
            env[f"{prefix}_ALLOW_ALL_USERS"] = rng.choice(SPELLINGS)
        if platform in ("whatsapp", "whatsapp_cloud", "weixin", "wecom", "yuanbao") and rng.random() < 0.5:
            side = rng.choice(("DM", "GROUP"))
            env[f"{prefix}_{side}_POLICY"] = rng.choice(POLICIES)
        if platform in ("whatsapp", "whatsapp_cloud", "weixin", "wecom", "qqbot", "yuanbao") and rng.random() < 0.4:
            block = yaml.setdefault("platforms", {}).setdefault(platform, {}).setdefault("extra", {})
            block[rng.choice(("dm_policy", "group_policy"))] = rng.choice(POLICIES + (None,))
            if rng.random() < 0.4:
                block["allow_from"] = [_identity(rng, platform)]
            if platform == "wecom" and rng.random() < 0.5:
                block["groups"] = {rng.choice(CHATS + ("*",)): {"allow_from": rng.choice((["111"], [], "", "x"))}}
        if platform in ("telegram", "whatsapp", "discord", "matrix", "dingtalk") and rng.random() < 0.35:
            key = ("allowed_users" if platform in ("matrix", "dingtalk")
                   else rng.choice(("allow_from", "group_allow_from")))
            value = rng.choice(([_identity(rng, platform)], _identity(rng, platform), 111, [111, "x y"]))
            _place(rng, yaml, platform)[key] = value
        if platform in ("whatsapp", "weixin", "wecom", "yuanbao", "whatsapp_cloud") and rng.random() < 0.25:
            _place(rng, yaml, platform)[rng.choice(("dm_policy", "group_policy"))] = rng.choice(POLICIES + (True,))
        if platform == "telegram":
            if rng.random() < 0.3:
                env["TELEGRAM_GROUP_ALLOWED_CHATS"] = ",".join(rng.sample(CHATS, 2)) + rng.choice(("", ",*"))
            if rng.random() < 0.3:
                env["TELEGRAM_GROUP_ALLOWED_USERS"] = _items(rng, platform) + rng.choice(("", ",-1002"))
            if rng.random() < 0.2:
                yaml.setdefault("telegram", {})["allowed_chats"] = [rng.choice(CHATS)]
            if rng.random() < 0.2:
                yaml.setdefault("telegram", {})["group_allowed_chats"] = rng.choice(([rng.choice(CHATS)], "-1001,g1"))
        if platform == "qqbot" and rng.random() < 0.3:
            env["QQ_GROUP_ALLOWED_USERS"] = ",".join(rng.sample(CHATS, 2))
        if platform in ("discord", "slack", "telegram", "feishu") and rng.random() < 0.3:
            env[f"{prefix}_ALLOW_BOTS"] = rng.choice(("mentions", "all", "none", " ALL", ""))
        if platform in ("discord", "slack", "telegram", "feishu") and rng.random() < 0.25:
            yaml.setdefault(platform, {})["allow_bots"] = rng.choice(("all", "Mentions", True, "none"))
    for platform in rng.sample(EXTRA_SENDER_PLATFORMS, 2):  # allowlists of platforms that are not enabled
        if rng.random() < 0.4:
            env[f"{platform.upper()}_ALLOWED_USERS"] = _items(rng, platform)
        if rng.random() < 0.1:
            env[f"{platform.upper()}_ALLOW_ALL_USERS"] = rng.choice(SPELLINGS)
    if rng.random() < 0.25:
        _place(rng, yaml, rng.choice(enabled))["unauthorized_dm_behavior"] = rng.choice(
            ("pair", "ignore", " IGNORE", "silent", 1))
    if rng.random() < 0.2:
        env["GATEWAY_ALLOWED_USERS"] = _items(rng, rng.choice(enabled))
    if rng.random() < 0.15:
        env["GATEWAY_ALLOW_ALL_USERS"] = rng.choice(SPELLINGS)
    files: dict[str, bytes] = {".env": "".join(_env_line(k, v) + "\n" for k, v in env.items()).encode()}
    if yaml:
        files["config.yaml"] = json.dumps(yaml).encode()  # JSON is YAML
    _pairing(rng, enabled, files)
    if rng.random() < 0.5:
        phone, lid = rng.choice(PHONES), rng.choice(LIDS)
        folder = rng.choice(("whatsapp/session", "platforms/whatsapp/session"))
        files[f"{folder}/lid-mapping-{phone}.json"] = json.dumps(lid + rng.choice(("", "@lid"))).encode()
        if rng.random() < 0.6:
            files[f"{folder}/lid-mapping-{lid}_reverse.json"] = json.dumps(phone).encode()
    senders = [_sender(rng, rng.choice(enabled) if rng.random() < 0.85 else rng.choice(
        PLATFORMS + EXTRA_SENDER_PLATFORMS)) for _ in range(8)]
    return files, senders


def _pairing(rng: random.Random, enabled: list[str], files: dict[str, bytes]) -> None:
    folders = rng.choice(((), ("pairing",), ("platforms/pairing",), ("pairing", "platforms/pairing")))
    if not folders and rng.random() < 0.3:
        files["pairing/.keep"] = b""  # a legacy folder with content, but no store in it
    for folder in folders:
        for platform in rng.sample(enabled, min(len(enabled), 2)):
            approved = {_identity(rng, platform).strip(): {"user_name": rng.choice(("Zed", "", "Ann")),
                                                           "approved_at": 1.0} for _ in range(rng.randint(1, 2))}
            shape = rng.random()
            data: object = list(approved) if shape < 0.1 else approved
            if 0.1 <= shape < 0.14:
                data = rng.choice((5, None, "111", True, [111, None]))
            raw = b"{broken" if shape > 0.95 else json.dumps(data).encode()
            if 0.92 < shape <= 0.95 and folder == "pairing" and len(folders) == 1:
                raw = b'{"\xff": {}}'  # not UTF-8: Hermes raises
            files[f"{folder}/{platform}-approved.json"] = raw
            if rng.random() < 0.4:
                files[f"{folder}/{platform}-pending.json"] = json.dumps({"e1": {
                    "hash": "ab" * 32, "salt": "00" * 16, "user_id": _identity(rng, platform),
                    "user_name": "Pat", "created_at": 4102444800.0}}).encode()


def _sender(rng: random.Random, platform: str) -> dict:
    chat_type = rng.choice(("dm", "dm", "group", "channel", "forum"))
    user = _identity(rng, platform) if rng.random() < 0.93 else rng.choice(("", None))
    return {"platform": platform, "user_id": user, "chat_type": chat_type,
            "chat_id": rng.choice(CHATS) if chat_type != "dm" or rng.random() < 0.2 else None,
            "is_bot": rng.random() < 0.15, "user_name": rng.choice((None, "alice", "Alice", "bob"))}


def write_home(root: Path, files: dict[str, bytes]) -> Path:
    root.mkdir(parents=True)
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root
