"""The model of Hermes 0.19.0, the newest modelled: the shared loader's default pieces, and 0.19's own data.

Its answers delegate to the shared loader (wizard/hermes/loader/: `envfile`'s 0.19 decoder,
`envrules.is_truthy`; wizard/hermes/access/: the default authorizer) and to the `.env` names 0.19.0
knows, generated from it into `env_keys.txt` beside this file (scripts/hermes-env-keys.py).
The authorizer is imported lazily in `authorizer()`: the pre-start gate loads this model and never asks
who may talk (the authorizer and its file readers, ~15 ms).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.hermes.loader import envfile, envrules
from hermes_wizard.hermes.model import Model

if TYPE_CHECKING:
    from hermes_wizard.hermes.access.authz import Authorizer


@functools.lru_cache(maxsize=1)
def known_keys() -> frozenset[str]:
    """Hermes 0.19.0's `set(OPTIONAL_ENV_VARS) | _EXTRA_ENV_KEYS`: the names that split a glued line."""
    # A plain file beside this module (a wheel installs it there too): importlib.resources would cost
    # the check path more than the read itself.
    return frozenset(Path(__file__).with_name("env_keys.txt").read_text(encoding="utf-8").split())


class Hermes019(Model):
    version = "0.19.0"
    loads_op_env = True
    reads_utf16_env = True
    nested_gateway_fallbacks = True
    parses_profile_routes = True
    discord_seeds_extra = True
    telegram_free_response_topics = True
    dingtalk_nested_allowed_users = True
    google_chat_http_mode = True

    def decode_env(self, raw: bytes) -> tuple[str, str, bool]:
        return envfile.decode_like_hermes_019(raw, self.env_keys())

    def env_keys(self) -> frozenset[str]:
        return known_keys()

    def enabled_flag(self, value: str) -> bool:
        return envrules.is_truthy(value)  # strips, accepts on (utils.is_truthy_value)

    def authorizer(self) -> Authorizer:
        from hermes_wizard.hermes.access.authz import Authorizer  # only `access` and its checks pay for it

        return Authorizer()
