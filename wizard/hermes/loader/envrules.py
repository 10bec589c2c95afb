"""Hermes 0.19's env-variable rules: truthiness, and the built-in env override blocks.

`apply_env_overrides` mirrors `_apply_env_overrides` in `gateway/config.py`
(lines 1698-2368 of 0.19.0) block by block, in the same order, because insertion
order decides which violation the startup gate names.  Only what affects
enablement, tokens, policies and allowlists is kept; cosmetic keys are left out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, overload

from hermes_wizard.hermes.loader.state import PlatformState

if TYPE_CHECKING:
    from hermes_wizard.hermes.model import Model

TRUTHY = frozenset({"1", "true", "yes", "on"})  # utils.TRUTHY_STRINGS, used for *_ENABLED
FALSY = frozenset({"false", "0", "no", "off"})
ALLOW_ALL_TRUE = frozenset({"true", "1", "yes"})  # the gate: lower-cased, NOT stripped, no "on"
# `.env` credentials whose override block below enables the platform whatever YAML said (`force`, not
# `enable_from_env`): removing them is the only way to keep such a platform off.
FORCING_CREDENTIALS = {"weixin": ("WEIXIN_TOKEN", "WEIXIN_ACCOUNT_ID"), "qqbot": ("QQ_APP_ID", "QQ_CLIENT_SECRET"),
                       "wecom": ("WECOM_BOT_ID", "WECOM_SECRET"), "yuanbao": ("YUANBAO_APP_ID", "YUANBAO_APP_KEY")}
PLACEHOLDERS = frozenset({"*", "**", "***", "changeme", "your_api_key", "your_api_key_here", "your-api-key",
                          "placeholder", "example", "dummy", "null", "none"})


def is_truthy(value: Any, default: bool = False) -> bool:
    """`utils.is_truthy_value`."""
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value.strip().lower() in TRUTHY
    return bool(value)


def coerce_bool(value: Any, default: bool = True) -> bool:
    """`gateway.config._coerce_bool` (YAML `enabled:` and friends)."""
    if value is None:
        return default
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in TRUTHY:
            return True
        if lowered in FALSY:
            return False
        return default
    return is_truthy(value, default)


def allow_all(value: str | None) -> bool:
    """Does the startup gate accept this allow-all value?"""
    return value is not None and value.lower() in ALLOW_ALL_TRUE


def usable_secret(value: Any) -> bool:
    """`hermes_cli.auth.has_usable_secret(min_length=4)`."""
    if not isinstance(value, str):
        return False
    cleaned = value.strip()
    return len(cleaned) >= 4 and cleaned.lower() not in PLACEHOLDERS


def apply_env_overrides(platforms: dict[str, PlatformState], environ: dict[str, str], reset: dict[str, Any],  # noqa: C901 -- Hermes's env override blocks; to become a table
                        model: Model) -> None:
    """The env override blocks, in Hermes's order; `model` answers where versions differ (its `*_ENABLED`
    truthiness, the API server's block, SLACK_HOME_CHANNEL's)."""
    enabled_flag = model.enabled_flag

    @overload
    def get(name: str) -> str | None: ...
    @overload
    def get(name: str, default: str) -> str: ...

    def get(name: str, default: str | None = None) -> str | None:
        value = environ.get(name)
        return default if value is None else value

    def ensure(name: str) -> PlatformState:
        if name not in platforms:
            platforms[name] = PlatformState()
        return platforms[name]

    def enable_from_env(name: str) -> PlatformState:
        """Honors an explicit YAML `enabled: false` (telegram, discord, signal, ...)."""
        if name not in platforms:
            platforms[name] = PlatformState(enabled=True)
            return platforms[name]
        state = platforms[name]
        if not state.enabled and not state.extra.get("_enabled_explicit", False):
            state.enabled = True
        return state

    def force(name: str) -> PlatformState:
        """Enables whatever YAML said (weixin, wecom, feishu, ...); from the main line on, as `enable_from_env`."""
        if model.explicit_disable_beats_env:
            return enable_from_env(name)
        state = ensure(name)
        state.enabled = True
        return state

    if get("TELEGRAM_BOT_TOKEN"):
        enable_from_env("telegram").token = get("TELEGRAM_BOT_TOKEN")
    if (get("TELEGRAM_REPLY_TO_MODE", "") or "").lower() in {"off", "first", "all"}:
        ensure("telegram")
    if get("TELEGRAM_FALLBACK_IPS", ""):
        ensure("telegram")
    if get("DISCORD_BOT_TOKEN"):
        enable_from_env("discord").token = get("DISCORD_BOT_TOKEN")
    if (get("DISCORD_REPLY_TO_MODE", "") or "").lower() in {"off", "first", "all"}:
        ensure("discord")

    wa_raw = get("WHATSAPP_ENABLED", "")
    if "whatsapp" in platforms:
        if wa_raw.lower() in {"false", "0", "no"}:
            platforms["whatsapp"].enabled = False
        elif enabled_flag(wa_raw):
            force("whatsapp")
    elif enabled_flag(wa_raw):
        platforms["whatsapp"] = PlatformState(enabled=True)

    if get("WHATSAPP_CLOUD_PHONE_NUMBER_ID") and get("WHATSAPP_CLOUD_ACCESS_TOKEN"):
        force("whatsapp_cloud").extra.update(phone_number_id=get("WHATSAPP_CLOUD_PHONE_NUMBER_ID"),
                                             access_token=get("WHATSAPP_CLOUD_ACCESS_TOKEN"))

    if get("SLACK_BOT_TOKEN"):
        if "slack" not in platforms:
            platforms["slack"] = PlatformState(enabled=True)
        else:
            enable_from_env("slack")
        platforms["slack"].token = get("SLACK_BOT_TOKEN")
    model.slack_home_from_env(platforms, get)

    if get("SIGNAL_HTTP_URL") and get("SIGNAL_ACCOUNT"):
        enable_from_env("signal").extra.update(http_url=get("SIGNAL_HTTP_URL"), account=get("SIGNAL_ACCOUNT"))

    if get("MATTERMOST_TOKEN"):
        state = enable_from_env("mattermost")
        state.token = get("MATTERMOST_TOKEN")
        state.extra["url"] = get("MATTERMOST_URL", "")

    if get("MATRIX_ACCESS_TOKEN") or get("MATRIX_PASSWORD"):
        state = enable_from_env("matrix")
        if get("MATRIX_ACCESS_TOKEN"):
            state.token = get("MATRIX_ACCESS_TOKEN")
        state.extra["homeserver"] = get("MATRIX_HOMESERVER", "")
        for env_name, key in (("MATRIX_USER_ID", "user_id"), ("MATRIX_PASSWORD", "password")):
            if get(env_name, ""):
                state.extra[key] = get(env_name)

    if get("HASS_TOKEN"):
        force("homeassistant").token = get("HASS_TOKEN")

    email = [get(k) for k in ("EMAIL_ADDRESS", "EMAIL_PASSWORD", "EMAIL_IMAP_HOST", "EMAIL_SMTP_HOST")]
    if all(email):
        force("email").extra.update(address=email[0], imap_host=email[2], smtp_host=email[3])

    if get("TWILIO_ACCOUNT_SID"):
        force("sms").api_key = get("TWILIO_AUTH_TOKEN", "")

    model.api_server_from_env(platforms, get)

    if enabled_flag(get("WEBHOOK_ENABLED", "")):
        force("webhook")

    graph_enabled = enabled_flag(get("MSGRAPH_WEBHOOK_ENABLED", ""))
    graph_any = any(get(k, "") for k in ("MSGRAPH_WEBHOOK_PORT", "MSGRAPH_WEBHOOK_CLIENT_STATE",
                                         "MSGRAPH_WEBHOOK_ACCEPTED_RESOURCES",
                                         "MSGRAPH_WEBHOOK_ALLOWED_SOURCE_CIDRS"))
    if graph_enabled or "msgraph_webhook" in platforms or graph_any:
        state = ensure("msgraph_webhook")
        if graph_enabled:
            force("msgraph_webhook")
        if get("MSGRAPH_WEBHOOK_CLIENT_STATE", ""):
            state.extra["client_state"] = get("MSGRAPH_WEBHOOK_CLIENT_STATE")

    if get("DINGTALK_CLIENT_ID") and get("DINGTALK_CLIENT_SECRET"):
        force("dingtalk").extra.update(client_id=get("DINGTALK_CLIENT_ID"),
                                       client_secret=get("DINGTALK_CLIENT_SECRET"))

    if get("FEISHU_APP_ID") and get("FEISHU_APP_SECRET"):
        force("feishu").extra.update(app_id=get("FEISHU_APP_ID"), app_secret=get("FEISHU_APP_SECRET"),
                                     domain=get("FEISHU_DOMAIN", "feishu"),
                                     connection_mode=get("FEISHU_CONNECTION_MODE", "websocket"))

    if get("WECOM_BOT_ID") and get("WECOM_SECRET"):
        force("wecom").extra.update(bot_id=get("WECOM_BOT_ID"), secret=get("WECOM_SECRET"))

    if get("WECOM_CALLBACK_CORP_ID") and get("WECOM_CALLBACK_CORP_SECRET"):
        force("wecom_callback").extra.update(corp_id=get("WECOM_CALLBACK_CORP_ID"),
                                             corp_secret=get("WECOM_CALLBACK_CORP_SECRET"))

    if get("WEIXIN_TOKEN") or get("WEIXIN_ACCOUNT_ID"):
        state = force("weixin")
        if get("WEIXIN_TOKEN"):
            state.token = get("WEIXIN_TOKEN")
        if get("WEIXIN_ACCOUNT_ID"):
            state.extra["account_id"] = get("WEIXIN_ACCOUNT_ID")
        for env_name, key in (("WEIXIN_DM_POLICY", "dm_policy"), ("WEIXIN_GROUP_POLICY", "group_policy")):
            value = get(env_name, "").strip().lower()
            if value:
                state.extra[key] = value
        for env_name, key in (("WEIXIN_ALLOWED_USERS", "allow_from"),
                              ("WEIXIN_GROUP_ALLOWED_USERS", "group_allow_from")):
            value = get(env_name, "").strip()
            if value:
                state.extra[key] = value

    if get("BLUEBUBBLES_SERVER_URL") and get("BLUEBUBBLES_PASSWORD"):
        force("bluebubbles")

    if get("QQ_APP_ID") or get("QQ_CLIENT_SECRET"):
        state = force("qqbot")
        for env_name, key in (("QQ_APP_ID", "app_id"), ("QQ_CLIENT_SECRET", "client_secret")):
            if get(env_name):
                state.extra[key] = get(env_name)
        for env_name, key in (("QQ_ALLOWED_USERS", "allow_from"), ("QQ_GROUP_ALLOWED_USERS", "group_allow_from")):
            value = get(env_name, "").strip()
            if value:
                state.extra[key] = value

    yb_id = get("YUANBAO_APP_ID") or get("YUANBAO_APP_KEY")
    if yb_id and get("YUANBAO_APP_SECRET"):
        state = force("yuanbao")
        state.extra.update(app_id=yb_id, app_secret=get("YUANBAO_APP_SECRET"))
        for env_name, key in (("YUANBAO_DM_POLICY", "dm_policy"), ("YUANBAO_GROUP_POLICY", "group_policy")):
            if value := get(env_name, ""):
                state.extra[key] = value.strip().lower()
        for env_name, key in (("YUANBAO_DM_ALLOW_FROM", "dm_allow_from"),
                              ("YUANBAO_GROUP_ALLOW_FROM", "group_allow_from")):
            if get(env_name):
                state.extra[key] = get(env_name)

    for env_name, key in (("SESSION_IDLE_MINUTES", "idle_minutes"), ("SESSION_RESET_HOUR", "at_hour")) \
            if model.has_session_reset else ():
        if raw := get(env_name, ""):
            try:
                reset[key] = int(raw)
            except ValueError:
                pass


def api_server_from_env(platforms: dict[str, PlatformState], get: Callable[[str, str], str],
                        enabled_flag: Callable[[str], bool]) -> None:
    """0.19.0 gateway/config.py:2005-2014: API_SERVER_ENABLED or any API_SERVER_KEY enables it, whatever
    YAML said."""
    if enabled_flag(get("API_SERVER_ENABLED", "")) or get("API_SERVER_KEY", ""):
        state = platforms.setdefault("api_server", PlatformState())
        state.enabled = True
        if get("API_SERVER_KEY", ""):
            state.extra["key"] = get("API_SERVER_KEY", "")


def apply_relay(platforms: dict[str, PlatformState], environ: dict[str, str]) -> None:
    """The relay block runs after the plugin pass and honors explicit disables."""
    url = (environ.get("GATEWAY_RELAY_URL") or "").strip()
    existing = platforms.get("relay")
    if not url and existing is not None:
        url = str(existing.extra.get("relay_url") or "").strip()
    if not url:
        return
    if existing is None:  # platforms maps names to PlatformState, never to None
        platforms["relay"] = PlatformState(enabled=True)
    elif not existing.enabled and not existing.extra.get("_enabled_explicit", False):
        existing.enabled = True
