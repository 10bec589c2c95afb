"""Hermes 0.20.1's plugin platforms: its two new ones, and the enable pass's split of `check_fn`.

Citations are into the 0.20.1 wheel.

- **Two new bundled platforms**, first in the registry's (sorted) order: `a2a` (plugins/platforms/a2a/
  __init__.py:23-45: `check_fn` always true; connected when its `extra.enabled` is truthy or `A2A_PORT` is
  set) and `buzz` (plugins/platforms/buzz/adapter.py:1257-1359: a relay URL and a Nostr key, both needed by
  `check_fn`, `is_connected` and the seed; its YAML hook copies `buzz.extra` keys into BUZZ_* variables).
  Buzz's key can also come from a credentials JSON (`BUZZ_CREDENTIALS_FILE`, `extra.credentials_file`,
  else `~/.config/buzz/*credentials*.json`, :248-275): outside the home, so not modelled (BUZZ_PRIVATE_KEY
  is); a key kept only there reads as missing here.
- **`ensure_deps_fn`** (gateway/config.py:2697-2717): a platform whose SDK is missing is enabled anyway when
  it registered an installer, which `create_adapter()` runs at start.  DingTalk, Discord, Feishu, Matrix,
  Slack, Teams, Telegram and WeCom callback did (their `register_platform` calls); their `check_fn`
  (now a passive import probe: dingtalk/adapter.py:165-176 no longer asks for DINGTALK_CLIENT_ID, matrix/
  adapter.py:955-970 no longer for a homeserver and token) no longer decides anything, `is_connected` does.
- **Photon** (photon/adapter.py:421-470): with the sidecar's deps missing, `check_fn` still passes when npm
  is on PATH and the sidecar folder is writable (it installs at connect): writability is assumed.

Everything else (`is_connected`, the seeds, the other `check_fn`s) reads the same as 0.19.0's; the
per-profile secret reads that replaced `os.getenv` there fall through to the environment outside a
multiplexer (agent/secret_scope.py:132-180).

Contract: pure functions of their arguments (`which` reads PATH, as Hermes's `shutil.which` does).
`json` is imported lazily in the Telegram hook, only for a YAML `mention_patterns`: the gate loads this module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hermes_wizard.core.pathsearch import which
from hermes_wizard.hermes.loader import plugin_rules, plugins

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from hermes_wizard.core.shapes import Parsed
    from hermes_wizard.hermes.loader.plugins import HostFacts
    from hermes_wizard.hermes.model import Model

PLUGIN_ORDER = ("a2a", "buzz") + plugins.PLUGIN_ORDER
PLUGIN_ORDER_EXTRA = ("a2a", "buzz") + plugins.PLUGIN_ORDER_EXTRA  # plugin-only names, after the enum's
HOOK_ORDER = ("buzz",) + plugins.HOOK_ORDER  # platforms with an apply_yaml_config_fn, in registry order
INSTALLS_ON_DEMAND = frozenset({"dingtalk", "discord", "feishu", "matrix", "slack", "teams", "telegram",
                                "wecom_callback"})


def is_connected(name: str, extra: Parsed, env: dict[str, str], simple: Mapping[str, str], model: Model) -> bool:
    get: Callable[[str], str] = lambda key: env.get(key, "")
    if name == "a2a":
        return bool(extra.get("enabled")) or bool(get("A2A_PORT"))
    if name == "buzz":  # validate_config: the env URL first, then the config's
        return bool((get("BUZZ_RELAY_URL") or extra.get("relay_url", "")) and _buzz_key(env))
    return plugin_rules.is_connected(name, extra, env, simple, model)


def check_fn(name: str, env: dict[str, str], facts: HostFacts, model: Model) -> bool:
    if name == "a2a":
        return True  # stdlib only
    if name == "buzz":
        return bool(env.get("BUZZ_RELAY_URL", "").strip()) and bool(_buzz_key(env))
    if name == "photon":
        node = which(env.get("PHOTON_NODE_BIN") or "node") is not None
        return facts.has("httpx") and node and (facts.photon_sidecar or which("npm") is not None)
    return plugins.check_fn(name, env, facts, model)


def seed(name: str, env: dict[str, str], model: Model) -> dict[str, Any] | None:
    if name == "buzz":
        relay = env.get("BUZZ_RELAY_URL", "").strip()
        if not relay or not _buzz_key(env):
            return None
        seeded: dict[str, object] = {"relay_url": relay}
        channels = [c.strip() for c in env.get("BUZZ_CHANNELS", "").strip().split(",") if c.strip()]
        if channels:
            seeded["channels"] = channels
        return seeded
    if name == "a2a":
        return None
    return plugins.seed(name, env, model)


def buzz_yaml_hook(block: Parsed, set_if_unset: Callable[[str, str], None]) -> None:
    """`_apply_yaml_config` (buzz/adapter.py:1276-1319): `extra` (else the block itself) into BUZZ_*."""
    extra = block.get("extra", block) or {}
    if not isinstance(extra, dict):
        return
    for key, env_name in (("relay_url", "BUZZ_RELAY_URL"), ("cli_path", "BUZZ_CLI_PATH"),
                          ("home_channel", "BUZZ_HOME_CHANNEL"), ("transport", "BUZZ_TRANSPORT")):
        if extra.get(key):
            set_if_unset(env_name, str(extra[key]))
    for key, env_name in (("poll_interval", "BUZZ_POLL_INTERVAL"), ("channels", "BUZZ_CHANNELS"),
                          ("allowed_users", "BUZZ_ALLOWED_USERS")):
        value = extra.get(key)
        if value is not None:
            set_if_unset(env_name, ",".join(str(v) for v in value) if isinstance(value, (list, tuple))
                         and key != "poll_interval" else str(value))
    for key, env_name in (("allow_all_users", "BUZZ_ALLOW_ALL_USERS"), ("require_mention", "BUZZ_REQUIRE_MENTION")):
        if key in extra:
            set_if_unset(env_name, str(extra[key]).lower())


def yaml_hook(name: str, block: Parsed, yaml_cfg: Parsed, gateway_platforms: Any,
              set_if_unset: Callable[[str, str], None], model: Model, environ: dict[str, str]) -> Parsed | None:
    """0.20.1's `apply_yaml_config_fn`s where they differ from 0.19.0's (the shared `_hook` does the rest)."""
    if name == "buzz":
        buzz_yaml_hook(block, set_if_unset)
        return None
    if name == "discord":
        return _discord_hook(block, yaml_cfg, set_if_unset)
    if name == "telegram":
        return _telegram_hook(block, set_if_unset, environ)
    return plugin_rules.yaml_hook(name, block, yaml_cfg, gateway_platforms, set_if_unset, model)


def _telegram_hook(block: Parsed, set_if_unset: Callable[[str, str], None], environ: dict[str, str]) -> Parsed | None:
    """telegram/adapter.py:10732-10836, reduced to what access and enablement read, in its order (a
    `mention_patterns` json.dumps cannot encode stops it there)."""
    extra: Parsed = block["extra"] if isinstance(block.get("extra"), dict) else {}
    seeded: dict[str, Any] = {}
    if "disable_topic_auto_rename" in block:
        seeded["disable_topic_auto_rename"] = block["disable_topic_auto_rename"]
    if "mention_patterns" in block and not environ.get("TELEGRAM_MENTION_PATTERNS"):
        import json  # lazily: only this hook needs it, and the gate never loads json otherwise

        json.dumps(block["mention_patterns"])  # raises where Hermes's does: the hook stops here
    if "allow_bots" in block:
        set_if_unset("TELEGRAM_ALLOW_BOTS", str(block["allow_bots"]).lower())
    for key in ("free_response_chats", "ignored_threads"):
        if block.get(key) is not None:
            seeded.setdefault(key, block[key])
    if block.get("allow_from") is not None:
        set_if_unset("TELEGRAM_ALLOWED_USERS", plugin_rules.join(block["allow_from"]))
    for key, env_name in (("group_allow_from", "TELEGRAM_GROUP_ALLOWED_USERS"),
                          ("group_allowed_chats", "TELEGRAM_GROUP_ALLOWED_CHATS")):
        value = block.get(key) or extra.get(key)  # `or`: a falsy value in the block falls to extra's
        if value is not None:
            set_if_unset(env_name, plugin_rules.join(value))
    for key in ("guest_mode", "disable_link_previews", "observe_unmentioned_group_messages", "free_response_topics"):
        if key in block:
            seeded.setdefault(key, block[key])
    for key, value in extra.items():
        if key not in plugin_rules.TELEGRAM_EXTRA_SKIP:
            seeded.setdefault(key, value)
    return seeded or None


def _discord_hook(block: Parsed, yaml_cfg: Parsed, set_if_unset: Callable[[str, str], None]) -> Parsed | None:
    """discord/adapter.py:10314-10470: the gate keys are seeded into `extra` (always) and bridged into
    DISCORD_* (when unset); `allowed_roles` and `allow_all_users` are new."""
    platforms = yaml_cfg.get("platforms")
    nested = platforms.get("discord") if isinstance(platforms, dict) else None
    nested_extra = nested.get("extra") if isinstance(nested, dict) else None
    fallback = nested_extra if isinstance(nested_extra, dict) else {}
    seeded: dict[str, Any] = {}
    for key, env_name in (("allow_from", "DISCORD_ALLOWED_USERS"), ("allowed_roles", "DISCORD_ALLOWED_ROLES"),
                          ("allow_all_users", "DISCORD_ALLOW_ALL_USERS")):
        value = block[key] if key in block else fallback.get(key)
        if value is not None:
            text = str(value).lower() if key == "allow_all_users" else plugin_rules.join(value)
            seeded[key] = text
            set_if_unset(env_name, text)
    for key in ("free_response_channels",):
        if block.get(key) is not None:
            seeded[key] = plugin_rules.join(block[key])
    if isinstance(block.get("missed_message_backfill"), dict):
        seeded["missed_message_backfill"] = dict(block["missed_message_backfill"])
    for key in ("ignored_channels", "allowed_channels", "no_thread_channels"):
        if block.get(key) is not None:
            seeded[key] = plugin_rules.join(block[key])
    block_extra: Parsed = block["extra"] if isinstance(block.get("extra"), dict) else {}
    merged = {**block_extra, **block}
    for key, alias in (("websocket_liveness_interval_seconds", "liveness_interval_seconds"),
                       ("websocket_liveness_failure_threshold", "liveness_failure_threshold"),
                       ("websocket_heartbeat_ack_max_age_seconds", None), ("websocket_max_latency_seconds", None)):
        value = merged.get(key)
        if value is None and alias:
            value = merged.get(alias)
        if value is not None:
            seeded[key] = value
    return seeded or None


def _buzz_key(env: dict[str, str]) -> str:
    return env.get("BUZZ_PRIVATE_KEY", "").strip()
