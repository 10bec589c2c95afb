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

The order is data: `Authorizer.order` names the rule methods in turn (0.17's differs: no relay rule, bot
admission after rule 6). Later versions add rules through the hooks below `_adapter_trust` (0.19.0's are
no-ops; 0.20's are in wizard/hermes/v0_20/authz.py): `adapter-chat-allowlist` after rule 3,
`adapter-not-allowlisted` inside rule 8 (the adapter asked instead of trusted), `adapter-allow-from` after it.

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

from functools import cached_property
from typing import TYPE_CHECKING, Any

from hermes_wizard.core.values import Value, value_class
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


@value_class
class Sender(Value):
    """Who sends a message, as the authorizer sees them: platform, user, chat and whether a bot."""

    platform: str
    user_id: str | None
    chat_type: str = "dm"
    chat_id: str | None = None
    is_bot: bool = False
    user_name: str | None = None


@value_class
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

    # Hermes's order (the module doc's rules 1-10), as the names of the methods below: the first that returns a
    # Decision decides; `_not_allowlisted` answers when none does. A version changes its order here, and what
    # a rule asks through the hooks below `_adapter_trust`.
    order: tuple[str, ...] = ("_startup_crash", "_platform_always", "_upstream_relay", "_chat_allowlist",
                              "_adapter_chat_allowlist", "_bot_admission", "_no_user_id", "_platform_allow_all",
                              "_pairing_approved", "_without_allowlist", "_group_chat_listed",
                              "_legacy_group_chat_ids", "_allowlist_wildcard", "_allowlisted")
    # <PLATFORM>_ALLOW_BOTS, by platform: the bot senders `_bot_admission` admits
    allow_bots: dict[str, str] = ALLOW_BOTS

    def _decide(self, env: dict[str, str], platforms: dict[str, Any], files: AccessFiles, s: Sender) -> Decision:
        """The first decision of the rules in `order`; raises where Hermes does (`decide` makes that `error`)."""
        asked = Asked(self, env, platforms, files, s)
        for rule in self.order:
            decision: Decision | None = getattr(self, rule)(asked)
            if decision is not None:
                return decision
        return self._not_allowlisted(asked)

    # --- the rules: each a Decision, or None to let the next one decide --------------------------------
    def _startup_crash(self, a: Asked) -> Decision | None:
        if a.files.crash:  # GatewayRunner.__init__ raises before any message is read
            return Decision(False, "error", path=str(a.files.pairing_dir), detail=a.files.crash)
        return None

    def _platform_always(self, a: Asked) -> Decision | None:
        if a.platform in ALWAYS:
            return Decision(True, "platform-always", detail="authenticated by its transport; no per-user check")
        return None

    def _upstream_relay(self, a: Asked) -> Decision | None:
        if a.platform == "relay" and _live(a.platforms, a.platform):
            return Decision(True, "upstream-relay", detail="the relay connector authorizes upstream")
        return None

    def _chat_allowlist(self, a: Asked) -> Decision | None:
        """A group chat listed by chat ID, before the no-user-id guard (anonymous posts have none)."""
        if not (a.groupish and a.sender.chat_id and a.platform in GROUP_CHATS):
            return None
        var = GROUP_CHATS[a.platform]
        return _chat_listed(var, a.env.get(var, "").strip(), a.sender.chat_id)

    def _adapter_chat_allowlist(self, a: Asked) -> Decision | None:
        if a.groupish and a.sender.chat_id:
            return self.adapter_chat_allowlist(a.platforms, a.sender)
        return None

    def _bot_admission(self, a: Asked) -> Decision | None:
        var = self.allow_bots.get(a.platform)
        if a.sender.is_bot and var and a.env.get(var, "none").lower().strip() in {"mentions", "all"}:
            return Decision(True, "bot-admission", var)
        return None

    def _no_user_id(self, a: Asked) -> Decision | None:
        return None if a.sender.user_id else Decision(False, "no-user-id", detail="the message has no sender ID")

    def _platform_allow_all(self, a: Asked) -> Decision | None:
        all_var = self.allow_all_env(a.platform)
        return Decision(True, "platform-allow-all", all_var) if all_var and self.allow_all_on(a.env, all_var) else None

    def _pairing_approved(self, a: Asked) -> Decision | None:
        """The pairing store's approved senders; an approved file it cannot read is Hermes raising."""
        stored = approved_match(a.platform, a.user_id, a.files, self.whatsapp_alias_platforms,
                                self.pairing_store_objects_only)
        approved = a.files.approved_for(a.platform)
        if stored is not None:
            return Decision(True, "pairing-approved", path=str(approved.path), matched=stored)
        return Decision(False, "error", path=str(approved.path), detail=approved.crash) if approved.crash else None

    def _without_allowlist(self, a: Asked) -> Decision | None:
        """With no env allowlist at all: the live adapter's own policy, then GATEWAY_ALLOW_ALL_USERS."""
        if any(raw for _var, raw in a.lists) or a.group_chats:
            return None
        trusted = self._adapter_trust(a.env, a.platforms, a.files, a.sender)
        if trusted is not None:
            return trusted
        listed = self.adapter_allow_from(a.platforms, a.sender)
        if listed is not None:
            return listed
        if self.allow_all_on(a.env, "GATEWAY_ALLOW_ALL_USERS"):
            return Decision(True, "global-allow-all", "GATEWAY_ALLOW_ALL_USERS")
        return Decision(False, "no-allowlist", detail="no allowlist and no allow-all opt-in: everyone "
                        "not paired is denied")

    def _group_chat_listed(self, a: Asked) -> Decision | None:
        if a.group_chats and a.sender.chat_id:
            return _chat_listed(GROUP_CHATS[a.platform], a.group_chats, a.sender.chat_id)
        return None

    def _legacy_group_chat_ids(self, a: Asked) -> Decision | None:
        """Telegram's `-<chat id>` values in TELEGRAM_GROUP_ALLOWED_USERS (read in groups only)."""
        chat_id = a.sender.chat_id
        if a.platform != "telegram" or not a.group_users or not chat_id:
            return None
        if chat_id in {v.strip() for v in a.group_users.split(",") if v.strip().startswith("-")}:
            return Decision(True, "legacy-group-chat-ids", GROUP_USERS["telegram"], matched=chat_id,
                            detail="a chat ID in the user list (move it to TELEGRAM_GROUP_ALLOWED_CHATS)")
        return None

    def _allowlist_wildcard(self, a: Asked) -> Decision | None:
        var = next((v for v, raw in a.lists if "*" in _items(raw)), None)
        return None if var is None else Decision(True, "allowlist-wildcard", var, matched="*")

    def _allowlisted(self, a: Asked) -> Decision | None:
        """The sender (or what Hermes compares it as) in an allowlist: the first such item, sorted."""
        allowed: set[str] = set().union(*(_items(raw) for _var, raw in a.lists))
        by_item = {item: item for item in allowed}  # what Hermes compares -> the list item it came from
        check = {a.user_id}
        if "@" in a.user_id and self.splits_sender_at_sign:
            check.add(a.user_id.split("@")[0])
        if a.platform in self.whatsapp_alias_platforms:
            expanded: dict[str, str] = {}
            for item in sorted(allowed):
                for alias in expand_whatsapp(item, a.files):
                    expanded.setdefault(alias, item)
            by_item = expanded or by_item
            check |= expand_whatsapp(a.user_id, a.files)
            if normalize_whatsapp(a.user_id):
                check.add(normalize_whatsapp(a.user_id))
        if a.platform == "simplex" and a.sender.user_name and self.simplex_matches_display_name:
            check.add(a.sender.user_name)
        hits = sorted(check & set(by_item))
        if not hits:
            return None
        item = by_item[hits[0]]
        return Decision(True, "allowlist", next(v for v, raw in a.lists if item in _items(raw)), matched=item)

    def _not_allowlisted(self, a: Asked) -> Decision:
        named = [v for v, raw in a.lists if raw] + ([GROUP_CHATS[a.platform]] if a.group_chats else [])
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

    def gate(self, env: dict[str, str], platforms: dict[str, Any], p: str, side: str) -> tuple[str, str, str] | None:
        """What `p`'s live adapter does at intake with every `side` (dm|group) message, whatever its chat or sender:
        ("drops" | "listed" | "forwards", its policy, where that policy is set), or None where no live
        own-policy adapter gates it (wizard/hermes/access/intake.py `gate`).  The one answer the `access`
        overview and the wizard's choices word, and `intake` applies."""
        from hermes_wizard.hermes.access.intake import gate, intake_policy

        if p not in OWN_POLICY or not _live(platforms, p):
            return None
        extra = platforms[p].extra if isinstance(platforms[p].extra, dict) else {}
        policy, where = intake_policy(env, p, extra, side)
        if (p, side) == ("whatsapp_cloud", "dm") and policy != "disabled":
            return None  # its DM gate is not modelled beyond `disabled`
        return gate(env, p, side, policy), policy, where

    def group_chats(self, env: dict[str, str], platforms: dict[str, Any], p: str) -> tuple[str, ...]:
        """The group chats `p`'s live adapter's own group list names (empty where none, or where reading it would
        raise: `intake` reports that error)."""
        from hermes_wizard.hermes.access.intake import group_chats

        if p not in OWN_POLICY or not _live(platforms, p):
            return ()
        extra = platforms[p].extra if isinstance(platforms[p].extra, dict) else {}
        try:
            return tuple(group_chats(env, p, extra))
        except (AttributeError, TypeError):
            return ()

class Asked:
    """One question to the authorizer: the gateway's environment, platforms and access files, the sender, and
    the allowlists as the rules after the pairing store read them (computed on first use, once)."""

    def __init__(self, authorizer: Authorizer, env: dict[str, str], platforms: dict[str, Any], files: AccessFiles,
                 sender: Sender) -> None:
        self.authorizer, self.env, self.platforms, self.files, self.sender = authorizer, env, platforms, files, sender
        self.platform = sender.platform
        self.groupish = sender.chat_type in GROUPISH

    @property
    def user_id(self) -> str:
        """The sender's ID; asked only by the rules after `_no_user_id`."""
        return self.sender.user_id or ""

    @cached_property
    def in_group(self) -> bool:
        return self.sender.chat_type in {"group", "forum"}

    @cached_property
    def group_users(self) -> str:
        """The group user allowlist's stripped value, in groups."""
        return self.authorizer.auth_env(self.env, GROUP_USERS.get(self.platform, "")) if self.in_group else ""

    @cached_property
    def lists(self) -> tuple[tuple[str, str], ...]:
        """(variable, stripped value) of the platform's allowlist, its group users' and the gateway's."""
        platform_var = self.authorizer.allowlist_env(self.platform)
        return ((platform_var, self.authorizer.auth_env(self.env, platform_var)),
                (GROUP_USERS.get(self.platform, ""), self.group_users),
                ("GATEWAY_ALLOWED_USERS", self.authorizer.auth_env(self.env, "GATEWAY_ALLOWED_USERS")))

    @cached_property
    def group_chats(self) -> str:
        """The group chat allowlist's stripped value, in groups."""
        return self.authorizer.auth_env(self.env, GROUP_CHATS.get(self.platform, "")) if self.in_group else ""


def _chat_listed(var: str, raw: str, chat_id: str) -> Decision | None:
    ids = _items(raw)
    if "*" in ids or chat_id in ids:
        return Decision(True, "chat-allowlist", var, matched="*" if "*" in ids else chat_id)
    return None


def _live(platforms: dict[str, Any], name: str) -> bool:
    state = platforms.get(name)
    return bool(state is not None and state.enabled)


def _items(raw: str) -> set[str]:
    return {item.strip() for item in raw.split(",") if item.strip()}

