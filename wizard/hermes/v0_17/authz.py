"""Hermes 0.17.0's authorization: 0.18's (allow-all flags read unstripped), except where 0.17 differs.

Citations are into the 0.17.0 wheel, gateway/authz_mixin.py `_is_user_authorized` (:176-453) and
`_get_unauthorized_dm_behavior` (:455-536):

- No relay rule: 0.18 trusts an upstream-authorized relay adapter; 0.17 has no such branch, and
  `relay` has no allowlist variable, so its senders meet the no-allowlist default (deny, or
  GATEWAY_ALLOW_ALL_USERS).
- Bot admission (`<PLATFORM>_ALLOW_BOTS` = mentions|all) knows Discord and Feishu only (:275-278) and
  comes after the no-user-id guard and the platform allow-all flag (:306-309): a bot message without a
  user ID is denied, and Telegram/Slack bots are judged as people.
- Own-policy adapters default to `open` (gateway/platforms/whatsapp.py:277-279, wecom.py:163-174,
  weixin.py:1195 for DMs, qqbot/adapter.py:211-215, whatsapp_cloud.py:225-241 through WHATSAPP_DM_POLICY):
  an adapter without a configured policy forwards every sender; the authorizer still trusts it only for
  `allowlist`.
- The pairing store (gateway/pairing.py:52-104) is the legacy `pairing/`, which the runner's config load
  makes before the store is opened (`pairing_store`), merges nothing, and WhatsApp's alias files are read
  from `whatsapp/session/` only (gateway/whatsapp_identity.py:85): the model's `access_files` reads them so.
- Intake (what a live own-policy adapter forwards): 0.17's adapters have one gate per side,
  `_is_dm_allowed` / `_is_group_allowed` (whatsapp_common.py:150-164, weixin.py:1472, wecom.py:863-880,
  qqbot/adapter.py:3145-3158, yuanbao.py:1548-1561): `disabled` drops, `allowlist` admits its list, and
  every other policy (open, pairing, anything) forwards; WeCom groups then check `groups.<chat>.allow_from`.
  Weixin's group gate, inline in its message handler (weixin.py:1423-1428), is the same by policy (its
  allowlist an exact lookup in `_group_allow_from`).
  WhatsApp's allowlist is a plain set lookup there (no phone/LID aliases).
- A stranger's DM: the per-platform `unauthorized_dm_behavior`, then the global one, then the policy in
  the platform's *config* (`extra.dm_policy`, not the live adapter's), then the allowlists; Email has no
  "ignore" default of its own.
The shared intake rules (wizard/hermes/access/intake.py) are imported lazily in `intake`, as the default
authorizer does: `check`'s access checks never need them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hermes_wizard.hermes.access import adapters
from hermes_wizard.hermes.access.access_files import AccessFiles
from hermes_wizard.hermes.access.authz import OWN_POLICY, Sender
from hermes_wizard.hermes.v0_18.authz import Authorizer018

if TYPE_CHECKING:
    from hermes_wizard.core.shapes import Parsed

_OPEN_BY_DEFAULT = ("whatsapp", "wecom", "weixin", "qqbot")


class Authorizer017(Authorizer018):
    version = "0.17.0"

    # no relay rule; bot admission (Discord and Feishu only) after the platform allow-all flag (:275-309)
    order = ("_startup_crash", "_platform_always", "_chat_allowlist", "_adapter_chat_allowlist", "_no_user_id",
             "_platform_allow_all", "_bot_admission", "_pairing_approved", "_without_allowlist",
             "_group_chat_listed", "_legacy_group_chat_ids", "_allowlist_wildcard", "_allowlisted")
    allow_bots = {"discord": "DISCORD_ALLOW_BOTS", "feishu": "FEISHU_ALLOW_BOTS"}

    def intake(self, env: dict[str, str], platforms: dict[str, Any], files: AccessFiles,
               s: Sender) -> tuple[bool | None, str]:
        from hermes_wizard.hermes.access import intake as later

        p, group = s.platform, s.chat_type not in ("dm", "thread")
        state = platforms.get(p)
        if p not in OWN_POLICY or p == "whatsapp_cloud" or state is None or not state.enabled:
            return None, ""
        extra = state.extra if isinstance(state.extra, dict) else {}
        side = "group" if group else "dm"
        policy = self._intake_policy(env, p, extra, side)[0]
        why = f"{side}_policy {policy or 'empty'}"
        try:
            kind = _gate(p, side, policy)
            if kind == "drops":
                return False, why
            if kind == "listed":
                sender, chat = str(s.user_id or ""), str(s.chat_id or "")
                if p == "whatsapp":  # a plain set lookup, no aliases (whatsapp.py:278-280)
                    keys = ("group_allow_from", "groupAllowFrom") if group else ("allow_from", "allowFrom")
                    listed = (chat if group else sender) in adapters.coerce_allow_set(
                        extra.get(keys[0]) or extra.get(keys[1]))
                elif group:
                    listed = later._group_listed(env, p, extra, files, chat)
                else:
                    listed = later.dm_listed(env, p, extra, files, sender.strip() if p == "yuanbao" else sender)
                if not listed:
                    return False, why + (" (its group list)" if group else " (its allow list)")
            if group and p == "wecom":
                chosen = later._wecom_group(extra, str(s.chat_id or ""))
                senders = later._wecom_list(chosen.get("allow_from") or chosen.get("allowFrom"))
                if senders:
                    return later._wecom_matches(senders, str(s.user_id)), why + " (groups.<chat>.allow_from)"
            return True, why
        except Exception as exc:  # the adapter (or an alias file) makes Hermes raise
            return False, f"Hermes raises {type(exc).__name__}"

    def gate(self, env: dict[str, str], platforms: dict[str, Any], p: str, side: str) -> tuple[str, str, str] | None:
        """0.17's one gate per side: `disabled` drops, `allowlist` admits its list, anything else forwards."""
        state = platforms.get(p)
        if p not in OWN_POLICY or state is None or not state.enabled:
            return None
        extra = state.extra if isinstance(state.extra, dict) else {}
        policy, where = self._intake_policy(env, p, extra, side)
        if (p, side) == ("whatsapp_cloud", "dm") and policy != "disabled":
            return None  # its DM gate is not modelled beyond `disabled`
        return _gate(p, side, policy), policy, where

    def _intake_policy(self, env: dict[str, str], p: str, extra: Parsed, side: str) -> tuple[str, str]:
        """The policy the adapter's gate applies: Yuanbao's AccessPolicy's own (default open, yuanbao.py:5050-5064),
        else the live adapter's."""
        if p != "yuanbao":
            return self.adapter_policy(env, p, extra, side)
        key, var = f"{side}_policy", f"YUANBAO_{side.upper()}_POLICY"
        if extra.get(key):
            return str(extra[key]).strip().lower(), key
        return env.get(var, "open").strip().lower(), var if var in env else "default"

    def adapter_policy(self, env: dict[str, str], p: str, extra: Parsed, side: str) -> tuple[str, str]:
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

    email_ignores_strangers = False  # 0.17 has no Email default: strangers follow the global behaviour

    def dm_policy_for_strangers(self, env: dict[str, str], platforms: dict[str, Any], p: str, extra: Parsed) -> str:
        """0.17 reads the config's `dm_policy` for every platform, own-policy adapters included."""
        return str(extra.get("dm_policy") or "").strip().lower()


def _gate(p: str, side: str, policy: str) -> str:
    """0.17's intake by policy (the module doc); WhatsApp Cloud forwards no group message (no group support)."""
    if (p, side) == ("whatsapp_cloud", "group") or policy == "disabled":
        return "drops"
    return "listed" if policy == "allowlist" else "forwards"
