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


def bridge_yaml_to_env(yaml_cfg: Parsed, gateway_platforms: Any, platforms_data: Parsed, environ: dict[str, str],  # noqa: C901 -- 0.17's YAML-to-env bridge in its order; to become a table
                       model: Model) -> None:
    """The YAML→env bridges in 0.17's order: the plugin hooks (each guarded), then the core blocks, which
    raise into the YAML guard.  Only what access reads is bridged (allowlists, policies, bot admission)."""
    apply_yaml_hooks(yaml_cfg, gateway_platforms, platforms_data, environ, model, PLUGIN_HOOKS)

    def set_if_unset(name: str, value: Any) -> None:
        if not environ.get(name):
            environ[name] = ",".join(str(v) for v in value) if isinstance(value, list) else str(value)

    def top(name: str) -> Parsed | None:
        block = yaml_cfg.get(name, {})
        return block if isinstance(block, dict) else None

    if (slack := top("slack")) is not None and "allow_bots" in slack:  # :1071-1091
        set_if_unset("SLACK_ALLOW_BOTS", str(slack["allow_bots"]).lower())
    if yaml_cfg.get("require_mention") is not None:  # :1097-1103: TypeError for a scalar `telegram:`
        "require_mention" not in (yaml_cfg.get("telegram") or {})  # noqa: B015 — raises as Hermes does
    if (telegram := top("telegram")) is not None:  # :1106-1196
        if "mention_patterns" in telegram and not environ.get("TELEGRAM_MENTION_PATTERNS"):
            json.dumps(telegram["mention_patterns"])
        for key, name in (("allow_from", "TELEGRAM_ALLOWED_USERS"),
                          ("group_allow_from", "TELEGRAM_GROUP_ALLOWED_USERS"),
                          ("group_allowed_chats", "TELEGRAM_GROUP_ALLOWED_CHATS")):
            if telegram.get(key) is not None:
                set_if_unset(name, telegram[key])
    if (whatsapp := top("whatsapp")) is not None:  # :1198-1222
        if "mention_patterns" in whatsapp and not environ.get("WHATSAPP_MENTION_PATTERNS"):
            json.dumps(whatsapp["mention_patterns"])
        for key, name in (("dm_policy", "WHATSAPP_DM_POLICY"), ("allow_from", "WHATSAPP_ALLOWED_USERS"),
                          ("group_policy", "WHATSAPP_GROUP_POLICY"),
                          ("group_allow_from", "WHATSAPP_GROUP_ALLOWED_USERS")):
            if key.endswith("policy") and key in whatsapp:
                set_if_unset(name, str(whatsapp[key]).lower())
            elif not key.endswith("policy") and whatsapp.get(key) is not None:
                set_if_unset(name, whatsapp[key])
    if (dingtalk := top("dingtalk")) is not None:  # :1231-1252 (no nested extra.allowed_users: 0.19's)
        if "mention_patterns" in dingtalk and not environ.get("DINGTALK_MENTION_PATTERNS"):
            json.dumps(dingtalk["mention_patterns"])
        if dingtalk.get("allowed_users") is not None:
            set_if_unset("DINGTALK_ALLOWED_USERS", dingtalk["allowed_users"])
    if (matrix := top("matrix")) is not None and matrix.get("allowed_users") is not None:  # :1258-1266
        set_if_unset("MATRIX_ALLOWED_USERS", matrix["allowed_users"])
    if (feishu := top("feishu")) is not None and "allow_bots" in feishu:  # :1292-1295
        set_if_unset("FEISHU_ALLOW_BOTS", str(feishu["allow_bots"]).lower())
