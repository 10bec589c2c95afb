"""The main line's relay block (gateway/config_env.py `_relay`, upstream main; the same in the 0.22.2 fork).

Relay-exclusive: a `GATEWAY_RELAY_URL` in the environment means the connector owns every messaging connection,
so after the relay itself is enabled every other enabled platform is switched off — explicitly enabled ones
too — except the non-messaging surfaces (local, api_server, webhook).  A relay URL from YAML only keeps 0.19's
additive behaviour; `GATEWAY_RELAY_ALLOW_DIRECT_PLATFORMS` (truthy) opts out; a relay YAML disabled
explicitly owns nothing.  This decides which platforms the startup rule sees: a refusing WhatsApp behind an
env relay URL no longer refuses.
"""

from __future__ import annotations

from hermes_wizard.hermes.loader.envrules import apply_relay, is_truthy
from hermes_wizard.hermes.loader.state import PlatformState

NOT_MESSAGING = frozenset({"relay", "local", "api_server", "webhook"})


def apply_exclusive_relay(platforms: dict[str, PlatformState], environ: dict[str, str]) -> None:
    apply_relay(platforms, environ)
    from_env = (environ.get("GATEWAY_RELAY_URL") or "").strip()
    relay = platforms.get("relay")
    if not from_env or relay is None or not relay.enabled:
        return
    if is_truthy(environ.get("GATEWAY_RELAY_ALLOW_DIRECT_PLATFORMS") or ""):
        return
    for name, state in platforms.items():
        if name not in NOT_MESSAGING:
            state.enabled = False
