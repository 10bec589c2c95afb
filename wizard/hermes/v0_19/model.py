"""The model of Hermes 0.19.0: the first written, so the shared loader's own code is 0.19's behaviour.

Its answers delegate to the 0.19 pieces of the loader beside it (`envfile`'s decoder and known
keys, generated from 0.19.0 into `env_keys.txt`; `envrules.is_truthy`).
"""

from __future__ import annotations

from hermes_wizard.hermes.model import Model
from hermes_wizard.hermes.v0_19 import envfile, envrules


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
    unit_prevents_exit_78 = True

    def decode_env(self, raw: bytes) -> tuple[str, str, bool]:
        return envfile.decode_like_hermes_019(raw, self.env_keys())

    def env_keys(self) -> frozenset[str]:
        return envfile.known_keys()

    def enabled_flag(self, value: str) -> bool:
        return envrules.is_truthy(value)  # strips, accepts on (utils.is_truthy_value)

    def authorizer(self):
        from hermes_wizard.hermes.v0_19.authz import Authorizer  # only `access` and its checks pay for it

        return Authorizer()
