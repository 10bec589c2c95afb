"""Resolve: what Hermes 0.19's `load_gateway_config()` would build from a Snapshot.

This re-implements (never imports) the loader's decisions, quirks included, in the
loader's own order, because the order is observable: the startup gate reports the
*first* violating platform in `config.platforms` insertion order.

  1. legacy `gateway.json` is the base layer (`hermes_wizard.hermes.loader.gwdata`);
  2. the YAML phase (config.yaml's `streaming` / `profile_routes` laid over gateway.json's;
     `gateway.platforms`, then `platforms`, deep-merged; then the top-level `<platform>:`
     blocks' shared keys; then plugin YAML hooks that copy YAML into env vars that are
     still unset).  Any exception inside this phase is swallowed by Hermes, *keeping
     whatever was merged before it*;
  3. `GatewayConfig.from_dict` (outside that guard: a `home_channel` without `platform`,
     or a gateway.json value it cannot take (gwdata.check_values), crashes the gateway);
  4. env overrides, in the loader's block order; several of them force-enable a
     platform even when YAML said `enabled: false`;
  5. the plugin enable pass (`hermes_wizard.hermes.loader.plugins`), then validation, which disables a
     token platform whose token is a placeholder;
  6. what the runner's constructor reads before the startup check: config.yaml again, `${VAR}` expanded
     over the whole tree, so an alias inside its own anchor crashes it (`_runner_blocker`); then the
     session-reset policy's values, as the version's model says (`Model.check_runner`, `loader.runner`);
     then the pairing store it builds (`Snapshot.pairing_crash`: wizard/hermes/access/pairing_store.py).

A `.env` Hermes hangs or crashes on (`EnvFile.blocks_start`), then a config.yaml whose aliases expand
without end (hung in an import-time bridge), come before all of this.

Contract: pure function of (Snapshot, HostFacts); never raises.
`secret_sources` is imported lazily: only a home whose config keeps secrets in the keyring needs it, and
the pre-start gate (which resolves every home) then stays without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hermes_wizard.hermes.loader import envrules, gwdata, plugins
from hermes_wizard.hermes.loader.catalog import PLATFORMS
from hermes_wizard.hermes.loader.state import Effective, LoaderCrash, PlatformState
from hermes_wizard.hermes.loader.yamlfile import MAX_EXPANDED_NODES

if TYPE_CHECKING:
    from collections.abc import Callable

    from hermes_wizard.core.shapes import Parsed
    from hermes_wizard.hermes.loader.inputs import Snapshot
    from hermes_wizard.hermes.model import Model


def resolve(snapshot: Snapshot, facts: plugins.HostFacts, model: Model) -> Effective:
    """What the Hermes version `model` models would build (`Model.resolve` is the way in)."""
    environ = process_environment(snapshot, facts)
    if (too_big := snapshot.beyond_bounds) is not None:  # nothing built from a file read in part is a verdict
        return Effective(platforms={}, environ=environ, unjudged=too_big)
    gw_data = gwdata.base_layer(snapshot.gateway_json)
    effective = Effective(platforms={}, environ=environ)
    yaml_file = snapshot.yaml
    if yaml_file.exists:
        try:
            if yaml_file.error is not None:
                raise ValueError(f"{yaml_file.error.message} ({yaml_file.error.where()})")
            if model.yaml_rejects_duplicate_keys and (twice := yaml_file.duplicate_key()) is not None:
                raise ValueError(f"DuplicateKeyError: found duplicate key {twice[0]!r} (line {twice[1]})")
            _yaml_phase(yaml_file.data or {}, gw_data, environ, effective, model)
        except Exception as exc:  # Hermes: "Failed to process config.yaml — falling back"
            effective.yaml_fallback = f"{type(exc).__name__}: {exc}"
    try:
        model.check_from_dict(gw_data)
        effective.platforms = _from_dict(gw_data, model)
        gwdata.check_values(gw_data, snapshot.gateway_json.data, model.parses_profile_routes, model.platform_value,
                            model.has_session_reset)
        reset = _reset_policy(gw_data) if model.has_session_reset else {}
        model.check_env_overrides(environ)
        envrules.apply_env_overrides(effective.platforms, environ, reset, model)
        plugins.enable_pass(effective.platforms, environ, facts, snapshot.env.simple_values, model)
        model.apply_relay(effective.platforms, environ)
        for state in effective.platforms.values():
            state.extra.pop("_enabled_explicit", None)
        _validate(effective, reset)
    except LoaderCrash as exc:
        _crashed(effective, exc)
    except Exception as exc:  # same operations raise in Hermes; report, never crash
        effective.crash = f"{type(exc).__name__}: {exc}"
    # In Hermes's own order: .env is loaded first, the gateway config is built next, and the runner that
    # then reads config.yaml again (with ${VAR} expanded) and the policies it carries is built before the check.
    before = _env_blocker(snapshot) or _import_blocker(snapshot)
    if before is not None:
        _crashed(effective, LoaderCrash(*before))
    elif (effective.crash is None and model.runner_config_can_crash
          and (runner := _runner_blocker(snapshot)) is not None):
        _crashed(effective, LoaderCrash(*runner))
    elif effective.crash is None:
        try:
            model.check_runner(gw_data, snapshot.gateway_json.data, yaml_file.data)
        except LoaderCrash as exc:
            _crashed(effective, exc)
    if effective.crash is None and snapshot.pairing_crash:
        # `GatewayRunner.__init__` builds the pairing store after the reset policy (0.19.0 gateway/run.py:3117,
        # 3407), still before the start-up check
        effective.crash = snapshot.pairing_crash
        effective.crash_fix = "move the file it names out of the pairing folder (users paired in it pair again)"
    return effective


def _crashed(effective: Effective, exc: LoaderCrash) -> None:
    effective.crash, effective.crash_fix = str(exc), exc.fix
    effective.crash_key, effective.crash_file = exc.key, exc.file


def _env_blocker(snapshot: Snapshot) -> tuple[str, str | None] | None:
    """.env files on which Hermes hangs or dies before its config is even built."""
    for env in (snapshot.env, snapshot.op_env):
        if env.blocks_start:
            return env.blocks_start, env.blocks_fix
    return None


def _import_blocker(snapshot: Snapshot) -> tuple[str, str] | None:
    """Importing `gateway.run` bridges config.yaml into the environment with `${VAR}` expanded over the
    whole tree, whatever its top level (0.19.0 gateway/run.py:1615-1626, 0.18.2 :1343-1353): errors are
    caught there, but an expansion that never ends is a hang before the config is built."""
    yaml_file = snapshot.yaml
    if yaml_file.error is None and yaml_file.cycle_line is None and yaml_file.expanded_nodes >= MAX_EXPANDED_NODES:
        return (f"config.yaml's aliases expand to more than {MAX_EXPANDED_NODES:,} nodes; Hermes expands "
                "${VAR} over the whole expanded tree at start-up and never finishes",
                "write the repeated values out instead of nesting aliases (*name) in config.yaml")
    return None


def _runner_blocker(snapshot: Snapshot) -> tuple[str, str] | None:
    """config.yaml as `GatewayRunner.__init__` reads it (gateway/run.py `_load_gateway_runtime_config`):
    a non-empty mapping is walked by `_expand_env_vars` with every alias expanded, outside any guard."""
    yaml_file = snapshot.yaml
    if yaml_file.error is not None or not isinstance(yaml_file.data, dict) or not yaml_file.data:
        return None  # Hermes's runner reads {} then: nothing to walk (the import-time bridge caught its error)
    if yaml_file.cycle_line is not None:
        return (f"config.yaml line {yaml_file.cycle_line} holds an alias to itself; Hermes expands ${{VAR}} "
                "over config.yaml at start-up and crashes (RecursionError)",
                f"in config.yaml near line {yaml_file.cycle_line}, replace the alias (*name) inside its own anchor "
                "(&name) with a plain value")
    return None


_SHARED_KEYS = ("reply_prefix", "reply_in_thread", "cron_continuable_surface", "require_mention",
                "free_response_channels", "mention_patterns", "exclusive_bot_mentions", "dm_policy",
                "allow_from", "allow_admin_from", "user_allowed_commands", "group_policy", "group_allow_from",
                "group_allow_admin_from", "group_user_allowed_commands", "gateway_restart_notification",
                "typing_indicator", "typing_status_text")
_TELEGRAM_KEYS = ("allowed_chats", "group_allowed_chats", "allowed_topics", "observe_unmentioned_group_messages")


def _yaml_phase(yaml_cfg: Any, gw_data: Any, environ: dict[str, str], effective: Effective, model: Model) -> None:
    """The guarded part of the loader, step by step in Hermes's order; raises exactly where Hermes would."""
    gateway_section = yaml_cfg.get("gateway")  # AttributeError for a list/scalar top level
    _session_reset(yaml_cfg, gateway_section, gw_data, model)
    model.check_gateway_section(yaml_cfg)
    gwdata.lay_over(yaml_cfg, gateway_section, gw_data, model.parses_profile_routes)
    gateway_platforms = gateway_section.get("platforms") if isinstance(gateway_section, dict) else None
    platforms_data = gw_data.setdefault("platforms", {})
    if not isinstance(platforms_data, dict):
        platforms_data = gw_data["platforms"] = {}
    merge = _merger(platforms_data, effective)
    merge(gateway_platforms)
    merge(yaml_cfg.get("platforms"))
    model.merge_more_platform_blocks(gateway_section, platforms_data, merge)
    for name in model.shared_loop_order():
        _bridge_shared_keys(name, yaml_cfg, gateway_platforms, platforms_data, effective, model)
    model.bridge_yaml_to_env(yaml_cfg, gateway_platforms, platforms_data, environ)
    _top_level_mention(yaml_cfg, platforms_data, environ)


def _session_reset(yaml_cfg: Any, gateway_section: Any, gw_data: Any, model: Model) -> None:
    """config.yaml's `session_reset` (else, where the model falls back, `gateway.session_reset`) becomes
    the default reset policy when it is a non-empty mapping."""
    sr = yaml_cfg.get("session_reset")
    if "session_reset" not in yaml_cfg and isinstance(gateway_section, dict) and model.nested_gateway_fallbacks:
        sr = gateway_section.get("session_reset")
    if sr and isinstance(sr, dict):
        gw_data["default_reset_policy"] = sr


def _merger(platforms_data: Parsed, effective: Effective) -> Callable[[Any], None]:
    """The merge of a mapping of platform blocks into `platforms_data`: block over block, `extra` over
    `extra` (TypeError on a non-mapping one), an `enabled` key remembered as explicit."""
    def merge(source: Any) -> None:
        if not isinstance(source, dict):
            return
        for name, block in source.items():
            if not isinstance(block, dict):
                continue
            existing = platforms_data.get(name, {})
            if not isinstance(existing, dict):
                existing = {}
            extra = {**existing.get("extra", {}), **block.get("extra", {})}  # TypeError on non-mappings
            if "enabled" in block:
                extra["_enabled_explicit"] = True
                effective.yaml_explicit[name] = block["enabled"]
            merged = {**existing, **block}
            if extra:
                merged["extra"] = extra
            platforms_data[name] = merged

    return merge


def _bridge_shared_keys(name: str, yaml_cfg: Any, gateway_platforms: Any, platforms_data: Parsed,
                        effective: Effective, model: Model) -> None:
    """One platform's turn of the shared-key loop: its block (top level, else `gateway.platforms`, else
    `platforms`) copies its shared keys into `extra`, and a top-level `enabled` into the platform's config."""
    block = yaml_cfg.get(name)
    toplevel = isinstance(block, dict)
    if not toplevel:
        for source in (gateway_platforms, yaml_cfg.get("platforms")):
            if isinstance(source, dict) and isinstance(source.get(name), dict):
                block = source[name]
                break
    if not isinstance(block, dict):
        return
    bridged = {**(model.promoted_keys(block) if toplevel else {}), **model.shared_keys(name, block)}
    has_overrides = "channel_overrides" in block
    if has_overrides and isinstance(block.get("channel_overrides"), dict):
        plugins.ensure_extra(platforms_data, name)
    explicit = toplevel and "enabled" in block
    if not bridged and not explicit and not has_overrides:
        return
    plat_block, extra = plugins.ensure_extra(platforms_data, name)
    if explicit:
        plat_block["enabled"] = block["enabled"]
        if model.marks_toplevel_enabled(name):
            extra["_enabled_explicit"] = True
        effective.yaml_explicit[name] = block["enabled"]
    extra.update(bridged)


def _top_level_mention(yaml_cfg: Any, platforms_data: Parsed, environ: dict[str, str]) -> None:
    """config.yaml's top-level `require_mention` for Telegram, where its own block does not say (its
    `extra`, and TELEGRAM_REQUIRE_MENTION where unset); TypeError for a `telegram:` that is not a mapping."""
    top_mention = yaml_cfg.get("require_mention")
    if top_mention is not None:
        telegram_section = yaml_cfg.get("telegram") or {}
        if "require_mention" not in telegram_section:  # TypeError for e.g. an int
            _, tg_extra = _ensure_extra_loose(platforms_data, "telegram")
            tg_extra.setdefault("require_mention", top_mention)
            if not environ.get("TELEGRAM_REQUIRE_MENTION"):
                environ["TELEGRAM_REQUIRE_MENTION"] = str(top_mention).lower()


def shared_keys(name: str, block: Parsed) -> dict[str, Any]:
    """The keys the shared-key loop copies from a platform's block into its `extra` (0.19.0
    gateway/config.py:1455-1540)."""
    bridged = {key: block[key] for key in _SHARED_KEYS if key in block}
    if name == "telegram":
        bridged.update({key: block[key] for key in _TELEGRAM_KEYS if key in block})
    if name in ("discord", "slack") and "channel_skill_bindings" in block:
        bridged["channel_skill_bindings"] = block["channel_skill_bindings"]
    for key in ("unauthorized_dm_behavior", "notice_delivery", "channel_prompts"):
        if key in block:
            bridged[key] = block[key]
    return bridged


def _ensure_extra_loose(platforms_data: Parsed, name: str) -> tuple[Any, Any]:
    """The loader's plain setdefault chain here (no coercion: may raise)."""
    block = platforms_data.setdefault(name, {})
    return block, block.setdefault("extra", {})


def _from_dict(gw_data: Any, model: Model) -> dict[str, PlatformState]:
    platforms: dict[str, PlatformState] = {}
    data = gw_data if isinstance(gw_data, dict) else {}
    raw = data.get("platforms", {})
    for name, block in (raw if isinstance(raw, dict) else {}).items():
        if not isinstance(block, dict):
            continue
        value = model.platform_value(name)
        if value is None:
            continue  # Hermes silently skips unknown platform keys
        home = block.get("home_channel")
        if isinstance(home, dict):
            if "platform" not in home:
                raise LoaderCrash(f"KeyError: 'platform' (home_channel of {name})")
            if model.platform_value(home["platform"]) is None:
                continue  # ValueError inside the platform loop: the block is dropped
            if "chat_id" not in home:
                raise LoaderCrash(f"KeyError: 'chat_id' (home_channel of {name})")
        platforms[value] = PlatformState(
            enabled=envrules.coerce_bool(block.get("enabled"), False),
            token=block.get("token"),
            extra=model.platform_extra(block),
        )
    return platforms


def _reset_policy(gw_data: Any) -> dict[str, Any]:
    data = gw_data if isinstance(gw_data, dict) else {}
    policy = {"at_hour": 4, "idle_minutes": 1440}
    raw = data.get("default_reset_policy")
    if "default_reset_policy" in data:
        raw = raw if isinstance(raw, dict) else {}
        for key in policy:
            if raw.get(key) is not None:
                policy[key] = raw[key]
    return policy


def _validate(effective: Effective, reset: dict[str, Any]) -> None:
    """`_validate_gateway_config`: the same comparisons and `.strip()` calls, so a value that
    crashes Hermes (a string `at_hour`, an integer token) raises here too; placeholder
    tokens disable their platform."""
    if reset:  # a Hermes without reset policies (the main line) compares nothing
        0 <= reset["at_hour"] <= 23  # noqa: B015 — evaluated for the TypeError Hermes would hit
        reset["idle_minutes"] <= 0  # noqa: B015
    for name, state in effective.platforms.items():
        spec = PLATFORMS.get(name)
        if not state.enabled or not spec or not spec.token_env or state.token is None:
            continue
        token = state.token.strip()  # AttributeError for a non-string token, as in Hermes
        if token and not envrules.usable_secret(state.token):
            state.enabled = False
            effective.placeholder_disabled[name] = spec.token_env


def process_environment(snapshot: Snapshot, facts: plugins.HostFacts | None = None) -> dict[str, str]:
    """The environment the gateway sees after `load_hermes_dotenv` (env_loader.py:288-338).

    Order: inherited env, then `.env` (override), then `.op.env` filling gaps only
    when no 1Password token is set yet, then the external secret sources (ours: the
    OS keyring, filling only empty variables, when Hermes will run it), then the
    managed `.env` (override, last).
    """
    environ = dict(snapshot.base_env)
    environ.update(snapshot.env.values)
    if snapshot.op_env.values and not environ.get("OP_SERVICE_ACCOUNT_TOKEN"):
        for key, value in snapshot.op_env.values.items():
            environ.setdefault(key, value)
    kept = snapshot.keyring
    if kept is not None and kept.values:
        from hermes_wizard.hermes.loader import secret_sources

        installed = secret_sources.plugin_installed(facts.site_packages if facts else None)
        if kept.refs.inactive_because(installed, environ) is None:
            secret_sources.apply_secrets(environ, kept.values)
    environ.update(snapshot.managed_env.values)
    return environ
