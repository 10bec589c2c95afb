"""The seam between the shared loader and what one Hermes version decides.

The shared loader (wizard/hermes/loader/: `envfile`, `resolve`, `envrules`, `plugins`, `gate`) and authorizer
(wizard/hermes/access/) follow the pipeline every modelled Hermes shares — two `.env` loads, the three YAML
places, the env override blocks, the plugin enable pass, the startup gate — and ask a `Model` at each point
where versions differ: that shared code is the contract's default.  One subclass per version, in
`wizard/hermes/v<major>_<minor>/` (one folder each), overriding the adjacent version's answers only where
that version changed them.  Nothing outside wizard/hermes/ imports a version package: it asks
`models.model_for(judgement)` (tests/unit/test_layers.py).  Every difference is pinned by conformance tests
against the real Hermes of that version (tests/support/oracle).

Contract: a model is stateless; its methods are pure functions of their arguments.
The shared loader is imported at module top (it imports `Model` only for typing); the access-file readers
are imported lazily in `access_files`: the pre-start gate loads this module and never reads who may talk.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hermes_wizard.hermes.loader import plugin_rules, plugins
from hermes_wizard.hermes.loader.catalog import BUILTIN_ORDER, PLATFORMS, platform_value
from hermes_wizard.hermes.loader.envfile import simple_parse
from hermes_wizard.hermes.loader.envrules import FORCING_CREDENTIALS, api_server_from_env, apply_relay
from hermes_wizard.hermes.loader.gate import violations
from hermes_wizard.hermes.loader.plugins import PLUGIN_ORDER, PLUGIN_ORDER_EXTRA, apply_yaml_hooks
from hermes_wizard.hermes.loader.resolve import resolve, shared_keys
from hermes_wizard.hermes.loader.runner import check_session_reset_age

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path

    from hermes_wizard.core.shapes import Parsed
    from hermes_wizard.hermes.access.access_files import AccessFiles
    from hermes_wizard.hermes.access.authz import Authorizer
    from hermes_wizard.hermes.loader.catalog import Spec
    from hermes_wizard.hermes.loader.gate import Violation
    from hermes_wizard.hermes.loader.inputs import Snapshot
    from hermes_wizard.hermes.loader.plugins import HostFacts
    from hermes_wizard.hermes.loader.state import Effective, PlatformState


class Model:
    """The questions the shared loader asks; answered by each version's subclass."""

    version: str = ""

    # --- .env loading -------------------------------------------------------------------
    loads_op_env: bool  # `$HERMES_HOME/.op.env` (1Password) is loaded
    reads_utf16_env: bool  # a UTF-16 `.env` (with its BOM) is decoded, not read as UTF-8 and mangled

    def decode_env(self, raw: bytes) -> tuple[str, str, bool]:
        """(the text python-dotenv parses, an encoding label, does the sanitizer rewrite the file?)"""
        raise NotImplementedError

    def env_keys(self) -> frozenset[str]:
        """The `.env` names Hermes knows, which decide how a glued line is split."""
        raise NotImplementedError

    def enabled_flag(self, value: str) -> bool:
        """How `WHATSAPP_ENABLED` / `API_SERVER_ENABLED` / `WEBHOOK_ENABLED` / `MSGRAPH_WEBHOOK_ENABLED` read."""
        raise NotImplementedError

    # --- config.yaml / gateway.json ----------------------------------------------------------
    nested_gateway_fallbacks: bool  # `gateway.session_reset` (and friends) when absent at top level
    parses_profile_routes: bool  # `profile_routes` (gateway.json, config.yaml) is parsed by from_dict

    def check_gateway_section(self, yaml_cfg: Parsed) -> None:
        """Raise where this version's YAML phase fails on the `gateway:` section (the phase is then dropped)."""

    def check_from_dict(self, gw_data: Any) -> None:
        """Raise a LoaderCrash where this version's `GatewayConfig.from_dict` crashes (outside any guard)."""

    def marks_toplevel_enabled(self, name: str) -> bool:
        """Does a top-level `<name>: {enabled: ...}` block mark the choice as explicit, so that env
        credentials do not re-enable a platform YAML disabled?  (0.18+: every platform.)"""
        return True

    def bridge_yaml_to_env(self, yaml_cfg: Parsed, gateway_platforms: Any, platforms_data: Parsed,
                           environ: dict[str, str]) -> None:
        """The YAML→env bridges (allowlists, policies) of the YAML phase; may raise where Hermes's do."""
        apply_yaml_hooks(yaml_cfg, gateway_platforms, platforms_data, environ, self)  # 0.18+: all plugin hooks

    def platform_value(self, name: object) -> str | None:
        """`Platform(name)`: the platform a config key names (folded as Hermes folds it), or None."""
        return platform_value(name)

    def shared_loop_order(self) -> tuple[str, ...]:
        """The platforms the YAML phase's shared-key loop visits: the enum's members, then plugin-only names."""
        return BUILTIN_ORDER + PLUGIN_ORDER_EXTRA

    def platform_extra(self, block: Parsed) -> dict[str, Any]:
        """`PlatformConfig.from_dict`'s `extra` for a merged platform block (0.19: the block's `extra` mapping)."""
        extra = block.get("extra", {})
        return extra if isinstance(extra, dict) else {}

    def promoted_keys(self, block: Parsed) -> dict[str, Any]:
        """What the shared-key loop copies into `extra` from a top-level `<platform>:` block before its shared
        keys (0.19: nothing)."""
        return {}

    def shared_keys(self, name: str, block: Parsed) -> dict[str, Any]:
        """What the shared-key loop copies from a platform's YAML block into its `extra`."""
        return shared_keys(name, block)

    def merge_more_platform_blocks(self, gateway_section: Any, platforms_data: Parsed,
                                   merge: Callable[[Any], None]) -> None:
        """Platform blocks merged after `gateway.platforms` and `platforms` (0.19: none)."""

    # Session-reset policies (`session_reset`, gateway.json's `default_reset_policy`, `reset_by_type`,
    # `reset_by_platform`) are built, so their values can crash the loader and the runner (the main line has none).
    has_session_reset: bool = True
    # The runner reads config.yaml again (with ${VAR} expanded) outside any guard, so a self-referencing alias
    # crashes it (the main line's `_load_gateway_config` returns {} on any error instead).
    runner_config_can_crash: bool = True
    # config.yaml is parsed by ruamel (the main line's hermes_yaml), which rejects a key written twice in one
    # mapping: the YAML phase then falls back to .env and gateway.json alone (PyYAML keeps the last)
    yaml_rejects_duplicate_keys: bool = False

    def check_runner(self, gw_data: Any, from_json: Any, yaml_cfg: Any) -> None:
        """Raise a LoaderCrash where this version's `GatewayRunner.__init__` crashes on the config it built from
        `gw_data` (gateway.json as read: `from_json`; config.yaml's data: `yaml_cfg`).  0.18+: a session-reset
        `bg_process_max_age_hours` that is not a number (`loader.runner`)."""
        check_session_reset_age(gw_data, from_json, yaml_cfg)

    def check_env_overrides(self, environ: dict[str, str]) -> None:
        """Raise a LoaderCrash where this version's env override blocks crash (0.18+: nowhere)."""

    # Before the main line (0.21), env credentials of WhatsApp Cloud, Home Assistant, e-mail, SMS, the webhooks,
    # DingTalk, Feishu, WeCom, Weixin, BlueBubbles, QQ and Yuanbao enable their platform whatever YAML said.
    explicit_disable_beats_env: bool = False

    def apply_relay(self, platforms: dict[str, PlatformState], environ: dict[str, str]) -> None:
        """The relay block, after the plugin enable pass (0.19: enabled by a URL, honoring an explicit disable)."""
        apply_relay(platforms, environ)

    def api_server_from_env(self, platforms: dict[str, PlatformState], get: Callable[[str, str], str]) -> None:
        """The env override block of the API server (`API_SERVER_ENABLED`, `API_SERVER_KEY`)."""
        api_server_from_env(platforms, get, self.enabled_flag)

    def slack_home_from_env(self, platforms: dict[str, PlatformState], get: Callable[[str, str], str]) -> None:
        """SLACK_HOME_CHANNEL's block (0.19: a home channel only for a Slack already configured)."""

    def simple_env(self, raw: bytes) -> dict[str, str]:
        """`hermes_cli.config.load_env`: the plain `.env` parse `get_env_value` falls back to."""
        return simple_parse(raw)

    # --- plugins ------------------------------------------------------------------------------
    enable_pass_honors_explicit: bool = True  # the plugin enable pass skips a platform YAML disabled

    def plugin_platforms(self) -> tuple[str, ...]:
        """The bundled plugin platforms, in the registry's order (the plugin enable pass visits them)."""
        return PLUGIN_ORDER

    discord_seeds_extra: bool  # the discord YAML hook seeds missed_message_backfill / websocket_* keys
    telegram_free_response_topics: bool
    dingtalk_nested_allowed_users: bool
    google_chat_http_mode: bool  # GOOGLE_CHAT_HTTP_EVENTS_URL alone configures Google Chat

    def check_fn_env(self, name: str) -> tuple[str, ...]:
        """Environment variables a plugin's `check_fn` also requires (truthy in os.environ)."""
        return ()

    def plugin_is_connected(self, name: str, extra: Parsed, env: dict[str, str], simple: Mapping[str, str]) -> bool:
        """A plugin platform's `is_connected`, asked about the enable pass's probe config."""
        return plugin_rules.is_connected(name, extra, env, simple, self)

    def plugin_check_fn(self, name: str, env: dict[str, str], facts: HostFacts) -> bool:
        """A plugin platform's `check_fn` (its SDK, and what else it asks of the host and env)."""
        return plugins.check_fn(name, env, facts, self)

    def plugin_seed(self, name: str, env: dict[str, str]) -> dict[str, Any] | None:
        """A plugin platform's `env_enablement_fn`: the `extra` it seeds from env (None: not configured)."""
        return plugins.seed(name, env, self)

    def installs_deps_on_demand(self, name: str) -> bool:
        """Did the plugin register an `ensure_deps_fn`, so that a failing `check_fn` does not keep it off?"""
        return False

    # --- authorization ---------------------------------------------------------------------------
    pairing_store_merges: bool = True  # the store merges the legacy and new pairing folders (0.18+)

    def access_files(self, home: Path, owner: int | None = None,
                     environ: Mapping[str, str] | None = None) -> AccessFiles:
        """The pairing store and WhatsApp alias files as this version's gateway reads them (`environ`: the
        gateway's environment, `Effective.environ`)."""
        from hermes_wizard.hermes.access.access_files import read_access_files

        return read_access_files(home, owner, merges=self.pairing_store_merges)

    def authorizer(self) -> Authorizer:
        """This version's `_is_user_authorized`."""
        raise NotImplementedError

    # --- the startup rule -------------------------------------------------------------------------
    has_startup_refusal: bool = True  # the open-policy refusal (what models.refuses_at_start answers)

    # --- judging a home: the engine asks these (defaults: the shared loader, wizard/hermes/loader/) ---
    def resolve(self, snapshot: Snapshot, facts: HostFacts) -> Effective:
        """What this version's `load_gateway_config()` builds from the home (`loader.resolve`)."""
        return resolve(snapshot, facts, self)

    def open_policy_violations(self, effective: Effective) -> list[Violation]:
        """What the open-policy startup rule finds in `effective`, in Hermes's order (the first is the one
        it names).  Found even where `has_startup_refusal` is False: the engine then reports them as what
        an upgrade would refuse."""
        return violations(effective, self.platforms())

    # --- facts the plan, checks and faces need (defaults: the shared catalog and env rules) ----------
    def platforms(self) -> dict[str, Spec]:
        """Every platform this version knows, by Hermes's name (`Platform` values), in catalog order:
        display name, credentials, allowlist and allow-all variables, the startup gate's policy variables."""
        return PLATFORMS

    def forcing_credentials(self, name: str) -> tuple[str, ...]:
        """`.env` credentials whose env override block enables `name` over YAML's `enabled: false`."""
        return FORCING_CREDENTIALS.get(name, ())

    def __repr__(self) -> str:
        return f"<Hermes {self.version} model>"
