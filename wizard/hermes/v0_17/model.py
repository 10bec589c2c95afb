"""The model of Hermes 0.17.0: 0.18.0's model, minus the startup refusal and the plugin migration.

What 0.17.0 decides differently from 0.18.0 (citations into the 0.17.0 wheel):

- **No startup refusal.** gateway/run.py has no `_own_policy_open_startup_violation`: an open policy
  without an allow-all opt-in starts (the adapters forward every sender; authorization still decides).
  The gate therefore stops 0.17 only for a crash at start.
- **Fewer plugin platforms.** plugins/platforms/ holds 11 (`PLUGIN_PLATFORMS`); Telegram, Slack,
  WhatsApp, Matrix, DingTalk, Feishu, WeCom, Email and SMS are core adapters (gateway/platforms/*.py),
  enabled only by YAML and the env override blocks — never by the plugin enable pass.  A WhatsApp with
  YAML extras or a `creds.json` but no `WHATSAPP_ENABLED` stays off.
- **The plugin enable pass ignores explicit disables** (config.py:2066-2173): `check_fn`, then
  `is_connected`, and a plugin platform whose YAML says `enabled: false` is switched on again.
- **A top-level `<platform>: {enabled: ...}` marks the choice explicit for Slack only** (config.py:1023-1030),
  so env credentials re-enable e.g. a top-level `signal: {enabled: false}` (`_enable_from_env`,
  :1388-1397).  (0.17 pops the marker there, 0.18 reads it; nothing in 0.17 reads it later.)
- **`PlatformConfig.from_dict`** (config.py:357-390) has no `typing_indicator`: a non-mapping `extra`
  crashes only when `gateway_restart_notification` is not given.
- **No background-process age in the session-reset policy** (config.py:276-316): a
  `session_reset.bg_process_max_age_hours` that crashes 0.18's runner at start is never read (`check_runner`).
- The `.env` known names (hermes_cli/config.py `OPTIONAL_ENV_VARS | _EXTRA_ENV_KEYS`: 293 of them), the
  glued-line splitter, `load_env`, the YAML→env bridges and two port reads: see `loader`.
- Authorization (gateway/authz_mixin.py:176-409): see `authz`.

Shared with 0.18.0 (the same code): `.env` loading without `.op.env` (env_loader.py), the `*_ENABLED` flags
read as `.lower() in {true,1,yes}` (config.py:1452, 1680, 1707), the YAML phase's `gateway:` handling
(:863-866), the bundled plugins' `check_fn`/`is_connected`/hooks, the unit without
RestartPreventExitStatus=78 (hermes_cli/gateway.py).
The authorizer is imported lazily in `authorizer()`, and the pairing-store reader in `access_files()`: the
pre-start gate loads this model and never asks who may talk (the authorizer and its file readers, ~15 ms).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_wizard.hermes.v0_17 import loader
from hermes_wizard.hermes.v0_17.pairing_store import store_folder
from hermes_wizard.hermes.v0_18.model import Hermes0180

if TYPE_CHECKING:
    from collections.abc import Mapping

    from hermes_wizard.core.shapes import Parsed
    from hermes_wizard.hermes.access.access_files import AccessFiles
    from hermes_wizard.hermes.access.authz import Authorizer

# plugins/platforms/ of 0.17.0, in the registry's order (discovery walks the folder sorted).
PLUGIN_PLATFORMS = ("discord", "google_chat", "homeassistant", "irc", "line", "mattermost", "ntfy", "photon",
                    "raft", "simplex", "teams")

# Hermes's known `.env` names: 0.18.0 added these 38 (email, sms and memory providers among them) ...
KEYS_ADDED_IN_0_18 = frozenset({
    "BRV_API_KEY", "CAMOFOX_API_KEY", "DINGTALK_ALLOWED_USERS", "DINGTALK_WEBHOOK_URL", "EMAIL_ADDRESS",
    "EMAIL_ALLOWED_USERS", "EMAIL_HOME_ADDRESS", "EMAIL_IMAP_HOST", "EMAIL_PASSWORD", "EMAIL_SMTP_HOST",
    "EMAIL_SMTP_PORT", "FEISHU_ALLOWED_USERS", "FEISHU_ALLOW_ALL_USERS", "FEISHU_DOMAIN", "HINDSIGHT_API_KEY",
    "HINDSIGHT_API_URL", "MATRIX_ALLOW_ALL_USERS", "MATRIX_HOME_CHANNEL", "MATRIX_HOME_CHANNEL_NAME", "MEM0_API_KEY",
    "OPENVIKING_API_KEY", "OPENVIKING_ENDPOINT", "RETAINDB_API_KEY", "RETAINDB_BASE_URL", "SLACK_ALLOW_ALL_USERS",
    "SMS_ALLOWED_USERS", "SUPERMEMORY_API_KEY", "TELEGRAM_ALLOW_ALL_USERS", "TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN",
    "TWILIO_PHONE_NUMBER", "VERTEX_CREDENTIALS_PATH", "WECOM_ALLOWED_USERS", "WECOM_WEBSOCKET_URL",
    "WHATSAPP_ALLOWED_USERS", "WHATSAPP_ALLOW_ALL_USERS", "WHATSAPP_HOME_CHANNEL", "WHATSAPP_HOME_CHANNEL_NAME"})
# ... and dropped these three.
KEYS_REMOVED_IN_0_18 = frozenset({"HERMES_GEMINI_CLIENT_ID", "HERMES_GEMINI_CLIENT_SECRET", "HERMES_GEMINI_PROJECT_ID"})


class Hermes017(Hermes0180):
    version = "0.17.0"
    has_startup_refusal = False
    enable_pass_honors_explicit = False
    pairing_store_merges = False  # one folder, the legacy one its runner makes first (see pairing_store)

    def plugin_platforms(self) -> tuple[str, ...]:
        return PLUGIN_PLATFORMS

    def marks_toplevel_enabled(self, name: str) -> bool:
        return name == "slack"

    def env_keys(self) -> frozenset[str]:
        return (super().env_keys() - KEYS_ADDED_IN_0_18) | KEYS_REMOVED_IN_0_18

    def decode_env(self, raw: bytes) -> tuple[str, str, bool]:
        return loader.decode_env(raw, self.env_keys())

    def simple_env(self, raw: bytes) -> dict[str, str]:
        return loader.simple_env(raw, self.env_keys())

    def bridge_yaml_to_env(self, yaml_cfg: Parsed, gateway_platforms: Any, platforms_data: Parsed,
                           environ: dict[str, str]) -> None:
        loader.bridge_yaml_to_env(yaml_cfg, gateway_platforms, platforms_data, environ, self)

    def check_env_overrides(self, environ: dict[str, str]) -> None:
        loader.check_env_overrides(environ)

    def check_from_dict(self, gw_data: Any) -> None:
        # 0.18's check, with every non-mapping `extra` judged as if `typing_indicator` were given: then
        # only a missing `gateway_restart_notification` makes it crash, as in 0.17.
        platforms = gw_data.get("platforms") if isinstance(gw_data, dict) else None
        if isinstance(platforms, dict):
            gw_data = {**gw_data, "platforms": {
                name: ({**block, "typing_indicator": False} if isinstance(block, dict) else block)
                for name, block in platforms.items()}}
        super().check_from_dict(gw_data)

    def check_runner(self, gw_data: Any, from_json: Any, yaml_cfg: Any) -> None:
        # 0.17's SessionResetPolicy has no bg_process_max_age_hours and its runner reads no such value
        # (gateway/config.py:276-316; gateway/run.py:2420-2424 passes no age to the session store).
        return None

    def access_files(self, home: Path, owner: int | None = None,
                     environ: Mapping[str, str] | None = None) -> AccessFiles:
        from hermes_wizard.hermes.access.access_files import read_access_files

        home = Path(home)
        return read_access_files(home, owner, merges=False, folder=store_folder(home, environ or {}))

    def authorizer(self) -> Authorizer:
        from hermes_wizard.hermes.v0_17.authz import Authorizer017

        return Authorizer017()
