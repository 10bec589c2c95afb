"""Hermes 0.19's env-variable rules: truthiness, and the built-in env override blocks.

`apply_env_overrides` runs `_apply_env_overrides` of `gateway/config.py`, whose blocks are a table in
`envblocks` (the order and quirks are kept there).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hermes_wizard.hermes.loader.envblocks import ENV_OVERRIDE_BLOCKS, Overrides
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


def apply_env_overrides(platforms: dict[str, PlatformState], environ: dict[str, str], reset: dict[str, Any],
                        model: Model) -> None:
    """The env override blocks (`envblocks.ENV_OVERRIDE_BLOCKS`), in Hermes's order, over `platforms` and the
    session-reset policy `reset`; `model` answers where versions differ (its `*_ENABLED` truthiness, the API
    server's block, SLACK_HOME_CHANNEL's, whether an explicit disable beats env credentials)."""
    run = Overrides(platforms, environ, reset, model)
    for step in ENV_OVERRIDE_BLOCKS:
        step(run)


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
