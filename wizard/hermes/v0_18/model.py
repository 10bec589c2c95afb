"""The model of Hermes 0.18.0, 0.18.1 and 0.18.2: 0.19.0's model, minus what 0.19 added or made defensive.

0.18.1 → 0.18.2 changed only the version string, so one class models both; 0.18.0 differs
from 0.18.1 in `.op.env` loading and the truthiness of four `*_ENABLED` flags.  The startup
gate, the env override blocks, placeholder tokens and the platform set are the same as in
0.19.0 (shared, not copied).  Citations are into the 0.18.2 wheel.
The authorizer is imported lazily in `authorizer()`: the pre-start gate loads this model and never asks
who may talk (the authorizer and its file readers, ~15 ms).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hermes_wizard.hermes.v0_18 import loader
from hermes_wizard.hermes.v0_19.model import Hermes019

if TYPE_CHECKING:
    from hermes_wizard.core.shapes import Parsed
    from hermes_wizard.hermes.access.authz import Authorizer

# Added to Hermes's known .env names in 0.19.0 (0.18.x knows 328 names, a strict subset).
KEYS_ADDED_IN_0_19 = frozenset({
    "DEEPINFRA_API_KEY", "DEEPINFRA_BASE_URL", "FIREWORKS_API_KEY", "GOOGLE_CHAT_HTTP_EVENTS_AUDIENCE",
    "GOOGLE_CHAT_HTTP_EVENTS_SERVICE_ACCOUNT_EMAIL", "GOOGLE_CHAT_HTTP_EVENTS_URL", "UPSTAGE_API_KEY",
    "UPSTAGE_BASE_URL"})

# hermes_cli/config.py's plugin check_fns that also read the process environment (0.18.x only):
# mattermost/adapter.py:53 and homeassistant/adapter.py:42.
_CHECK_FN_ENV = {"mattermost": ("MATTERMOST_TOKEN", "MATTERMOST_URL"), "homeassistant": ("HASS_TOKEN",)}


class Hermes0182(Hermes019):
    version = "0.18.2"
    reads_utf16_env = False  # env_loader.py:190-193 reads utf-8-sig, errors=replace: the first key is lost
    nested_gateway_fallbacks = False  # gateway.session_reset & co. are 0.19 (0.19.0 config.py:1245)
    parses_profile_routes = False  # gateway/profile_routing.py is 0.19's
    discord_seeds_extra = False  # the discord hook returns None (0.18.2 config.py:8202)
    telegram_free_response_topics = False
    dingtalk_nested_allowed_users = False
    google_chat_http_mode = False  # project and subscription are both required (google_chat/adapter.py:2946)

    def decode_env(self, raw: bytes) -> tuple[str, str, bool]:
        return loader.decode_env(raw, self.env_keys())

    def env_keys(self) -> frozenset[str]:
        return super().env_keys() - KEYS_ADDED_IN_0_19

    def check_gateway_section(self, yaml_cfg: Parsed) -> None:
        loader.check_gateway_section(yaml_cfg)

    def check_from_dict(self, gw_data: Any) -> None:
        loader.check_from_dict(gw_data)

    def check_fn_env(self, name: str) -> tuple[str, ...]:
        return _CHECK_FN_ENV.get(name, ())

    def authorizer(self) -> Authorizer:
        from hermes_wizard.hermes.v0_18.authz import Authorizer018  # allow-all flags read unstripped

        return Authorizer018()


class Hermes0181(Hermes0182):
    version = "0.18.1"


class Hermes0180(Hermes0182):
    version = "0.18.0"
    loads_op_env = False  # .op.env arrived in 0.18.1 (0.18.2 env_loader.py:249)

    def enabled_flag(self, value: str) -> bool:
        # 0.18.0 config.py:1323: `os.getenv(...).lower() in ("true", "1", "yes")` — no strip, no "on".
        return value.lower() in ("true", "1", "yes")
