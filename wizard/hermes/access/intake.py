"""What a live own-policy adapter forwards to the gateway at all: its intake gate, per adapter.

Before the authorizer (wizard/hermes/access/authz.py) sees a message, WhatsApp, Weixin, WeCom, QQBot
and Yuanbao drop what their own policy refuses (the same code in 0.18.2 and 0.19.0):

* a DM (`_is_dm_intake_allowed`): `disabled` drops; `allowlist` admits only its allow list (each
  adapter's own list and matching, below); `pairing` forwards everyone (for the pairing handshake);
  `open` forwards only with GATEWAY_ALLOW_ALL_USERS or the platform's allow-all (read unstripped);
  anything else drops.  WhatsApp, WeCom, QQBot and Yuanbao drop an empty sender first.
* a group message (`_is_group_allowed`): `disabled` and `pairing` drop; `allowlist` admits the chats its
  group list names (WeCom: then `groups.<chat>.allow_from` senders); `open` forwards (Yuanbao: only
  with an allow-all); anything else drops (WeCom: forwards).  Weixin's group gate is inline in its
  message handler (weixin.py:1425-1433 in 0.19.0): `disabled` and `pairing` drop, `allowlist` admits only a chat
  ID its `_group_allow_from` holds exactly, anything else forwards.
* WhatsApp Cloud forwards no group message at all: its group support is not implemented (whatsapp_cloud.py,
  the "group-shaped message" guard); its DM gate is not modelled.

`gate` is what a policy does with every message of one side, whatever the chat or sender (`drops` them all,
admits the `listed` ones only, or `forwards` them to the authorizer): the one statement of these rules that
`intake` applies per message and the `access` overview and the wizard's choices word.

Lists: WhatsApp `allow_from`/`group_allow_from` in config.extra (matched through the alias files);
Weixin `allow_from` else WEIXIN_ALLOWED_USERS (exact match); WeCom `allow_from`/`allowFrom` else
WECOM_ALLOWED_USERS (case-insensitive, `wecom:`/`user:`/`group:` prefixes dropped, `*`); QQBot
`allow_from`/`allowFrom` (case-insensitive, `*`); Yuanbao `dm_allow_from` else YUANBAO_DM_ALLOW_FROM,
`group_allow_from` else YUANBAO_GROUP_ALLOW_FROM (exact, comma-separated strings only).

Contract: `intake(...)` is a pure function of its arguments (alias files through `files`); it returns
None where the adapter's gate is not modelled; Python errors where the adapter's constructor would
raise propagate (the caller reports them).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from hermes_wizard.hermes.access.adapters import coerce_allow_set, effective_policy
from hermes_wizard.hermes.access.identity import expand_whatsapp, normalize_whatsapp

if TYPE_CHECKING:
    from hermes_wizard.core.shapes import Parsed

TRUE = {"true", "1", "yes"}
_ALLOW_ALL = {"whatsapp": "WHATSAPP_ALLOW_ALL_USERS", "weixin": "WEIXIN_ALLOW_ALL_USERS",
              "wecom": "WECOM_ALLOW_ALL_USERS", "qqbot": "QQ_ALLOW_ALL_USERS", "yuanbao": "YUANBAO_ALLOW_ALL_USERS"}


def intake(env: dict[str, str], p: str, extra: Parsed, files: Any, group: bool, user_id: str | None,
           chat_id: str | None) -> tuple[bool, str] | None:
    """(forwarded?, the policy that decided), or None when this adapter's gate is not modelled."""
    if p not in _ALLOW_ALL:
        return None
    side = "group" if group else "dm"
    policy = intake_policy(env, p, extra, side)[0]
    kind = gate(env, p, side, policy)
    why = f"{side}_policy {policy or 'empty'}" + (" without an allow-all opt-in" if policy == "open"
                                                   and kind == "drops" else "")
    if not group:
        sender = str(user_id or "")
        if p != "weixin":
            sender = sender.strip()
            if not sender:
                return False, "no sender"
        if kind == "listed":
            return dm_listed(env, p, extra, files, sender), why + " (its allow list)"
        return kind == "forwards", why
    chat = str(chat_id or "")
    if kind == "drops":
        return False, why
    if kind == "listed":
        if not _group_listed(env, p, extra, files, chat):
            return False, why + " (its group list)"
        if p != "wecom":
            return True, why
    if p == "wecom":
        senders = _wecom_list(_wecom_group(extra, chat).get("allow_from") or _wecom_group(extra, chat).get("allowFrom"))
        if senders:
            return _wecom_matches(senders, str(user_id)), why + " (groups.<chat>.allow_from)"
    return True, why


def intake_policy(env: dict[str, str], p: str, extra: Parsed, side: str) -> tuple[str, str]:
    """The policy the adapter's own gate applies to `side` (dm|group), and where it is set (an extra key, an env
    name, or `default`): the live adapter's (wizard/hermes/access/adapters.py), Yuanbao's `AccessPolicy`'s."""
    if p != "yuanbao":
        return effective_policy(env, p, extra, side)
    key, var = f"{side}_policy", f"YUANBAO_{side.upper()}_POLICY"
    if extra.get(key):
        return str(extra[key]).strip().lower(), key
    return env.get(var, "pairing").strip().lower(), var if var in env else "default"


def gate(env: dict[str, str], p: str, side: str, policy: str) -> str:
    """What `p`'s adapter does at intake with every `side` (dm|group) message under `policy`: "drops" them all,
    admits the "listed" ones only (its allow list; in groups, the chats its group list names), or "forwards"
    them to the authorizer."""
    if p == "whatsapp_cloud" and side == "group":
        return "drops"  # no group support at all
    if policy == "allowlist":
        return "listed"
    opted = any(env.get(name, "").lower() in TRUE for name in ("GATEWAY_ALLOW_ALL_USERS", _ALLOW_ALL.get(p, "")))
    if policy == "open" and (side == "group" and p != "yuanbao" or opted):
        return "forwards"
    if side == "dm":
        return "forwards" if policy == "pairing" else "drops"
    return "forwards" if p in ("wecom", "weixin") and policy not in ("disabled", "pairing", "open") else "drops"


def dm_listed(env: dict[str, str], p: str, extra: Parsed, files: Any, sender: str) -> bool:
    if p == "whatsapp":
        return _whatsapp_matches(sender, coerce_allow_set(extra.get("allow_from") or extra.get("allowFrom")), files)
    if p == "weixin":
        raw = extra.get("allow_from")
        return sender in _wecom_list(env.get("WEIXIN_ALLOWED_USERS", "") if raw is None else raw)
    if p == "wecom":
        return _wecom_matches(_wecom_list(extra.get("allow_from") or extra.get("allowFrom")
                                          or env.get("WECOM_ALLOWED_USERS", "")), sender)
    if p == "qqbot":
        return _qq_matches(_wecom_list(extra.get("allow_from") or extra.get("allowFrom")), sender)
    raw = extra.get("dm_allow_from") or env.get("YUANBAO_DM_ALLOW_FROM", "")
    return sender in [x.strip() for x in raw.split(",") if x.strip()]


def _group_listed(env: dict[str, str], p: str, extra: Parsed, files: Any, chat: str) -> bool:
    if p == "whatsapp":
        allow = coerce_allow_set(extra.get("group_allow_from") or extra.get("groupAllowFrom"))
        return _whatsapp_matches(chat, allow, files)
    if p == "wecom":
        return _wecom_matches(group_chats(env, p, extra), chat)
    if p == "qqbot":
        return _qq_matches(group_chats(env, p, extra), chat)
    if p == "weixin":
        return chat in group_chats(env, p, extra)  # `effective_chat_id not in self._group_allow_from`: exact
    return chat.strip() in group_chats(env, p, extra)


def group_chats(env: dict[str, str], p: str, extra: Parsed) -> list[str]:
    """The group chats `p`'s adapter's own group list names, as it reads them (what `access` shows): WhatsApp,
    WeCom and QQBot `group_allow_from`/`groupAllowFrom`; Weixin `group_allow_from` else
    WEIXIN_GROUP_ALLOWED_USERS; Yuanbao `group_allow_from` else YUANBAO_GROUP_ALLOW_FROM (a string, else its
    adapter's constructor raises: so does this)."""
    if p in ("whatsapp", "wecom", "qqbot"):
        return _wecom_list(extra.get("group_allow_from") or extra.get("groupAllowFrom"))
    if p == "weixin":
        raw = extra.get("group_allow_from")
        return _wecom_list(env.get("WEIXIN_GROUP_ALLOWED_USERS", "") if raw is None else raw)
    if p != "yuanbao":
        return []
    raw = extra.get("group_allow_from") or env.get("YUANBAO_GROUP_ALLOW_FROM", "")
    return [x.strip() for x in raw.split(",") if x.strip()]  # a YAML list raises, as in its adapter


def _wecom_list(value: Any) -> list[str]:
    """The adapters' `_coerce_list` (WeCom, Weixin, QQBot share its shape)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [item.strip() for item in value.split(",") if item.strip()]
    if isinstance(value, (list, tuple, set)):
        return [str(item).strip() for item in value if str(item).strip()]
    return [str(value).strip()] if str(value).strip() else []


def _wecom_matches(entries: list[str], target: str) -> bool:
    wanted = str(target).strip().lower()
    for entry in entries:
        value = re.sub(r"^wecom:", "", str(entry).strip(), flags=re.IGNORECASE)
        value = re.sub(r"^(user|group):", "", value, flags=re.IGNORECASE).strip().lower()
        if value == "*" or value == wanted:
            return True
    return False


def _qq_matches(entries: list[str], target: str) -> bool:
    wanted = str(target).strip().lower()
    return any(str(entry).strip().lower() in ("*", wanted) for entry in entries)


def _wecom_group(extra: Parsed, chat: str) -> Parsed:
    found = extra.get("groups")
    groups: Parsed = found if isinstance(found, dict) else {}
    if isinstance(exact := groups.get(chat), dict):
        return exact
    for key, value in groups.items():
        if isinstance(key, str) and key.lower() == chat.lower() and isinstance(value, dict):
            return value
    wildcard = groups.get("*")
    return wildcard if isinstance(wildcard, dict) else {}


def _whatsapp_matches(candidate: str, allow: set[str], files: Any) -> bool:
    """`_matches_whatsapp_allowlist`: raw, then through the alias files on both sides."""
    if not allow:
        return False
    if candidate in allow:
        return True
    aliases = expand_whatsapp(candidate, files)
    if not aliases:
        return False
    for entry in sorted(allow):  # Hermes iterates a set: any order gives the same answer
        if entry == "*" or normalize_whatsapp(entry) in aliases or expand_whatsapp(entry, files) & aliases:
            return True
    return False
