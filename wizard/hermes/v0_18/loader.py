"""The pieces of Hermes 0.18's loader that 0.19 changed: `.env` decoding, the YAML phase's
`gateway:` handling, and `from_dict` without 0.19's defensive coercions.

Each function reproduces *where* 0.18.2 fails, so the shared resolver fails (or falls back)
at the same point.  Citations are into the 0.18.2 wheel.
"""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING, Any

from hermes_wizard.hermes.loader.catalog import platform_value
from hermes_wizard.hermes.loader.envfile import sanitize_lines, text_as_opened
from hermes_wizard.hermes.loader.gwdata import GatewayJsonCrash
from hermes_wizard.hermes.loader.state import LoaderCrash

if TYPE_CHECKING:
    from hermes_wizard.core.shapes import Parsed


def decode_env(raw: bytes, keys: frozenset[str]) -> tuple[str, str, bool]:
    """`_sanitize_env_file_if_needed` (env_loader.py:167-218), then the UTF-8/latin-1 load.

    Always read as utf-8-sig with errors=replace — no BOM sniffing, so a UTF-16 file's BOM
    becomes U+FFFD U+FFFD glued to its first key — NULs stripped, lines sanitized, and the
    file rewritten (as UTF-8) whenever anything changed; no guard for a U+FFFD first line.
    """
    original = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8-sig", errors="replace", newline=None).readlines()
    cleaned = sanitize_lines(original, keys)
    return sanitized_or_loaded(raw, original, cleaned)


def sanitized_or_loaded(raw: bytes, original: list[str], cleaned: list[str]) -> tuple[str, str, bool]:
    """What 0.18's and 0.17's `.env` loads read once the sanitizer has run over `original`: the sanitized text
    (the file is rewritten as UTF-8, labelled by the BOM it had) when anything changed, else the file as
    `_load_dotenv_with_fallback` opens it (UTF-8, then latin-1)."""
    if cleaned != original:
        label = ("utf-32" if raw[:4] in (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")
                 else "utf-16" if raw[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8")
        return "".join(cleaned), label, True
    try:
        return text_as_opened(raw, "utf-8"), "utf-8", False
    except UnicodeDecodeError:
        return text_as_opened(raw, "latin-1"), "latin-1", False


def check_gateway_section(yaml_cfg: Parsed) -> None:
    """config.py:1054-1058: with no top-level `streaming:` mapping, `yaml_cfg.get("gateway", {}).get(...)`
    raises for a `gateway:` that is not a mapping (empty, a string, a list) — after the session_reset
    copy, before any platform is merged; the loader's guard then drops the rest of the YAML phase."""
    if isinstance(yaml_cfg.get("streaming"), dict) or "gateway" not in yaml_cfg:
        return
    section = yaml_cfg["gateway"]
    if not isinstance(section, dict):
        raise AttributeError(f"'{type(section).__name__}' object has no attribute 'get'")


def check_from_dict(gw_data: Any) -> None:
    """`GatewayConfig.from_dict` / `PlatformConfig.from_dict` (config.py:494-532, 825-835): no coercion,
    so a non-mapping where a mapping is read crashes the gateway (outside the YAML guard)."""
    if not isinstance(gw_data, dict):
        raise _crash("AttributeError", gw_data, "has no attribute 'get' (gateway.json)")
    platforms = gw_data.get("platforms", {})
    if not isinstance(platforms, dict):
        raise _crash("AttributeError", platforms, "has no attribute 'items' (platforms)")
    for name, block in platforms.items():
        if platform_value(name) is not None:  # else Platform(name) raises ValueError first: the entry is skipped
            _check_platform(name, block)
    for key in ("reset_by_type", "reset_by_platform"):
        _check_policies(key, gw_data.get(key, {}))
    if "default_reset_policy" in gw_data and not isinstance(gw_data["default_reset_policy"], dict):
        raise _crash("AttributeError", gw_data["default_reset_policy"], "has no attribute 'get' (session_reset)")
    streaming = gw_data.get("streaming", {})
    if streaming and not isinstance(streaming, dict):  # config.yaml's streaming mapping would have replaced it
        raise GatewayJsonCrash(f"gateway.json's streaming is {json.dumps(streaming)[:40]}, not a mapping: "
                               f"AttributeError: '{type(streaming).__name__}' object has no attribute 'get'",
                               "remove streaming from gateway.json (config.yaml's `streaming: {enabled: true}` "
                               "is where Hermes reads it)", ("streaming",))


def _crash(kind: str, what: Any, where: str) -> LoaderCrash:
    return LoaderCrash(f"{kind}: '{type(what).__name__}' object {where}")


def _check_platform(name: str, block: Any) -> None:
    """`PlatformConfig.from_dict` on one known platform's block: it, its home channel and its `extra` read as
    mappings (a non-mapping `extra` only where a key that would skip it is missing)."""
    if not isinstance(block, dict):
        raise _crash("AttributeError", block, f"has no attribute 'get' (platform {name})")
    if "home_channel" in block and not isinstance(block["home_channel"], dict):
        raise _crash("TypeError", block["home_channel"], f"is not subscriptable (home_channel of {name})")
    extra = block.get("extra", {})
    if not isinstance(extra, dict) and (block.get("gateway_restart_notification") is None
                                        or block.get("typing_indicator") is None):
        raise _crash("AttributeError", extra, f"has no attribute 'get' (extra of {name})")


def _check_policies(key: str, policies: Any) -> None:
    """`reset_by_type` / `reset_by_platform`: a mapping of mappings (a platform key Hermes does not know is
    skipped)."""
    if not isinstance(policies, dict):
        raise _crash("AttributeError", policies, f"has no attribute 'items' ({key})")
    for policy_name, policy in policies.items():
        if key == "reset_by_platform" and platform_value(policy_name) is None:
            continue
        if not isinstance(policy, dict):
            raise _crash("AttributeError", policy, f"has no attribute 'get' ({key}.{policy_name})")
