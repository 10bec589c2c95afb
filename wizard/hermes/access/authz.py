"""Who may talk to the agent: Hermes 0.19.0's `GatewayRunner._is_user_authorized`, re-implemented.

The rules run in Hermes's own order (gateway/authz_mixin.py:282-626); the first that decides wins:

  1. `platform-always`   Home Assistant and webhook events (authenticated by their transport)
  2. `upstream-relay`    the relay adapter authorizes upstream
  3. `chat-allowlist`    group/forum/channel chat IDs: TELEGRAM_GROUP_ALLOWED_CHATS, QQ_GROUP_ALLOWED_USERS
  4. `bot-admission`     a bot sender, with <PLATFORM>_ALLOW_BOTS = mentions|all
  5. `no-user-id`        (deny) nothing left to identify the sender
  6. `platform-allow-all` <PLATFORM>_ALLOW_ALL_USERS = true|1|yes
  7. `pairing-approved`  the pairing store's `<platform>-approved.json`
  8. with no env allowlist at all: `adapter-allowlist` (an own-policy adapter whose effective
     policy for the chat type is `allowlist`, or a WeCom-style per-group sender allowlist), else
     `global-allow-all` (GATEWAY_ALLOW_ALL_USERS) or `no-allowlist` (deny)
  9. `chat-allowlist`, then Telegram's legacy `-<chat id>` values in TELEGRAM_GROUP_ALLOWED_USERS
 10. `allowlist-wildcard` (`*` in any list), `allowlist` (the sender's ID), else `not-allowlisted`.

Later versions add rules through the hooks below `_adapter_trust` (0.19.0's are no-ops; 0.20's are in
wizard/hermes/v0_20/authz.py): `adapter-chat-allowlist` after rule 3, `adapter-not-allowlisted` inside rule 8
(the adapter asked instead of trusted), `adapter-allow-from` after it.

Allowlists are <PLATFORM>_ALLOWED_USERS (plugin platforms: their registry entry), Telegram's
TELEGRAM_GROUP_ALLOWED_USERS for groups, and GATEWAY_ALLOWED_USERS; comma-separated, each item
stripped; `*` is everyone; a sender `a@b` also matches `a`; WhatsApp IDs are compared by
number and through the bridge's alias files; SimpleX also matches the display name.

The own-policy adapters (WhatsApp, WhatsApp Cloud, Weixin, WeCom, QQBot, Yuanbao) are modelled
as they are in a running gateway: the platform is enabled, so its adapter is live and Hermes
asks the adapter for its effective policy (wizard/hermes/access/adapters.py).  A platform that is
not enabled has no adapter, and rule 8 never trusts it.  Besides the decision: `intake` says
whether the live adapter forwards the message at all (modelled for WhatsApp), and
`unauthorized_dm_behavior` whether a stranger's DM gets a pairing code ("pair") or silence.
A pairing folder Hermes cannot create (a file in its place) crashes the gateway's start: every
decision is then `error`.

Not modelled: multiplexed profiles (per-profile stores and secret scopes), Discord's role grant
(`role_authorized`, decided by the adapter from the guild), the relay connector (rule 2 assumes a
connected relay adapter when the relay is enabled; the oracle cannot build one), the config's
top-level `unauthorized_dm_behavior`, and adapters whose constructor raises (the gateway's start
crashes: nobody is served at all).

Contract: `Authorizer.decide` is a pure function of (environ, platforms, files, sender); it never
raises: where Hermes itself raises, the decision is `error` (not authorized).
The adapters' intake rules (wizard/hermes/access/intake.py, ~1.5 ms) are imported lazily in `intake`: only a
message simulated through a live own-policy adapter needs them, never `check`'s access checks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hermes_wizard.core.values import Value
from hermes_wizard.hermes.access import adapters
from hermes_wizard.hermes.access.access_files import AccessFiles
from hermes_wizard.hermes.access.identity import approved_match, expand_whatsapp, normalize_whatsapp

if TYPE_CHECKING:
    from hermes_wizard.core.shapes import Parsed

ALLOWED_USERS = {
    "telegram": "TELEGRAM_ALLOWED_USERS", "discord": "DISCORD_ALLOWED_USERS", "whatsapp": "WHATSAPP_ALLOWED_USERS",
    "whatsapp_cloud": "WHATSAPP_CLOUD_ALLOWED_USERS", "slack": "SLACK_ALLOWED_USERS",
    "signal": "SIGNAL_ALLOWED_USERS", "email": "EMAIL_ALLOWED_USERS", "sms": "SMS_ALLOWED_USERS",
    "mattermost": "MATTERMOST_ALLOWED_USERS", "matrix": "MATRIX_ALLOWED_USERS",
    "dingtalk": "DINGTALK_ALLOWED_USERS", "feishu": "FEISHU_ALLOWED_USERS", "wecom": "WECOM_ALLOWED_USERS",
    "wecom_callback": "WECOM_CALLBACK_ALLOWED_USERS", "weixin": "WEIXIN_ALLOWED_USERS",
    "bluebubbles": "BLUEBUBBLES_ALLOWED_USERS", "qqbot": "QQ_ALLOWED_USERS", "yuanbao": "YUANBAO_ALLOWED_USERS",
}
# plugin platforms outside that map, from their registry entries (plugins/platforms/*/adapter.py)
REGISTRY_PLATFORMS = ("irc", "teams", "ntfy", "google_chat", "photon", "line", "simplex")
GROUP_USERS = {"telegram": "TELEGRAM_GROUP_ALLOWED_USERS"}
GROUP_CHATS = {"telegram": "TELEGRAM_GROUP_ALLOWED_CHATS", "qqbot": "QQ_GROUP_ALLOWED_USERS"}
GROUP_USERS_AND_CHATS = {"telegram": ("TELEGRAM_GROUP_ALLOWED_USERS", "TELEGRAM_GROUP_ALLOWED_CHATS"),
                         "qqbot": ("QQ_GROUP_ALLOWED_USERS",)}  # _get_unauthorized_dm_behavior's map (no Yuanbao)
ALLOW_BOTS = {"discord": "DISCORD_ALLOW_BOTS", "feishu": "FEISHU_ALLOW_BOTS", "telegram": "TELEGRAM_ALLOW_BOTS",
              "slack": "SLACK_ALLOW_BOTS"}
ALWAYS = ("homeassistant", "webhook")
OWN_POLICY = ("whatsapp", "whatsapp_cloud", "weixin", "wecom", "qqbot", "yuanbao")
TRUE = {"true", "1", "yes"}
GROUPISH = {"group", "forum", "channel"}


@dataclass(frozen=True, eq=False, repr=False)
class Sender(Value):
    """Who sends a message, as the authorizer sees them: platform, user, chat and whether a bot."""

    platform: str
    user_id: str | None
    chat_type: str = "dm"
    chat_id: str | None = None
    is_bot: bool = False
    user_name: str | None = None


@dataclass(frozen=True, eq=False, repr=False)
class Decision(Value):
    """The authorizer's answer for one sender, with the rule (and the variable, file or key) that decided it."""

    authorized: bool
    rule: str
    variable: str | None = None  # the env variable that decided
    path: str | None = None  # or the file that decided
    yaml_key: str | None = None  # or the platform's config extra key (own-policy adapters)
    matched: str | None = None  # the list item / stored ID that matched
    detail: str = ""


class Authorizer:
    """Hermes 0.19.0's authorization; a newer or older version overrides only what it changed."""

    version = "0.19.0"
    # plugin platforms whose registry entry names their allowlist and allow-all variables
    registry_platforms: tuple[str, ...] = REGISTRY_PLATFORMS
    # a sender `bob@host` also matches a list item `bob` (the main line compares the sender ID whole)
    splits_sender_at_sign: bool = True
    # SIMPLEX_ALLOWED_USERS matches a contact's display name too (the main line: its stable ID only, #44729)
    simplex_matches_display_name: bool = True
    # the pairing store reads an approved file that is not a JSON object as empty, where older versions iterate what
    # it holds (a list, a string) or raise on it (a number, true)
    pairing_store_objects_only: bool = False

    # --- reading the environment ---------------------------------------------------------------
    def auth_env(self, environ: dict[str, str], name: str) -> str:
        """`_auth_env` (0.19): the stripped value (no multiplexed secret scope here)."""
        return (environ.get(name) or "").strip() if name else ""

    def allow_all_on(self, environ: dict[str, str], name: str) -> bool:
        return self.auth_env(environ, name).lower() in TRUE

    def allowlist_env(self, platform: str) -> str:
        if platform in ALLOWED_USERS:
            return ALLOWED_USERS[platform]
        return f"{platform.upper()}_ALLOWED_USERS" if platform in self.registry_platforms else ""

    def allow_all_env(self, platform: str) -> str:
        if platform == "qqbot":
            return "QQ_ALLOW_ALL_USERS"
        return f"{platform.upper()}_ALLOW_ALL_USERS" if self.allowlist_env(platform) else ""

    # --- the decision --------------------------------------------------------------------------------
    def decide(self, environ: dict[str, str], platforms: dict[str, Any], files: AccessFiles,
               sender: Sender) -> Decision:
        try:
            return self._decide(environ, platforms, files, sender)
        except Exception as exc:  # Hermes raises here too; the message is then not served
            return Decision(False, "error", detail=f"Hermes raises {type(exc).__name__}: {exc}")

    def _decide(self, env: dict[str, str], platforms: dict[str, Any], files: AccessFiles, s: Sender) -> Decision:  # noqa: C901 -- Hermes's authorization order; to become a table of steps
        p = s.platform
        if files.crash:  # GatewayRunner.__init__ raises before any message is read
            return Decision(False, "error", path=str(files.pairing_dir), detail=files.crash)
        if p in ALWAYS:
            return Decision(True, "platform-always", detail="authenticated by its transport; no per-user check")
        if p == "relay" and _live(platforms, p):
            return Decision(True, "upstream-relay", detail="the relay connector authorizes upstream")
        if s.chat_type in GROUPISH and s.chat_id and p in GROUP_CHATS:
            var = GROUP_CHATS[p]
            ids = _items(env.get(var, "").strip())
            if "*" in ids or s.chat_id in ids:
                return Decision(True, "chat-allowlist", var, matched="*" if "*" in ids else s.chat_id)
        if s.chat_type in GROUPISH and s.chat_id and (by_adapter := self.adapter_chat_allowlist(platforms, s)):
            return by_adapter
        if s.is_bot and p in ALLOW_BOTS and env.get(ALLOW_BOTS[p], "none").lower().strip() in {"mentions", "all"}:
            return Decision(True, "bot-admission", ALLOW_BOTS[p])
        user_id = s.user_id
        if not user_id:
            return Decision(False, "no-user-id", detail="the message has no sender ID")
        all_var = self.allow_all_env(p)
        if all_var and self.allow_all_on(env, all_var):
            return Decision(True, "platform-allow-all", all_var)
        stored = approved_match(p, user_id, files, self.whatsapp_alias_platforms, self.pairing_store_objects_only)
        if stored is not None:
            return Decision(True, "pairing-approved", path=str(files.approved_for(p).path), matched=stored)
        crash = files.approved_for(p).crash
        if crash:
            return Decision(False, "error", path=str(files.approved_for(p).path), detail=crash)

        user_var = self.allowlist_env(p)
        platform_list = self.auth_env(env, user_var)
        group_users = group_chats = ""
        if s.chat_type in {"group", "forum"}:
            group_users = self.auth_env(env, GROUP_USERS.get(p, ""))
            group_chats = self.auth_env(env, GROUP_CHATS.get(p, ""))
        global_list = self.auth_env(env, "GATEWAY_ALLOWED_USERS")
        if not (platform_list or group_users or group_chats or global_list):
            trusted = self._adapter_trust(env, platforms, files, s)
            if trusted is not None:
                return trusted
            listed = self.adapter_allow_from(platforms, s)
            if listed is not None:
                return listed
            if self.allow_all_on(env, "GATEWAY_ALLOW_ALL_USERS"):
                return Decision(True, "global-allow-all", "GATEWAY_ALLOW_ALL_USERS")
            return Decision(False, "no-allowlist", detail="no allowlist and no allow-all opt-in: everyone "
                            "not paired is denied")
        if group_chats and s.chat_id:
            ids = _items(group_chats)
            if "*" in ids or s.chat_id in ids:
                return Decision(True, "chat-allowlist", GROUP_CHATS[p], matched="*" if "*" in ids else s.chat_id)
        if p == "telegram" and group_users and s.chat_type in {"group", "forum"} and s.chat_id:
            if s.chat_id in {v.strip() for v in group_users.split(",") if v.strip().startswith("-")}:
                return Decision(True, "legacy-group-chat-ids", GROUP_USERS[p], matched=s.chat_id,
                                detail="a chat ID in the user list (move it to TELEGRAM_GROUP_ALLOWED_CHATS)")
        lists = [(user_var, platform_list), (GROUP_USERS.get(p, ""), group_users),
                 ("GATEWAY_ALLOWED_USERS", global_list)]
        allowed: set[str] = set()
        for _var, raw in lists:
            allowed |= _items(raw)
        if "*" in allowed:
            var = next(v for v, raw in lists if "*" in _items(raw))
            return Decision(True, "allowlist-wildcard", var, matched="*")
        check = {user_id}
        if "@" in user_id and self.splits_sender_at_sign:
            check.add(user_id.split("@")[0])
        by_item: dict[str, str] = {}  # what Hermes compares -> the list item it came from
        for item in allowed:
            by_item.setdefault(item, item)
        if p in self.whatsapp_alias_platforms:
            expanded: dict[str, str] = {}
            for item in sorted(allowed):
                for alias in expand_whatsapp(item, files):
                    expanded.setdefault(alias, item)
            if expanded:
                by_item = expanded
            check |= expand_whatsapp(user_id, files)
            if normalize_whatsapp(user_id):
                check.add(normalize_whatsapp(user_id))
        if p == "simplex" and s.user_name and self.simplex_matches_display_name:
            check.add(s.user_name)
        hits = sorted(check & set(by_item))
        if hits:
            item = by_item[hits[0]]
            var = next(v for v, raw in lists if item in _items(raw))
            return Decision(True, "allowlist", var, matched=item)
        named = [v for v, raw in lists if raw] + ([GROUP_CHATS[p]] if group_chats else [])
        return Decision(False, "not-allowlisted", named[0], detail="not in " + ", ".join(named))

    # --- what a stranger's DM gets ------------------------------------------------------------------
    def unauthorized_dm_behavior(self, env: dict[str, str], platforms: dict[str, Any], p: str,
                                 global_behavior: str = "pair") -> str:
        """`_get_unauthorized_dm_behavior`: "pair" (a pairing code is sent) or "ignore".
        `global_behavior` is the config's top-level `unauthorized_dm_behavior` (default pair)."""
        state = platforms.get(p)
        extra = state.extra if state is not None and isinstance(state.extra, dict) else {}
        if "unauthorized_dm_behavior" in extra:
            value = extra["unauthorized_dm_behavior"]
            normalized = value.strip().lower() if isinstance(value, str) else ""
            return normalized if normalized in {"pair", "ignore"} else global_behavior
        if p == "email" and self.email_ignores_strangers:
            return "ignore"
        if global_behavior != "pair":
            return global_behavior
        policy = self.dm_policy_for_strangers(env, platforms, p, extra)
        if policy == "pairing":
            return "pair"
        if policy in {"allowlist", "disabled"}:
            return "ignore"
        # os.getenv(...).strip() in both versions, whatever _auth_env does
        names = [ALLOWED_USERS.get(p, "") if p != "yuanbao" else "", *GROUP_USERS_AND_CHATS.get(p, ()),
                 "GATEWAY_ALLOWED_USERS"]
        if any(env.get(name, "").strip() for name in names if name):
            return "ignore"
        return "pair"

    email_ignores_strangers = True  # Email never sends a pairing code to a stranger

    def dm_policy_for_strangers(self, env: dict[str, str], platforms: dict[str, Any], p: str, extra: Parsed) -> str:
        """The DM policy `_get_unauthorized_dm_behavior` reads: a live own-policy adapter's, else the config's."""
        if p in OWN_POLICY and _live(platforms, p):
            return self.adapter_policy(env, p, extra, "dm")[0]
        return str(extra.get("dm_policy") or "").strip().lower() if platforms.get(p) is not None else ""

    # --- own-policy adapters (live when enabled) -----------------------------------------------
    def _adapter_trust(self, env: dict[str, str], platforms: dict[str, Any], files: AccessFiles,
                       s: Sender) -> Decision | None:
        p = s.platform
        if p not in OWN_POLICY or not _live(platforms, p):
            return None
        extra = platforms[p].extra if isinstance(platforms[p].extra, dict) else {}
        if s.chat_type in GROUPISH:
            key = adapters.group_sender_allowlist(extra, s.chat_id)
            if key is not None:
                return Decision(True, "adapter-allowlist", yaml_key=key,
                                detail="a per-group sender allowlist the adapter enforced at intake")
            policy, source = self.adapter_policy(env, p, extra, "group")
        else:
            policy, source = self.adapter_policy(env, p, extra, "dm")
        if policy != "allowlist":
            return None
        is_var = source.isupper()
        rechecked = None if s.chat_type in GROUPISH else self.adapter_dm_recheck(env, p, extra, files, s.user_id or "")
        if rechecked is False:
            return Decision(False, "adapter-not-allowlisted", source if is_var else None,
                            yaml_key=None if is_var else source,
                            detail="the adapter's DM allowlist does not name the sender")
        return Decision(True, "adapter-allowlist", source if is_var else None, yaml_key=None if is_var else source,
                        detail="the adapter admits only its allow_from list at intake; Hermes trusts it")

    # --- what later versions added (0.19.0 has none of it) ----------------------------------------
    whatsapp_alias_platforms: tuple[str, ...] = ("whatsapp",)  # allowlists matched through the alias files

    def adapter_chat_allowlist(self, platforms: dict[str, Any], s: Sender) -> Decision | None:
        """A group chat admitted by the live adapter's own config (0.19.0: never)."""
        return None

    def adapter_allow_from(self, platforms: dict[str, Any], s: Sender) -> Decision | None:
        """With no env allowlist: a sender the live adapter's `allow_from` lists (0.19.0: never)."""
        return None

    def adapter_dm_recheck(self, env: dict[str, str], p: str, extra: Parsed, files: AccessFiles,
                           user_id: str) -> bool | None:
        """Whether the live adapter's DM allowlist still names the sender; None: trusted unasked (0.19.0)."""
        return None

    def intake(self, env: dict[str, str], platforms: dict[str, Any], files: AccessFiles,
               s: Sender) -> tuple[bool | None, str]:
        """Whether the live adapter forwards the message to the authorizer at all (None: no live
        own-policy adapter, or its gate is not modelled), and the policy that decided."""
        from hermes_wizard.hermes.access.intake import intake

        if s.platform not in OWN_POLICY or not _live(platforms, s.platform):
            return None, ""
        extra = platforms[s.platform].extra if isinstance(platforms[s.platform].extra, dict) else {}
        try:
            found = intake(env, s.platform, extra, files, s.chat_type not in ("dm", "thread"), s.user_id, s.chat_id)
        except Exception as exc:  # the adapter (or an alias file) makes Hermes raise
            return False, f"Hermes raises {type(exc).__name__}"
        return (None, "") if found is None else found

    def adapter_policy(self, env: dict[str, str], p: str, extra: Parsed, side: str) -> tuple[str, str]:
        """The live adapter's effective policy for `side` (dm|group) and where it came from."""
        return adapters.effective_policy(env, p, extra, side)

def _live(platforms: dict[str, Any], name: str) -> bool:
    state = platforms.get(name)
    return bool(state is not None and state.enabled)


def _items(raw: str) -> set[str]:
    return {item.strip() for item in raw.split(",") if item.strip()}

