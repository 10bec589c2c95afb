"""Each bundled plugin platform's rules in Hermes 0.19, as tables: its `is_connected` (`CONNECTED`) and its
YAML→env hook (`YAML_TO_ENV`, with `MORE_HOOK` for what a hook does beyond copying keys).

`plugins` runs them (the plugin enable pass, `apply_yaml_hooks`); a version whose plugins differ overrides the
model's hooks and reuses these rows where they still hold.

Contract: pure functions of their arguments; no imports of Hermes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from hermes_wizard.core.shapes import Parsed
    from hermes_wizard.hermes.model import Model


def env_value(environ: dict[str, str], dotenv_simple: Mapping[str, str], key: str) -> str:
    """`hermes_cli.config.get_env_value`: os.environ when present, else Hermes's simple .env parse."""
    if key in environ:
        return environ[key]
    return dotenv_simple.get(key) or ""


def join(value: Any) -> str:
    return ",".join(str(v) for v in value) if isinstance(value, list) else str(value)


TELEGRAM_EXTRA_SKIP = {"reply_prefix", "reply_in_thread", "reply_to_mode", "unauthorized_dm_behavior",
                       "notice_delivery", "require_mention", "channel_skill_bindings", "channel_prompts",
                       "gateway_restart_notification", "allow_from", "allow_admin_from", "dm_policy", "group_policy"}


# The YAML→env bridges of each plugin's hook, in its order: (YAML key, variable, how). "lower": the value
# lower-cased, when the key is there; "join": a list joined with commas, when the value is not None. The
# variable is set only where the environment leaves it unset.
YAML_TO_ENV: dict[str, tuple[tuple[str, str, str], ...]] = {
    "feishu": (("allow_bots", "FEISHU_ALLOW_BOTS", "lower"),),
    "matrix": (("allowed_users", "MATRIX_ALLOWED_USERS", "join"),),
    "slack": (("allow_bots", "SLACK_ALLOW_BOTS", "lower"),),
    "telegram": (("allow_bots", "TELEGRAM_ALLOW_BOTS", "lower"),  # e.g. telegram/adapter.py:9317
                 ("allow_from", "TELEGRAM_ALLOWED_USERS", "join"),
                 ("group_allow_from", "TELEGRAM_GROUP_ALLOWED_USERS", "join"),
                 ("group_allowed_chats", "TELEGRAM_GROUP_ALLOWED_CHATS", "join")),  # adapter.py:9370
    "whatsapp": (("dm_policy", "WHATSAPP_DM_POLICY", "lower"), ("group_policy", "WHATSAPP_GROUP_POLICY", "lower"),
                 ("allow_from", "WHATSAPP_ALLOWED_USERS", "join"),
                 ("group_allow_from", "WHATSAPP_GROUP_ALLOWED_USERS", "join")),
}


def yaml_hook(name: str, block: Parsed, yaml_cfg: Parsed, gateway_platforms: Any,
              set_if_unset: Callable[[str, str], None], model: Model) -> Parsed | None:
    """A plugin's YAML hook: its rows of `YAML_TO_ENV`, then what its own code does beyond them (`MORE_HOOK`);
    the `extra` keys it seeds, or None."""
    for key, env_name, how in YAML_TO_ENV.get(name, ()):
        if how == "lower" and key in block:
            set_if_unset(env_name, str(block[key]).lower())
        elif how == "join" and block.get(key) is not None:
            set_if_unset(env_name, join(block[key]))
    more = MORE_HOOK.get(name)
    return more(block, yaml_cfg, gateway_platforms, set_if_unset, model) if more is not None else None


def _telegram_seeds(block: Parsed, yaml_cfg: Parsed, gateway_platforms: Any,
                    set_if_unset: Callable[[str, str], None], model: Model) -> Parsed | None:
    """The adapter settings Telegram's hook copies into `extra`, then its `extra` mapping's other keys."""
    keys: tuple[str, ...] = ("disable_topic_auto_rename", "guest_mode", "disable_link_previews",
                             "observe_unmentioned_group_messages")
    if model.telegram_free_response_topics:
        keys += ("free_response_topics",)
    seeded = {key: block[key] for key in keys if key in block}
    extra = block.get("extra")
    if isinstance(extra, dict):
        for key, value in extra.items():
            if key not in TELEGRAM_EXTRA_SKIP:
                seeded.setdefault(key, value)
    return seeded


def _discord_hook(block: Parsed, yaml_cfg: Parsed, gateway_platforms: Any,
                  set_if_unset: Callable[[str, str], None], model: Model) -> Parsed | None:
    """DISCORD_ALLOWED_USERS from `allow_from` (else `platforms.discord.extra.allow_from`); the websocket and
    backfill settings seeded into `extra` where the model says so."""
    if "allow_from" in block:
        allow = block["allow_from"]
    else:
        nested_extra = _nested_extra(yaml_cfg.get("platforms"), "discord")
        allow = nested_extra.get("allow_from") if isinstance(nested_extra, dict) else None
    if allow is not None:
        set_if_unset("DISCORD_ALLOWED_USERS", join(allow))
    if not model.discord_seeds_extra:
        return None
    merged = {**(block.get("extra") or {}), **block}
    seeded = {}
    if isinstance(merged.get("missed_message_backfill"), dict):
        seeded["missed_message_backfill"] = merged["missed_message_backfill"]
    for key, alias in (("websocket_liveness_interval_seconds", "liveness_interval_seconds"),
                       ("websocket_liveness_failure_threshold", "liveness_failure_threshold"),
                       ("websocket_heartbeat_ack_max_age_seconds", None),
                       ("websocket_max_latency_seconds", None)):
        value = merged.get(key, merged.get(alias) if alias else None)
        if value is not None:
            seeded[key] = value
    return seeded


def _dingtalk_hook(block: Parsed, yaml_cfg: Parsed, gateway_platforms: Any,
                   set_if_unset: Callable[[str, str], None], model: Model) -> Parsed | None:
    """DINGTALK_ALLOWED_USERS from `allowed_users`, else (where the model says so) the first `extra` that has it."""
    allowed = block.get("allowed_users")
    if allowed is None and model.dingtalk_nested_allowed_users:
        for source in (block.get("extra"), _nested_extra(gateway_platforms, "dingtalk"),
                       _nested_extra(yaml_cfg.get("platforms"), "dingtalk")):
            if isinstance(source, dict) and source.get("allowed_users") is not None:
                allowed = source["allowed_users"]
                break
    if allowed is not None:
        set_if_unset("DINGTALK_ALLOWED_USERS", join(allowed))
    return None


# What a plugin's hook does beyond its YAML_TO_ENV rows: (block, config.yaml, gateway.platforms, set-if-unset,
# model) -> the `extra` keys it seeds, or None
MORE_HOOK: dict[str, Callable[[Parsed, Parsed, Any, Callable[[str, str], None], Model], Parsed | None]] = {
    "dingtalk": _dingtalk_hook, "discord": _discord_hook, "telegram": _telegram_seeds}


def _nested_extra(source: Any, name: str) -> Any:
    block = source.get(name) if isinstance(source, dict) else None
    return block.get("extra") if isinstance(block, dict) else None


class Probe:
    """What an `is_connected` reads: the probe config's `extra`, the process environment (`get`), the same
    with Hermes's `.env` fallback (`env_value`: `gev`), and the model."""

    def __init__(self, extra: Parsed, env: dict[str, str], simple: Mapping[str, str], model: Model) -> None:
        self.extra, self.env, self.simple, self.model = extra, env, simple, model

    def get(self, key: str) -> str:
        return self.env.get(key, "")

    def gev(self, key: str) -> str:
        return env_value(self.env, self.simple, key)


def _set_in_env(*names: str) -> Callable[[Probe], bool]:
    """Connected when each variable (`get_env_value`: os.environ, else `.env`) is set, blanks aside."""
    return lambda probe: all(probe.gev(name).strip() for name in names)


def _in_env_or_extra(*pairs: tuple[str, str]) -> Callable[[Probe], bool]:
    """Connected when each (variable, `extra` key) pair has one set: os.environ's, else the config's."""
    return lambda probe: all(probe.get(name) or probe.extra.get(key) for name, key in pairs)


def _in_extra(*keys: str) -> Callable[[Probe], bool]:
    """Connected when one of these `extra` keys is set."""
    return lambda probe: any(probe.extra.get(key) for key in keys)


def _email_connected(probe: Probe) -> bool:
    return bool(probe.extra.get("address")) or bool(probe.gev("EMAIL_ADDRESS").strip())


def _google_chat_connected(probe: Probe) -> bool:
    http = bool(probe.extra.get("http_events_url")) and probe.model.google_chat_http_mode
    return http or bool(probe.extra.get("project_id") and probe.extra.get("subscription_name"))


def _matrix_connected(probe: Probe) -> bool:
    homeserver = probe.extra.get("homeserver") or probe.gev("MATRIX_HOMESERVER") or ""
    token = probe.gev("MATRIX_ACCESS_TOKEN") or probe.gev("MATRIX_PASSWORD") or ""
    return bool(str(homeserver).strip() and str(token).strip())


def _whatsapp_connected(probe: Probe) -> bool:
    return bool(probe.extra) or probe.gev("WHATSAPP_ENABLED").strip().lower() in {"true", "1", "yes"}


# Each bundled plugin's `is_connected`, by platform; a platform not here is never connected.
CONNECTED: dict[str, Callable[[Probe], bool]] = {
    "dingtalk": _in_env_or_extra(("DINGTALK_CLIENT_ID", "client_id"), ("DINGTALK_CLIENT_SECRET", "client_secret")),
    "discord": _set_in_env("DISCORD_BOT_TOKEN"),
    "email": _email_connected,
    "feishu": _in_extra("app_id"),
    "google_chat": _google_chat_connected,
    "homeassistant": _set_in_env("HASS_TOKEN"),
    "irc": _in_env_or_extra(("IRC_SERVER", "server"), ("IRC_CHANNEL", "channel")),
    "line": _in_env_or_extra(("LINE_CHANNEL_ACCESS_TOKEN", "channel_access_token"),
                             ("LINE_CHANNEL_SECRET", "channel_secret")),
    "matrix": _matrix_connected,
    "mattermost": _set_in_env("MATTERMOST_TOKEN", "MATTERMOST_URL"),
    "ntfy": _in_env_or_extra(("NTFY_TOPIC", "topic")),
    "photon": _in_env_or_extra(("PHOTON_PROJECT_ID", "project_id"), ("PHOTON_PROJECT_SECRET", "project_secret")),
    "raft": _in_extra("enabled", "bridge_token"),
    "simplex": _in_env_or_extra(("SIMPLEX_WS_URL", "ws_url")),
    "slack": _set_in_env("SLACK_BOT_TOKEN"),
    "sms": _set_in_env("TWILIO_ACCOUNT_SID"),
    "teams": _in_env_or_extra(("TEAMS_CLIENT_ID", "client_id"), ("TEAMS_CLIENT_SECRET", "client_secret"),
                              ("TEAMS_TENANT_ID", "tenant_id")),
    "telegram": _set_in_env("TELEGRAM_BOT_TOKEN"),
    "wecom": _in_extra("bot_id"),
    "wecom_callback": _in_extra("corp_id", "apps"),
    "whatsapp": _whatsapp_connected,
}


def is_connected(name: str, extra: Parsed, env: dict[str, str], simple: Mapping[str, str], model: Model) -> bool:
    """`is_connected` on the probe config (enabled=True, only `extra` kept): the platform's row of `CONNECTED`."""
    rule = CONNECTED.get(name)
    return rule is not None and bool(rule(Probe(extra, env, simple, model)))
