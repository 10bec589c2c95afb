"""Hermes 0.20.1's authorization: 0.19.0's, plus what the live adapters' config now decides.

What 0.20.1 changed (0.20.1 gateway/authz_mixin.py `_is_user_authorized`, :386-705, against 0.19.0's):

* a group chat is also admitted when the live adapter's `config.extra.group_allowed_chats` lists it (or
  holds `*`), right after the env chat allowlists and before bots and the no-user-id guard — on any
  platform with a live adapter, not only Telegram and QQ (:477-493);
* an own-policy adapter whose DM policy is `allowlist` is no longer trusted unasked: where the adapter
  has `_is_dm_allowed` (WhatsApp, WhatsApp Cloud, Weixin, WeCom, QQBot; not Yuanbao) its answer for the
  sender decides (:666-686) — the same list its intake gate admits (wizard/hermes/access/intake.py),
  WhatsApp Cloud's being its own (below);
* with no env allowlist and no trusted adapter, a sender listed in the live adapter's
  `config.extra.allow_from` (DMs) or `group_allow_from` (groups) is admitted: a YAML list or a
  comma-separated string, compared exactly, `*` for everyone (:687-701);
* the two bundled plugin platforms 0.20 added register their allowlist and allow-all variables
  (A2A_ALLOWED_USERS / A2A_ALLOW_ALL_USERS, BUZZ_*: a2a/__init__.py:110-136, buzz/adapter.py:1488-1520),
  read through the registry as the other plugin platforms' are (:563-575);
* WhatsApp Cloud senders are matched through the WhatsApp alias files as Baileys ones are, in the allowlists
  (:768) and in the pairing store (0.20.1 gateway/pairing.py:116-150).

WhatsApp Cloud's adapter (0.20.1 gateway/platforms/whatsapp_cloud.py:258-300) takes its DM list from
`allow_from`/`allowFrom` by key presence (an empty list counts), else WHATSAPP_CLOUD_ALLOW_FROM, else
WHATSAPP_CLOUD_ALLOWED_USERS, each entry reduced to its digits before any `@`; its default DM policy is
`allowlist` only when that list is not empty and WHATSAPP_CLOUD_ALLOW_ALL_USERS does not opt in.

A live adapter is an enabled platform's, as in a running gateway.  The env reads through the per-profile
secret scope (`_platform_gate_env`) equal the plain environment outside multiplexed profiles, which are
not modelled.  The adapters' list rules (wizard/hermes/access/intake.py) are imported lazily in
`adapter_dm_recheck`, as the default authorizer's `intake` does: only a DM under an adapter's allowlist needs them.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from hermes_wizard.hermes.access import adapters
from hermes_wizard.hermes.access.access_files import AccessFiles
from hermes_wizard.hermes.access.authz import (
    GROUPISH,
    REGISTRY_PLATFORMS,
    TRUE,
    Authorizer,
    Decision,
    Sender,
    _live,
)

if TYPE_CHECKING:
    from hermes_wizard.core.shapes import Parsed

DM_RECHECKED = ("whatsapp", "whatsapp_cloud", "weixin", "wecom", "qqbot")  # adapters with `_is_dm_allowed`


class Authorizer020(Authorizer):
    version = "0.20.1"
    whatsapp_alias_platforms = ("whatsapp", "whatsapp_cloud")
    registry_platforms = ("a2a", "buzz", *REGISTRY_PLATFORMS)

    def adapter_chat_allowlist(self, platforms: dict[str, Any], s: Sender) -> Decision | None:
        allowed = adapters.coerce_allow_set(_extra(platforms, s.platform).get("group_allowed_chats"))
        if "*" in allowed or s.chat_id in allowed:
            return Decision(True, "adapter-chat-allowlist", yaml_key="group_allowed_chats",
                            matched="*" if "*" in allowed else s.chat_id)
        return None

    def adapter_allow_from(self, platforms: dict[str, Any], s: Sender) -> Decision | None:
        key = "group_allow_from" if s.chat_type in GROUPISH else "allow_from"
        allowed = adapters.coerce_allow_set(_extra(platforms, s.platform).get(key))
        if s.user_id in allowed or "*" in allowed:
            return Decision(True, "adapter-allow-from", yaml_key=key,
                            matched=s.user_id if s.user_id in allowed else "*")
        return None

    def adapter_dm_recheck(self, env: dict[str, str], p: str, extra: Parsed, files: AccessFiles,
                           user_id: str) -> bool | None:
        if p not in DM_RECHECKED:
            return None
        if p == "whatsapp_cloud":
            bare = re.sub(r"\D", "", user_id.split("@", 1)[0])
            return (bare or user_id) in cloud_allow_from(env, extra)
        from hermes_wizard.hermes.access.intake import dm_listed

        return dm_listed(env, p, extra, files, user_id)

    def adapter_policy(self, env: dict[str, str], p: str, extra: Parsed, side: str) -> tuple[str, str]:
        if (p, side) != ("whatsapp_cloud", "dm") or extra.get("dm_policy"):
            return super().adapter_policy(env, p, extra, side)
        for var in ("WHATSAPP_CLOUD_DM_POLICY", "WHATSAPP_DM_POLICY"):
            if env.get(var):
                return env[var].strip().lower(), var
        opted = env.get("WHATSAPP_CLOUD_ALLOW_ALL_USERS", "").strip().lower() in TRUE
        return ("open" if opted or not cloud_allow_from(env, extra) else "allowlist"), "default"


def cloud_allow_from(env: dict[str, str], extra: Parsed) -> set[str]:
    """WhatsApp Cloud's DM allowlist as its 0.20.1 adapter builds it (digits of each entry)."""
    if "allow_from" in extra:
        raw = extra.get("allow_from")
    elif "allowFrom" in extra:
        raw = extra.get("allowFrom")
    else:
        raw = env.get("WHATSAPP_CLOUD_ALLOW_FROM") or env.get("WHATSAPP_CLOUD_ALLOWED_USERS") or None
    found = set()
    for entry in adapters.coerce_allow_set(raw):
        found.add(re.sub(r"\D", "", entry.split("@", 1)[0]) or entry)
    return found


def _extra(platforms: dict[str, Any], p: str) -> Parsed:
    if not _live(platforms, p):
        return {}
    extra = platforms[p].extra
    return extra if isinstance(extra, dict) else {}
