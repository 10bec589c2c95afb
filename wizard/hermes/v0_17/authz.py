"""Hermes 0.17.0's authorization: 0.18's (allow-all flags read unstripped), except where 0.17 differs.

Citations are into the 0.17.0 wheel, gateway/authz_mixin.py `_is_user_authorized` (:176-409) and
`_get_unauthorized_dm_behavior` (:455-536):

- No relay rule: 0.18 trusts an upstream-authorized relay adapter; 0.17 has no such branch, and
  `relay` has no allowlist variable, so its senders meet the no-allowlist default (deny, or
  GATEWAY_ALLOW_ALL_USERS).
- Bot admission (`<PLATFORM>_ALLOW_BOTS` = mentions|all) knows Discord and Feishu only (:265-268) and
  comes after the no-user-id guard and the platform allow-all flag (:291-297): a bot message without a
  user ID is denied, and Telegram/Slack bots are judged as people.
- Own-policy adapters default to `open` (whatsapp.py, wecom.py, weixin.py DMs, qqbot/adapter.py,
  whatsapp_cloud.py:225-241 through WHATSAPP_DM_POLICY): an adapter without a configured policy forwards
  every sender; the authorizer still trusts it only for `allowlist`.
- A stranger's DM: the per-platform `unauthorized_dm_behavior`, then the global one, then the policy in
  the platform's *config* (`extra.dm_policy`, not the live adapter's), then the allowlists; Email has no
  "ignore" default of its own.
"""

from __future__ import annotations

from typing import Any

from hermes_wizard.hermes.v0_18.authz import Authorizer018
from hermes_wizard.hermes.v0_19 import adapters
from hermes_wizard.hermes.v0_19.access_files import AccessFiles
from hermes_wizard.hermes.v0_19.authz import ALLOWED_USERS, GROUP_USERS_AND_CHATS, Decision, Sender

ALLOW_BOTS = {"discord": "DISCORD_ALLOW_BOTS", "feishu": "FEISHU_ALLOW_BOTS"}
# rules that decide before 0.17's bot admission is reached
_BEFORE_BOTS = {"platform-always", "chat-allowlist", "no-user-id", "platform-allow-all", "error"}
_OPEN_BY_DEFAULT = ("whatsapp", "wecom", "weixin", "qqbot")


class Authorizer017(Authorizer018):
    version = "0.17.0"

    def _decide(self, env: dict[str, str], platforms: dict[str, Any], files: AccessFiles, s: Sender) -> Decision:
        if s.platform == "relay":  # no upstream trust: judged as a platform without an allowlist
            platforms = {name: state for name, state in platforms.items() if name != "relay"}
        person = Sender(s.platform, s.user_id, s.chat_type, s.chat_id, False, s.user_name)
        decided = super()._decide(env, platforms, files, person)  # 0.18's rules, bot admission aside
        var = ALLOW_BOTS.get(s.platform)
        if (s.is_bot and var and decided.rule not in _BEFORE_BOTS
                and env.get(var, "none").lower().strip() in {"mentions", "all"}):
            return Decision(True, "bot-admission", var)
        return decided

    def adapter_policy(self, env: dict[str, str], p: str, extra: dict, side: str) -> tuple[str, str]:
        key = f"{side}_policy"
        if p == "qqbot":
            return str(extra.get(key, "open")).strip().lower(), key if key in extra else "default"
        if p == "whatsapp_cloud" and not extra.get(key):  # extra, else the cloud variable, else WhatsApp's
            cloud, shared = f"WHATSAPP_CLOUD_{side.upper()}_POLICY", f"WHATSAPP_{side.upper()}_POLICY"
            var = cloud if env.get(cloud) else shared
            return env.get(var, "open").strip().lower(), var if var in env else "default"
        if p in _OPEN_BY_DEFAULT and not extra.get(key) and not (p, side) == ("weixin", "group"):
            var = f"{p.upper()}_{side.upper()}_POLICY"
            return env.get(var, "open").strip().lower(), var if var in env else "default"
        return adapters.effective_policy(env, p, extra, side)

    def unauthorized_dm_behavior(self, env: dict[str, str], platforms: dict[str, Any], p: str,
                                 global_behavior: str = "pair") -> str:
        state = platforms.get(p)
        extra = state.extra if state is not None and isinstance(state.extra, dict) else {}
        if "unauthorized_dm_behavior" in extra:
            value = extra["unauthorized_dm_behavior"]
            normalized = value.strip().lower() if isinstance(value, str) else ""
            return normalized if normalized in {"pair", "ignore"} else global_behavior
        if global_behavior != "pair":
            return global_behavior
        policy = str(extra.get("dm_policy") or "").strip().lower()
        if policy == "pairing":
            return "pair"
        if policy in {"allowlist", "disabled"}:
            return "ignore"
        names = [ALLOWED_USERS.get(p, "") if p != "yuanbao" else "", *GROUP_USERS_AND_CHATS.get(p, ()),
                 "GATEWAY_ALLOWED_USERS"]
        return "ignore" if any(env.get(name, "").strip() for name in names if name) else "pair"
