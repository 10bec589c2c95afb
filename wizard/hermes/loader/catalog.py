"""Every messaging platform Hermes 0.19.0 knows, declared once.

Facts come from Hermes 0.19.0's source: gateway/config.py (the platforms and their env names) and
gateway/run.py (`_OWN_POLICY_OPEN_ENV`, the startup gate).
`Spec.gate` is the startup gate's entry (`_OWN_POLICY_OPEN_ENV`): the env names of
the DM policy, group policy and allow-all flag; only five platforms have one.
`Spec.id_pattern` is the shape an allowlist entry must have, when the platform's
IDs have a checkable shape.
`Spec.group_chats_env` / `group_chats_key` say where the adapter reads its group chat list (the chats
group_policy allowlist forwards): the same in every modelled release, 0.17.0 to 0.22.2 — Weixin's
`group_allow_from` else WEIXIN_GROUP_ALLOWED_USERS (weixin.py), QQBot's QQ_GROUP_ALLOWED_USERS copied into
`group_allow_from` (config.py's env block), Yuanbao's `group_allow_from` else YUANBAO_GROUP_ALLOW_FROM
(yuanbao.py); WhatsApp and WeCom read only `config.extra`'s `group_allow_from` (their adapters; 0.22's WhatsApp
reads its env names only when that key is unset).
"""

from __future__ import annotations

import re

from hermes_wizard.core.values import Value, value_class


@value_class
class Gate(Value):
    """A platform's entry in the startup gate (`_OWN_POLICY_OPEN_ENV`): its policy and allow-all variables."""

    dm_env: str | None
    group_env: str | None
    allow_all_env: str


@value_class
class Spec(Value):
    """One platform Hermes knows: its names, variables, defaults and the shape of its user IDs."""

    name: str  # Hermes's own platform value
    label: str
    credentials: tuple[str, ...] = ()  # env vars a working setup needs
    allowlist_env: str | None = None
    allow_all_env: str | None = None
    gate: Gate | None = None  # covered by the startup open-policy refusal
    dm_default: str = "pairing"
    group_default: str = "pairing"
    id_pattern: str | None = None  # regex an allowlist ID must match
    id_hint: str = ""
    # (regex, why) for an entry that can match no sender at all: Hermes compares the sender's ID as a string,
    # so such an entry is refused outright, where one failing `id_pattern` is only doubted
    sender_id_shape: tuple[str, str] | None = None
    token_env: str | None = None  # placeholder-token check (PLATFORM_TOKEN_ENV_NAMES)
    always_authorized: bool = False  # webhook-like: no per-user access control
    # policy variables an adapter reads although the startup gate does not cover it: (dm, group)
    ungated_policy_env: tuple[str | None, str | None] = (None, None)
    # the `config.extra` key the adapter's own intake allowlist is read from, when it never reads
    # `allowlist_env` (its top-level YAML block is where a user writes it)
    adapter_allowlist_key: str | None = None
    # the env variable the adapter's own DM allowlist is read from, when it is not `allowlist_env`: the gateway
    # admits `allowlist_env`, the adapter forwards only what this one names, so an allowlist needs both
    adapter_allowlist_env: str | None = None
    enabled_env: str | None = None  # the env switch that turns the platform on or off (both ways)
    policy_env_into_extra: bool = False  # its env override block copies the policy variables into `extra`
    # whether a missing credential variable is reported (HW: missing-credentials); False where the credentials
    # are paired on disk (judged from those files) or where the gateway runs without them
    env_credentials_checked: bool = True
    # where the adapter's own group chat list is read (group_policy allowlist forwards only the chats it names):
    # its env variable, when one reaches it, else the `config.extra` key (written under platforms.<name>.extra)
    group_chats_env: str | None = None
    group_chats_key: str | None = None
    group_chat_hint: str = ""  # what a group chat ID of this platform looks like

    def id_ok(self, value: str) -> bool:
        return self.id_pattern is None or re.fullmatch(self.id_pattern, value) is not None


_SPECS = (
    Spec("telegram", "Telegram", ("TELEGRAM_BOT_TOKEN",), "TELEGRAM_ALLOWED_USERS",
         "TELEGRAM_ALLOW_ALL_USERS", id_pattern=r"-?\d{1,20}",
         id_hint="numeric user IDs such as 123456789 (ask @userinfobot), not @usernames",
         sender_id_shape=(r"-?\d+", "Telegram user IDs are numbers (message @userinfobot to get yours)"),
         token_env="TELEGRAM_BOT_TOKEN"),
    Spec("discord", "Discord", ("DISCORD_BOT_TOKEN",), "DISCORD_ALLOWED_USERS",
         "DISCORD_ALLOW_ALL_USERS", token_env="DISCORD_BOT_TOKEN",
         id_hint="numeric user IDs (snowflakes); names are resolved by the adapter"),
    Spec("whatsapp", "WhatsApp", ("WHATSAPP_ENABLED",), "WHATSAPP_ALLOWED_USERS",
         "WHATSAPP_ALLOW_ALL_USERS", Gate("WHATSAPP_DM_POLICY", "WHATSAPP_GROUP_POLICY",
                                          "WHATSAPP_ALLOW_ALL_USERS"),
         id_pattern=r"\+?\d{6,15}(@s\.whatsapp\.net|@lid|:\d+)?",
         id_hint="phone numbers with country code, digits only (15551234567)",
         sender_id_shape=(r".*\d.*", "give the phone number with its country code, digits only (15551234567)"),
         adapter_allowlist_key="allow_from", enabled_env="WHATSAPP_ENABLED", env_credentials_checked=False,
         group_chats_key="group_allow_from", group_chat_hint="group JIDs such as 120363012345678901@g.us"),
    Spec("whatsapp_cloud", "WhatsApp Cloud API",
         ("WHATSAPP_CLOUD_PHONE_NUMBER_ID", "WHATSAPP_CLOUD_ACCESS_TOKEN"),
         "WHATSAPP_CLOUD_ALLOWED_USERS", "WHATSAPP_CLOUD_ALLOW_ALL_USERS",
         dm_default="open", group_default="open", id_pattern=r"\+?[\d ()-]{6,20}",
         id_hint="WhatsApp IDs (digits with country code)",
         ungated_policy_env=("WHATSAPP_CLOUD_DM_POLICY", "WHATSAPP_CLOUD_GROUP_POLICY")),
    Spec("slack", "Slack", ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN"), "SLACK_ALLOWED_USERS",
         "SLACK_ALLOW_ALL_USERS", id_pattern=r"[UW][A-Z0-9]{6,}", id_hint="member IDs such as U0123ABCD",
         token_env="SLACK_BOT_TOKEN"),
    Spec("signal", "Signal", ("SIGNAL_HTTP_URL", "SIGNAL_ACCOUNT"), "SIGNAL_ALLOWED_USERS",
         "SIGNAL_ALLOW_ALL_USERS",
         id_pattern=r"\+\d{6,15}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
         id_hint="E.164 numbers (+15551234567) or Signal UUIDs"),
    Spec("mattermost", "Mattermost", ("MATTERMOST_URL", "MATTERMOST_TOKEN"),
         "MATTERMOST_ALLOWED_USERS", "MATTERMOST_ALLOW_ALL_USERS", id_pattern=r"[a-z0-9]{26}",
         id_hint="26-character user IDs, not usernames", token_env="MATTERMOST_TOKEN"),
    Spec("matrix", "Matrix", ("MATRIX_HOMESERVER", "MATRIX_ACCESS_TOKEN"), "MATRIX_ALLOWED_USERS",
         "MATRIX_ALLOW_ALL_USERS", id_pattern=r"@[^:\s]+:[^\s]+", id_hint="full user IDs such as @alice:example.org",
         token_env="MATRIX_ACCESS_TOKEN"),
    Spec("homeassistant", "Home Assistant", ("HASS_TOKEN",), always_authorized=True),
    Spec("email", "Email", ("EMAIL_ADDRESS", "EMAIL_PASSWORD", "EMAIL_IMAP_HOST", "EMAIL_SMTP_HOST"),
         "EMAIL_ALLOWED_USERS", "EMAIL_ALLOW_ALL_USERS", id_hint="email addresses"),
    Spec("sms", "SMS (Twilio)", ("TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN", "TWILIO_PHONE_NUMBER"),
         "SMS_ALLOWED_USERS", "SMS_ALLOW_ALL_USERS", id_pattern=r"\+\d{6,15}", id_hint="E.164 numbers"),
    Spec("dingtalk", "DingTalk", ("DINGTALK_CLIENT_ID", "DINGTALK_CLIENT_SECRET"),
         "DINGTALK_ALLOWED_USERS", "DINGTALK_ALLOW_ALL_USERS"),
    Spec("api_server", "API server", ("API_SERVER_KEY",), always_authorized=True, env_credentials_checked=False),
    Spec("webhook", "Webhook", ("WEBHOOK_SECRET",), always_authorized=True, env_credentials_checked=False),
    Spec("msgraph_webhook", "Microsoft Graph webhook", ("MSGRAPH_WEBHOOK_CLIENT_STATE",),
         always_authorized=True, env_credentials_checked=False),
    Spec("feishu", "Feishu / Lark", ("FEISHU_APP_ID", "FEISHU_APP_SECRET"), "FEISHU_ALLOWED_USERS",
         "FEISHU_ALLOW_ALL_USERS", group_default="allowlist", id_pattern=r"(ou|u|on)_[A-Za-z0-9]+",
         id_hint="open_id (ou_…), user_id (u_…) or union_id (on_…)", ungated_policy_env=(None, "FEISHU_GROUP_POLICY")),
    Spec("wecom", "WeCom", ("WECOM_BOT_ID", "WECOM_SECRET"), "WECOM_ALLOWED_USERS",
         "WECOM_ALLOW_ALL_USERS", Gate("WECOM_DM_POLICY", "WECOM_GROUP_POLICY", "WECOM_ALLOW_ALL_USERS"),
         group_chats_key="group_allow_from", group_chat_hint="group chatids such as wrOgQhDgAAcwMTB7YmDkbe"),
    Spec("wecom_callback", "WeCom (callback)",
         ("WECOM_CALLBACK_CORP_ID", "WECOM_CALLBACK_CORP_SECRET"), "WECOM_CALLBACK_ALLOWED_USERS",
         "WECOM_CALLBACK_ALLOW_ALL_USERS"),
    Spec("weixin", "Weixin (WeChat)", ("WEIXIN_ACCOUNT_ID", "WEIXIN_TOKEN"), "WEIXIN_ALLOWED_USERS",
         "WEIXIN_ALLOW_ALL_USERS", Gate("WEIXIN_DM_POLICY", "WEIXIN_GROUP_POLICY", "WEIXIN_ALLOW_ALL_USERS"),
         group_default="disabled", token_env="WEIXIN_TOKEN", id_hint="iLink user IDs such as o9cq80…@im.wechat",
         policy_env_into_extra=True, env_credentials_checked=False, group_chats_env="WEIXIN_GROUP_ALLOWED_USERS",
         group_chat_hint="group IDs such as 1234567890@chatroom"),
    Spec("bluebubbles", "iMessage (BlueBubbles)", ("BLUEBUBBLES_SERVER_URL", "BLUEBUBBLES_PASSWORD"),
         "BLUEBUBBLES_ALLOWED_USERS", "BLUEBUBBLES_ALLOW_ALL_USERS", id_hint="email addresses or phone numbers"),
    Spec("qqbot", "QQ Bot", ("QQ_APP_ID", "QQ_CLIENT_SECRET"), "QQ_ALLOWED_USERS", "QQ_ALLOW_ALL_USERS",
         Gate(None, None, "QQ_ALLOW_ALL_USERS"), id_hint="user OpenIDs", group_chats_env="QQ_GROUP_ALLOWED_USERS",
         group_chat_hint="group OpenIDs such as C9F778FE2A3B4C5D6E7F8091A2B3C4D5"),
    Spec("yuanbao", "Yuanbao", ("YUANBAO_APP_ID", "YUANBAO_APP_SECRET"), "YUANBAO_ALLOWED_USERS",
         "YUANBAO_ALLOW_ALL_USERS", Gate("YUANBAO_DM_POLICY", "YUANBAO_GROUP_POLICY", "YUANBAO_ALLOW_ALL_USERS"),
         policy_env_into_extra=True, adapter_allowlist_env="YUANBAO_DM_ALLOW_FROM",
         group_chats_env="YUANBAO_GROUP_ALLOW_FROM", group_chat_hint="group codes such as 328461745"),
    Spec("relay", "Relay (experimental)", ("GATEWAY_RELAY_URL",), always_authorized=True,
         env_credentials_checked=False),
    Spec("google_chat", "Google Chat", ("GOOGLE_CHAT_SERVICE_ACCOUNT_JSON", "GOOGLE_CHAT_PROJECT_ID"),
         "GOOGLE_CHAT_ALLOWED_USERS", "GOOGLE_CHAT_ALLOW_ALL_USERS", id_hint="sender email addresses"),
    Spec("irc", "IRC", ("IRC_SERVER", "IRC_CHANNEL", "IRC_NICKNAME"), "IRC_ALLOWED_USERS",
         "IRC_ALLOW_ALL_USERS", id_hint="nicknames"),
    Spec("line", "LINE", ("LINE_CHANNEL_ACCESS_TOKEN", "LINE_CHANNEL_SECRET"), "LINE_ALLOWED_USERS",
         "LINE_ALLOW_ALL_USERS", id_pattern=r"U[0-9a-f]{32}", id_hint="user IDs such as U4af4980629…"),
    Spec("ntfy", "ntfy", ("NTFY_TOPIC",), "NTFY_ALLOWED_USERS", "NTFY_ALLOW_ALL_USERS", id_hint="topics"),
    Spec("photon", "iMessage (Photon)", ("PHOTON_PROJECT_ID", "PHOTON_PROJECT_SECRET"),
         "PHOTON_ALLOWED_USERS", "PHOTON_ALLOW_ALL_USERS"),
    Spec("raft", "Raft", ("RAFT_PROFILE",), env_credentials_checked=False),
    Spec("simplex", "SimpleX", ("SIMPLEX_WS_URL",), "SIMPLEX_ALLOWED_USERS", "SIMPLEX_ALLOW_ALL_USERS",
         id_hint="numeric contact IDs or display names"),
    Spec("teams", "Microsoft Teams", ("TEAMS_CLIENT_ID", "TEAMS_CLIENT_SECRET", "TEAMS_TENANT_ID"),
         "TEAMS_ALLOWED_USERS", "TEAMS_ALLOW_ALL_USERS", id_hint="Azure AD object IDs"),
)

PLATFORMS: dict[str, Spec] = {spec.name: spec for spec in _SPECS}
# Credentials Hermes reads whose names do not say token, secret, password or key, yet whose values are as secret,
# masked whole by what they are, never by how a value looks (their env names, and the `platforms.<name>.extra` /
# YAML keys Hermes copies them into; gateway/config.py, the adapters):
#   Google Chat's service account (a path, or the inline JSON with its `private_key`; the adapter takes either);
#   the Microsoft Graph webhook's shared client state (the only thing that authenticates a notification);
#   webhook URLs that carry their own credential: Teams' incoming webhook (its secret and `sig=`), DingTalk's
#   robot (`access_token=`), the Telegram and SMS (Twilio) webhook URLs (a secret path, a `?key=`), and the
#   webhook paths WhatsApp Cloud, Feishu and BlueBubbles listen on (the path is the only shared secret);
#   ntfy's topics (whoever knows a topic reads and writes it).  (A relay's URL is an address, not a credential:
#   Buzz's is a public Nostr relay, the gateway relay authenticates apart; a password in any URL is masked anyway.)
SECRET_VALUED = frozenset({
    "GOOGLE_CHAT_SERVICE_ACCOUNT_JSON", "MSGRAPH_WEBHOOK_CLIENT_STATE", "SERVICE_ACCOUNT_JSON", "CLIENT_STATE",
    "TEAMS_INCOMING_WEBHOOK_URL", "DINGTALK_WEBHOOK_URL", "TELEGRAM_WEBHOOK_URL", "SMS_WEBHOOK_URL",
    "WHATSAPP_CLOUD_WEBHOOK_PATH", "FEISHU_WEBHOOK_PATH", "BLUEBUBBLES_WEBHOOK_PATH",
    "INCOMING_WEBHOOK_URL", "WEBHOOK_URL", "WEBHOOK_PATH",
    "NTFY_TOPIC", "NTFY_PUBLISH_TOPIC", "TOPIC", "PUBLISH_TOPIC",
})
# Explicit enum members, in enum order (from_dict and the shared-key loop use it).
BUILTIN_ORDER = ("telegram", "discord", "whatsapp", "whatsapp_cloud", "slack", "signal", "mattermost",
                 "matrix", "homeassistant", "email", "sms", "dingtalk", "api_server", "webhook",
                 "msgraph_webhook", "feishu", "wecom", "wecom_callback", "weixin", "bluebubbles", "qqbot",
                 "yuanbao", "relay")
KNOWN_NAMES = frozenset(PLATFORMS) | {"local"}
# Common misspellings of platform keys that Hermes silently ignores.
ALIASES = {"qq": "qqbot", "wechat": "weixin", "wx": "weixin", "lark": "feishu", "hass": "homeassistant",
           "home_assistant": "homeassistant", "imessage": "bluebubbles", "whatsapp-cloud": "whatsapp_cloud",
           "wa": "whatsapp", "googlechat": "google_chat", "msteams": "teams", "ms_teams": "teams",
           "api": "api_server", "tg": "telegram"}


def platform_value(name: object) -> str | None:
    """Hermes's `Platform(name)`: the canonical value, or None when it raises."""
    if not isinstance(name, str):
        return None
    if name in KNOWN_NAMES:
        return name
    folded = name.strip().lower()  # `Platform._missing_` strips and lower-cases
    return folded if folded in KNOWN_NAMES else None
