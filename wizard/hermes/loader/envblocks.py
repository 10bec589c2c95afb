"""Hermes's env override blocks as a table: which variable runs a platform's block, how the block enables the
platform, and which variable sets which config field, read how.

`ENV_OVERRIDE_BLOCKS` follows `_apply_env_overrides` in `gateway/config.py` (lines 1698-2368 of 0.19.0) block
by block, in the same order, because insertion order decides which violation the startup gate names.  Only
what affects enablement, tokens, policies and allowlists is kept; cosmetic keys are left out.  A block whose
logic is not one trigger, one enablement and a list of fields is a small function (WhatsApp's tri-state, the
Graph webhook, the session reset); one that differs by Hermes version asks the model (`Model` hooks).

Contract: a step is called with one `Overrides` and changes only its `platforms` and `reset`; the table is
read in order by `envrules.apply_env_overrides` and nowhere else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, overload

from hermes_wizard.core.values import Value, value_class
from hermes_wizard.hermes.loader.state import PlatformState

if TYPE_CHECKING:
    from hermes_wizard.hermes.model import Model

REPLY_TO_MODES = frozenset({"off", "first", "all"})


class Overrides:
    """What one run of the blocks reads and changes: the platforms built so far, the process environment,
    the session-reset policy, and the model that answers where versions differ."""

    def __init__(self, platforms: dict[str, PlatformState], environ: dict[str, str], reset: dict[str, Any],
                 model: Model) -> None:
        self.platforms, self.environ, self.reset, self.model = platforms, environ, reset, model

    @overload
    def get(self, name: str) -> str | None: ...
    @overload
    def get(self, name: str, default: str) -> str: ...

    def get(self, name: str, default: str | None = None) -> str | None:
        """`os.getenv(name, default)`."""
        value = self.environ.get(name)
        return default if value is None else value

    def ensure(self, name: str) -> PlatformState:
        """The platform's config, made (disabled) when missing; its enablement untouched."""
        if name not in self.platforms:
            self.platforms[name] = PlatformState()
        return self.platforms[name]

    def enable(self, name: str) -> PlatformState:
        """`_enable_from_env`: enabled, unless YAML said `enabled: false` explicitly."""
        state = self.platforms.get(name)
        if state is None:
            state = self.platforms[name] = PlatformState(enabled=True)
        elif not state.enabled and not state.extra.get("_enabled_explicit", False):
            state.enabled = True
        return state

    def force(self, name: str) -> PlatformState:
        """Enabled whatever YAML said; from the main line on (`explicit_disable_beats_env`), as `enable`."""
        if self.model.explicit_disable_beats_env:
            return self.enable(name)
        state = self.ensure(name)
        state.enabled = True
        return state


Step = Callable[[Overrides], None]
ENABLE, FORCE, ENSURE = Overrides.enable, Overrides.force, Overrides.ensure


@value_class
class EnvField(Value):
    """One config field a block sets: `target` is `token` or a key of `extra`; the value is the
    first non-empty of `sources`, read as `read` says:
      "set":            the value as it is, when non-empty;
      "always":         `os.getenv(source, default)`, even empty;
      "stripped":       stripped, when that is non-empty;
      "stripped lower": stripped and lower-cased, when that is non-empty;
      "lower if set":   stripped and lower-cased when the raw value is non-empty (so blanks set "")."""

    target: str
    sources: tuple[str, ...]
    read: str = "set"
    default: str = ""

    def value(self, run: Overrides) -> str | None:
        """The value to set, or None to leave the field alone."""
        raw = next((value for name in self.sources if (value := run.get(name))), None)
        if self.read == "always":
            return run.get(self.sources[0], self.default)
        if raw is None:
            return None
        if self.read == "set":
            return raw
        if self.read == "lower if set":
            return raw.strip().lower()
        cleaned = raw.strip().lower() if self.read == "stripped lower" else raw.strip()
        return cleaned or None


@value_class
class EnvBlock(Value):
    """One platform's block: it runs when each group of `needs` has a non-empty variable (or when the model
    reads `flag` as enabled, or `word`'s variable lower-cased is one of `words`), then makes the platform's
    config with `enable` (`ENABLE`, `FORCE` or `ENSURE`) and sets `fields` in order."""

    platform: str
    enable: Callable[[Overrides, str], PlatformState]
    needs: tuple[tuple[str, ...], ...] = ()
    fields: tuple[EnvField, ...] = ()
    flag: str = ""
    word: str = ""
    words: frozenset[str] = frozenset()

    def runs(self, run: Overrides) -> bool:
        if self.flag:
            return run.model.enabled_flag(run.get(self.flag, ""))
        if self.word:
            return run.get(self.word, "").lower() in self.words
        return all(any(run.get(name) for name in group) for group in self.needs)

    def __call__(self, run: Overrides) -> None:
        if not self.runs(run):
            return
        state = self.enable(run, self.platform)
        for field in self.fields:
            if (value := field.value(run)) is None:
                continue
            if field.target == "token":
                state.token = value
            else:
                state.extra[field.target] = value


def each(*names: str) -> tuple[tuple[str, ...], ...]:
    """`needs` for "every one of these is set"."""
    return tuple((name,) for name in names)


def extras(*pairs: tuple[str, str], read: str = "set") -> tuple[EnvField, ...]:
    """Fields of `extra`, each (variable, key), read alike."""
    return tuple(EnvField(key, (name,), read) for name, key in pairs)


def whatsapp(run: Overrides) -> None:
    """WHATSAPP_ENABLED: a false word disables a configured WhatsApp (the only block that disables); a true
    one (as the model reads it) enables it, whatever YAML said."""
    raw = run.get("WHATSAPP_ENABLED", "")
    if "whatsapp" in run.platforms and raw.lower() in {"false", "0", "no"}:
        run.platforms["whatsapp"].enabled = False
    elif run.model.enabled_flag(raw):
        run.force("whatsapp")


def slack_home(run: Overrides) -> None:
    run.model.slack_home_from_env(run.platforms, run.get)


def api_server(run: Overrides) -> None:
    run.model.api_server_from_env(run.platforms, run.get)


GRAPH_SETTINGS = ("MSGRAPH_WEBHOOK_PORT", "MSGRAPH_WEBHOOK_CLIENT_STATE", "MSGRAPH_WEBHOOK_ACCEPTED_RESOURCES",
                  "MSGRAPH_WEBHOOK_ALLOWED_SOURCE_CIDRS")


def msgraph_webhook(run: Overrides) -> None:
    """Any Graph webhook setting (or a configured one) makes the platform's config; only the flag enables it."""
    enabled = run.model.enabled_flag(run.get("MSGRAPH_WEBHOOK_ENABLED", ""))
    if not (enabled or "msgraph_webhook" in run.platforms or any(run.get(name) for name in GRAPH_SETTINGS)):
        return
    state = run.ensure("msgraph_webhook")
    if enabled:
        run.force("msgraph_webhook")
    if client_state := run.get("MSGRAPH_WEBHOOK_CLIENT_STATE"):
        state.extra["client_state"] = client_state


def session_reset(run: Overrides) -> None:
    """SESSION_IDLE_MINUTES / SESSION_RESET_HOUR: an int each, a value that is not one ignored; versions
    without session-reset policies read neither."""
    if not run.model.has_session_reset:
        return
    for name, key in (("SESSION_IDLE_MINUTES", "idle_minutes"), ("SESSION_RESET_HOUR", "at_hour")):
        if raw := run.get(name, ""):
            try:
                run.reset[key] = int(raw)
            except ValueError:
                pass


TOKEN = "token"
ENV_OVERRIDE_BLOCKS: tuple[Step, ...] = (
    EnvBlock("telegram", ENABLE, (("TELEGRAM_BOT_TOKEN",),), (EnvField(TOKEN, ("TELEGRAM_BOT_TOKEN",)),)),
    EnvBlock("telegram", ENSURE, word="TELEGRAM_REPLY_TO_MODE", words=REPLY_TO_MODES),
    EnvBlock("telegram", ENSURE, (("TELEGRAM_FALLBACK_IPS",),)),
    EnvBlock("discord", ENABLE, (("DISCORD_BOT_TOKEN",),), (EnvField(TOKEN, ("DISCORD_BOT_TOKEN",)),)),
    EnvBlock("discord", ENSURE, word="DISCORD_REPLY_TO_MODE", words=REPLY_TO_MODES),
    whatsapp,
    EnvBlock("whatsapp_cloud", FORCE, each("WHATSAPP_CLOUD_PHONE_NUMBER_ID", "WHATSAPP_CLOUD_ACCESS_TOKEN"),
             extras(("WHATSAPP_CLOUD_PHONE_NUMBER_ID", "phone_number_id"),
                    ("WHATSAPP_CLOUD_ACCESS_TOKEN", "access_token"))),
    EnvBlock("slack", ENABLE, (("SLACK_BOT_TOKEN",),), (EnvField(TOKEN, ("SLACK_BOT_TOKEN",)),)),
    slack_home,
    EnvBlock("signal", ENABLE, each("SIGNAL_HTTP_URL", "SIGNAL_ACCOUNT"),
             extras(("SIGNAL_HTTP_URL", "http_url"), ("SIGNAL_ACCOUNT", "account"))),
    EnvBlock("mattermost", ENABLE, (("MATTERMOST_TOKEN",),),
             (EnvField(TOKEN, ("MATTERMOST_TOKEN",)), EnvField("url", ("MATTERMOST_URL",), "always"))),
    EnvBlock("matrix", ENABLE, (("MATRIX_ACCESS_TOKEN", "MATRIX_PASSWORD"),),
             (EnvField(TOKEN, ("MATRIX_ACCESS_TOKEN",)), EnvField("homeserver", ("MATRIX_HOMESERVER",), "always"),
              *extras(("MATRIX_USER_ID", "user_id"), ("MATRIX_PASSWORD", "password")))),
    EnvBlock("homeassistant", FORCE, (("HASS_TOKEN",),), (EnvField(TOKEN, ("HASS_TOKEN",)),)),
    EnvBlock("email", FORCE, each("EMAIL_ADDRESS", "EMAIL_PASSWORD", "EMAIL_IMAP_HOST", "EMAIL_SMTP_HOST"),
             extras(("EMAIL_ADDRESS", "address"), ("EMAIL_IMAP_HOST", "imap_host"),
                    ("EMAIL_SMTP_HOST", "smtp_host"))),
    EnvBlock("sms", FORCE, (("TWILIO_ACCOUNT_SID",),), ()),  # its api_key (TWILIO_AUTH_TOKEN) decides nothing
    api_server,
    EnvBlock("webhook", FORCE, flag="WEBHOOK_ENABLED"),
    msgraph_webhook,
    EnvBlock("dingtalk", FORCE, each("DINGTALK_CLIENT_ID", "DINGTALK_CLIENT_SECRET"),
             extras(("DINGTALK_CLIENT_ID", "client_id"), ("DINGTALK_CLIENT_SECRET", "client_secret"))),
    EnvBlock("feishu", FORCE, each("FEISHU_APP_ID", "FEISHU_APP_SECRET"),
             (*extras(("FEISHU_APP_ID", "app_id"), ("FEISHU_APP_SECRET", "app_secret")),
              EnvField("domain", ("FEISHU_DOMAIN",), "always", "feishu"),
              EnvField("connection_mode", ("FEISHU_CONNECTION_MODE",), "always", "websocket"))),
    EnvBlock("wecom", FORCE, each("WECOM_BOT_ID", "WECOM_SECRET"),
             extras(("WECOM_BOT_ID", "bot_id"), ("WECOM_SECRET", "secret"))),
    EnvBlock("wecom_callback", FORCE, each("WECOM_CALLBACK_CORP_ID", "WECOM_CALLBACK_CORP_SECRET"),
             extras(("WECOM_CALLBACK_CORP_ID", "corp_id"), ("WECOM_CALLBACK_CORP_SECRET", "corp_secret"))),
    EnvBlock("weixin", FORCE, (("WEIXIN_TOKEN", "WEIXIN_ACCOUNT_ID"),),
             (EnvField(TOKEN, ("WEIXIN_TOKEN",)), *extras(("WEIXIN_ACCOUNT_ID", "account_id")),
              *extras(("WEIXIN_DM_POLICY", "dm_policy"), ("WEIXIN_GROUP_POLICY", "group_policy"),
                      read="stripped lower"),
              *extras(("WEIXIN_ALLOWED_USERS", "allow_from"), ("WEIXIN_GROUP_ALLOWED_USERS", "group_allow_from"),
                      read="stripped"))),
    EnvBlock("bluebubbles", FORCE, each("BLUEBUBBLES_SERVER_URL", "BLUEBUBBLES_PASSWORD")),
    EnvBlock("qqbot", FORCE, (("QQ_APP_ID", "QQ_CLIENT_SECRET"),),
             (*extras(("QQ_APP_ID", "app_id"), ("QQ_CLIENT_SECRET", "client_secret")),
              *extras(("QQ_ALLOWED_USERS", "allow_from"), ("QQ_GROUP_ALLOWED_USERS", "group_allow_from"),
                      read="stripped"))),
    EnvBlock("yuanbao", FORCE, (("YUANBAO_APP_ID", "YUANBAO_APP_KEY"), ("YUANBAO_APP_SECRET",)),
             (EnvField("app_id", ("YUANBAO_APP_ID", "YUANBAO_APP_KEY")),
              *extras(("YUANBAO_APP_SECRET", "app_secret")),
              *extras(("YUANBAO_DM_POLICY", "dm_policy"), ("YUANBAO_GROUP_POLICY", "group_policy"),
                      read="lower if set"),
              *extras(("YUANBAO_DM_ALLOW_FROM", "dm_allow_from"), ("YUANBAO_GROUP_ALLOW_FROM", "group_allow_from")))),
    session_reset,
)
