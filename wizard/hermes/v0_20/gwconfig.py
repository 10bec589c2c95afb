"""What Hermes 0.20.1's `load_gateway_config` (gateway/config.py) decides differently from 0.19.0's.

Citations are into the 0.20.1 wheel.

- **`gateway.<platform>` blocks** (:1525-1541): after `gateway.platforms` and `platforms`, every key of
  `gateway:` that `Platform(key)` accepts (but `platforms`) and whose value is a mapping is merged the
  same way, `enabled:` and its explicit mark included.
- **The API server's YAML keys** (:1543-1555): `port`, `key`, `host`, `cors_origins` and `model_name`
  written in its block move into its `extra` (popped from the block).
- **The shared-key loop** (:1586-1700) also copies `send_read_receipts`, and for webhook / msgraph_webhook
  `port`, `host`, `secret`, for the API server `port`, `host`, each unless the block's `extra` has it: a
  block holding only such a key now creates the platform's entry — for WhatsApp, whose `is_connected`
  is "any extra", that is enough to enable it.
- **API_SERVER_KEY** (:2202-2245): only a usable key (`has_usable_secret`, 16 characters or more, not a
  placeholder; hermes_cli/auth.py:665-674) turns the API server on — API_SERVER_ENABLED alone no longer
  does — and an explicit `enabled: false` in YAML now wins over it.
- **SLACK_HOME_CHANNEL** (:2062-2077) creates a (disabled) Slack entry when there was none.
- `from_dict` reads two new keys, `multiplex_profile_allowlist` and `loop_watchdog` (:1188-1209), through
  coercions that never raise; WeCom callback's host default moved (:2397-2400): neither decides a start.

Contract: pure functions of their arguments; each raises only where Hermes raises (inside the YAML guard).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hermes_wizard.hermes.loader.envrules import usable_secret
from hermes_wizard.hermes.loader.resolve import shared_keys as shared_keys_019
from hermes_wizard.hermes.loader.state import PlatformState

if TYPE_CHECKING:
    from collections.abc import Callable

    from hermes_wizard.core.shapes import Parsed

API_KEY_MIN = 16  # `_has_usable_api_server_key` (gateway/config.py:867-881)
_API_BRIDGED = ("port", "key", "host", "cors_origins", "model_name")
_LISTENER_KEYS = {"webhook": ("port", "host", "secret"), "msgraph_webhook": ("port", "host", "secret"),
                  "api_server": ("port", "host")}


def merge_gateway_blocks(gateway_section: Any, platforms_data: Parsed, merge: Callable[[Any], None],
                         platform_value: Callable[[object], str | None]) -> None:
    """`gateway.<platform>` mappings merged like `platforms`, then the API server's keys moved into `extra`."""
    if isinstance(gateway_section, dict):
        nested = {key: value for key, value in gateway_section.items()
                  if key != "platforms" and platform_value(key) is not None and isinstance(value, dict)}
        if nested:
            merge(nested)
    api = platforms_data.get("api_server")
    if isinstance(api, dict):
        extra = api.get("extra")
        if not isinstance(extra, dict):
            extra = api["extra"] = {}
        for key in _API_BRIDGED:
            if key in api and key not in extra:
                extra[key] = api.pop(key)


def shared_keys(name: str, block: Parsed) -> dict[str, Any]:
    """0.19.0's shared keys, `send_read_receipts`, and the listeners' port/host/secret."""
    bridged = shared_keys_019(name, block)
    if "send_read_receipts" in block:
        bridged["send_read_receipts"] = block["send_read_receipts"]
    for key in _LISTENER_KEYS.get(name, ()):
        # `not in block.get("extra", {})`, as Hermes writes it: a non-mapping `extra` is searched, or raises
        if key in block and key not in block.get("extra", {}):
            bridged[key] = block[key]
    return bridged


def api_server_from_env(platforms: dict[str, PlatformState], get: Callable[[str, str], str]) -> None:
    key = get("API_SERVER_KEY", "")
    if not usable_secret(key) or len(key.strip()) < API_KEY_MIN:
        return
    state = platforms.setdefault("api_server", PlatformState())
    explicit = state.extra.pop("_enabled_explicit", False)
    if not explicit or state.enabled:
        state.enabled = True
    state.extra["key"] = key


def slack_home_from_env(platforms: dict[str, PlatformState], get: Callable[[str, str], str]) -> None:
    if get("SLACK_HOME_CHANNEL", ""):
        platforms.setdefault("slack", PlatformState())
