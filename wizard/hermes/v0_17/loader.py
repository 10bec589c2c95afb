"""The pieces of Hermes 0.17.0's loader that 0.18.0 changed, each reproducing where 0.17 decides or
fails differently.  Citations are into the 0.17.0 wheel (hermes_agent-0.17.0-py3-none-any.whl).

- `.env` glued lines: `_sanitize_env_lines` (hermes_cli/config.py:5966-6023) splits a line at every
  known `KEY=` it holds, even when the first is not at the start (the text before it is dropped) and
  even when a value before a split looks like a URL: 0.18 keeps such lines whole.
- `load_env` (config.py:5889-5945), `get_env_value`'s fallback: no `export ` prefix stripping, quotes
  stripped with `str.strip('"\\'')`.
- The YAML→env bridges of Slack, Telegram, WhatsApp, DingTalk, Matrix and Feishu are still core blocks
  (config.py:1071-1295), after the plugin hooks (discord and mattermost only, :1039-1065): they read
  only a top-level `<platform>:` block, and they run inside the YAML guard, so one that raises (e.g.
  `json.dumps` of a `mention_patterns` YAML date, :1123) drops every bridge after it.
- The env override blocks parse two ports with a bare `int()` (config.py:1863 and :1919, outside any
  guard): a WeCom callback or BlueBubbles setup with a port that is not a number crashes the gateway.
"""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING, Any

from hermes_wizard.hermes.loader.envfile import key_starts
from hermes_wizard.hermes.loader.plugins import apply_yaml_hooks
from hermes_wizard.hermes.loader.state import LoaderCrash
from hermes_wizard.hermes.v0_18.loader import sanitized_or_loaded

if TYPE_CHECKING:
    from hermes_wizard.core.shapes import Parsed
    from hermes_wizard.hermes.model import Model

# Plugin YAML hooks in 0.17's registry order (plugins with an apply_yaml_config_fn).
PLUGIN_HOOKS = ("discord", "mattermost")


def sanitize_lines(lines: list[str], keys: frozenset[str]) -> list[str]:
    """`_sanitize_env_lines`: blank/comment lines kept, the rest stripped; two or more needles split."""
    out = []
    for line in lines:
        raw = line.rstrip("\r\n")
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            out.append(raw + "\n")
            continue
        starts = key_starts(stripped, keys) if stripped.count("=") >= 2 else []
        if len(starts) > 1:
            for begin, end in zip(starts, starts[1:] + [len(stripped)]):
                if part := stripped[begin:end].strip():
                    out.append(part + "\n")
        else:
            out.append(stripped + "\n")
    return out


def decode_env(raw: bytes, keys: frozenset[str]) -> tuple[str, str, bool]:
    """`_sanitize_env_file_if_needed` (env_loader.py:159-209, the same code as 0.18.0's) with 0.17's line
    splitter: read as utf-8-sig with errors=replace, NULs dropped, rewritten as UTF-8 when anything changed;
    else the UTF-8 then latin-1 load of `_load_dotenv_with_fallback` (:146-156)."""
    original = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8-sig", errors="replace", newline=None).readlines()
    cleaned = sanitize_lines([line.replace("\x00", "") for line in original], keys)
    return sanitized_or_loaded(raw, original, cleaned)


def simple_env(raw: bytes, keys: frozenset[str]) -> dict[str, str]:
    """`load_env`: sanitized lines, `KEY=value` split at the first `=`, value stripped of blanks and then
    of any quote characters at either end; the last binding wins."""
    lines = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8-sig", errors="replace", newline=None).readlines()
    values: dict[str, str] = {}
    for line in sanitize_lines(lines, keys):
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip().strip("\"'")
    return values


def check_env_overrides(environ: dict[str, str]) -> None:
    """The two bare `int()` port reads of `_apply_env_overrides`, reached only when their block runs."""
    blocks = (("WECOM_CALLBACK_CORP_ID", "WECOM_CALLBACK_CORP_SECRET", "WECOM_CALLBACK_PORT"),  # :1850-1864
              ("BLUEBUBBLES_SERVER_URL", "BLUEBUBBLES_PASSWORD", "BLUEBUBBLES_WEBHOOK_PORT"))  # :1907-1920
    for first, second, port in blocks:
        if environ.get(first) and environ.get(second):
            try:
                int(environ.get(port, "8645"))
            except ValueError as exc:
                raise LoaderCrash(f"ValueError: {exc} ({port})",
                                  f"set {port} to a port number, or remove it (the default is 8645)") from None


# 0.17's core YAML→env blocks after Slack's, in its order: (platform, rows); a row is (YAML key, variable, how):
# "json": the value is JSON-encoded when the variable is unset (only to raise where Hermes's json.dumps does);
# "lower": lower-cased, when the key is there; "join": a list joined with commas, when the value is not None.
CORE_BRIDGES: tuple[tuple[str, tuple[tuple[str, str, str], ...]], ...] = (
    ("telegram", (("mention_patterns", "TELEGRAM_MENTION_PATTERNS", "json"),  # :1106-1196
                  ("allow_from", "TELEGRAM_ALLOWED_USERS", "join"),
                  ("group_allow_from", "TELEGRAM_GROUP_ALLOWED_USERS", "join"),
                  ("group_allowed_chats", "TELEGRAM_GROUP_ALLOWED_CHATS", "join"))),
    ("whatsapp", (("mention_patterns", "WHATSAPP_MENTION_PATTERNS", "json"),  # :1198-1222
                  ("dm_policy", "WHATSAPP_DM_POLICY", "lower"), ("allow_from", "WHATSAPP_ALLOWED_USERS", "join"),
                  ("group_policy", "WHATSAPP_GROUP_POLICY", "lower"),
                  ("group_allow_from", "WHATSAPP_GROUP_ALLOWED_USERS", "join"))),
    ("dingtalk", (("mention_patterns", "DINGTALK_MENTION_PATTERNS", "json"),  # :1231-1252 (no nested extra)
                  ("allowed_users", "DINGTALK_ALLOWED_USERS", "join"))),
    ("matrix", (("allowed_users", "MATRIX_ALLOWED_USERS", "join"),)),  # :1258-1266
    ("feishu", (("allow_bots", "FEISHU_ALLOW_BOTS", "lower"),)),  # :1292-1295
)
SLACK_BRIDGE = (("allow_bots", "SLACK_ALLOW_BOTS", "lower"),)  # :1071-1091


def bridge_yaml_to_env(yaml_cfg: Parsed, gateway_platforms: Any, platforms_data: Parsed, environ: dict[str, str],
                       model: Model) -> None:
    """The YAML→env bridges in 0.17's order: the plugin hooks (each guarded), then the core blocks, which
    raise into the YAML guard.  Only what access reads is bridged (allowlists, policies, bot admission)."""
    apply_yaml_hooks(yaml_cfg, gateway_platforms, platforms_data, environ, model, PLUGIN_HOOKS)
    _bridge(yaml_cfg.get("slack", {}), SLACK_BRIDGE, environ)
    if yaml_cfg.get("require_mention") is not None:  # :1097-1103: TypeError for a scalar `telegram:`
        "require_mention" not in (yaml_cfg.get("telegram") or {})  # noqa: B015 — raises as Hermes does
    for name, rows in CORE_BRIDGES:
        _bridge(yaml_cfg.get(name, {}), rows, environ)


def _bridge(block: Any, rows: tuple[tuple[str, str, str], ...], environ: dict[str, str]) -> None:
    """One core block's rows (see CORE_BRIDGES), for a platform block that is a mapping; a variable already
    set is left as it is."""
    if not isinstance(block, dict):
        return
    for key, name, how in rows:
        if how == "json":
            if key in block and not environ.get(name):
                json.dumps(block[key])
        elif how == "lower":
            if key in block:
                _set_if_unset(environ, name, str(block[key]).lower())
        elif block.get(key) is not None:
            _set_if_unset(environ, name, block[key])


def _set_if_unset(environ: dict[str, str], name: str, value: Any) -> None:
    if not environ.get(name):
        environ[name] = ",".join(str(v) for v in value) if isinstance(value, list) else str(value)
