"""The own-policy adapters as the authorizer sees them live: WhatsApp, WhatsApp Cloud, Weixin, WeCom, QQBot, Yuanbao.

These adapters gate DMs and groups themselves and Hermes's authorizer asks the live adapter for its
effective policy (`_adapter_dm_policy` / `_adapter_group_policy`, gateway/authz_mixin.py:143-212), which
each adapter computes once in its constructor (0.18.2 and 0.19.0 alike):

* WhatsApp, Weixin, WeCom: `config.extra[<side>_policy]`, else `<PLATFORM>_<SIDE>_POLICY`, else the default
  (pairing; Weixin groups: disabled) — an env variable set but empty gives "" (not the default);
* WhatsApp Cloud: extra, else WHATSAPP_CLOUD_<SIDE>_POLICY, else WHATSAPP_<SIDE>_POLICY, else for DMs
  "allowlist" when it has an allow_from list and no allow-all opt-in, "open" otherwise (groups: open);
* QQBot: `extra.get(key, "pairing")`: only a missing key falls back (None becomes "none");
* Yuanbao keeps its policy on an inner object, so Hermes falls back to `config.extra` alone.

`group_sender_allowlist` is `_adapter_group_has_sender_allowlist`: WeCom-style `groups.<chat>.allow_from`.

Contract: pure functions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermes_wizard.core.shapes import Parsed

TRUE = {"true", "1", "yes"}


def effective_policy(env: dict[str, str], p: str, extra: Parsed, side: str) -> tuple[str, str]:
    """The live adapter's effective policy for `side` (dm|group) and where it came from
    (an extra key `dm_policy`, an env name, or `default`)."""
    key = f"{side}_policy"
    if p == "yuanbao":  # no `_dm_policy` on the adapter: Hermes reads config.extra only
        return str(extra.get(key) or "").strip().lower(), key
    if p == "qqbot":  # `extra.get(key, "pairing")`: only a missing key falls back
        return str(extra.get(key, "pairing")).strip().lower(), key if key in extra else "default"
    if extra.get(key):
        return str(extra.get(key)).strip().lower(), key
    prefix = p.upper()
    if p == "whatsapp_cloud":
        for var in (f"WHATSAPP_CLOUD_{side.upper()}_POLICY", f"WHATSAPP_{side.upper()}_POLICY"):
            if env.get(var):
                return env[var].strip().lower(), var
        if side == "group":
            return "open", "default"
        opted = env.get("WHATSAPP_CLOUD_ALLOW_ALL_USERS", "").strip().lower() in TRUE
        raw = (extra.get("allow_from") or extra.get("allowFrom") or env.get("WHATSAPP_CLOUD_ALLOW_FROM")
               or env.get("WHATSAPP_CLOUD_ALLOWED_USERS"))
        return ("open" if opted or not coerce_allow_set(raw) else "allowlist"), "default"
    default = "disabled" if (p, side) == ("weixin", "group") else "pairing"
    var = f"{prefix}_{side.upper()}_POLICY"
    return env.get(var, default).strip().lower(), var if var in env else "default"


def coerce_allow_set(raw: Any) -> set[str]:
    """`_coerce_allow_set` (Hermes's adapters and, from 0.20, its authorizer): a YAML list's items, or a scalar
    split on commas; each stripped, empties dropped."""
    if raw is None:
        return set()
    if isinstance(raw, list):
        return {str(part).strip() for part in raw if str(part).strip()}
    return {part.strip() for part in str(raw).split(",") if part.strip()}


def group_sender_allowlist(extra: Parsed, chat_id: str | None) -> str | None:
    """`_adapter_group_has_sender_allowlist`: the `groups.<id>.allow_from` key that gated it, or None."""
    groups = extra.get("groups")
    if not chat_id or not isinstance(groups, dict):
        return None
    key: Any = chat_id
    group = groups.get(chat_id)
    if not isinstance(group, dict):
        for name, value in groups.items():
            if isinstance(name, str) and name.lower() == chat_id.lower() and isinstance(value, dict):
                key, group = name, value
                break
    if not isinstance(group, dict):
        key, group = "*", groups.get("*")
    if not isinstance(group, dict):
        return None
    allow = group.get("allow_from") or group.get("allowFrom")
    ok = bool(allow.strip()) if isinstance(allow, str) else (
        isinstance(allow, (list, tuple, set)) and any(str(item).strip() for item in allow))
    return f"groups.{key}.allow_from" if ok else None


