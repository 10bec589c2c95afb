"""The main line's platform blocks: adapter keys written directly under a platform reach its `extra`.

Upstream's `PlatformConfig.from_dict` (gateway/config.py, cited by gateway/config_loader.py at 00067189) promotes
every key of a platform block that is not one of its typed fields into `extra`, an explicit `extra:` value winning
a clash (#10206); the YAML phase's shared-key loop does the same for a top-level `<platform>:` block
(`_bridged_keys(root_block=True)`), before the shared keys.  0.20.1 kept only `extra:` and the shared keys, so
`platforms: {WeiXin: {dm_policy: open}}` (a key the exact-name shared loop never finds) reached no policy there
and reaches `extra` now.
"""

from __future__ import annotations

from typing import Any

# `PlatformConfig._TYPED_KEYS`: the keys its typed fields consume.
TYPED_KEYS = frozenset({"enabled", "token", "api_key", "home_channel", "reply_to_mode", "channel_overrides", "extra",
                        "gateway_restart_notification", "typing_indicator", "typing_status_text"})


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def platform_extra(block: dict[str, Any]) -> dict[str, Any]:
    """A block's untyped keys with its `extra:` over them: what `from_dict` keeps and the top-level loop promotes."""
    return {**{key: value for key, value in block.items() if key not in TYPED_KEYS}, **_mapping(block.get("extra", {}))}
