"""The plugin side of Hermes 0.19's loader: YAML→env hooks and the plugin enable pass.

Bundled plugin platforms are visited in directory order.  For a platform not yet
enabled, `is_connected` is asked about a probe config that keeps only `extra`
(token and home channel are dropped); then `check_fn` must pass, which for most
plugins means "the SDK is importable in Hermes's Python".  The pass only ever
turns platforms on.

Hermes's Python is not ours, so what it can import is a host fact (`HostFacts`):
detected from its site-packages when we can find it, else assumed installed.

Contract: no imports of Hermes; no subprocess unless `HostFacts.detect` is asked
to verify node.
"""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_wizard.core.pathsearch import which
from hermes_wizard.core.values import Value, value_class
from hermes_wizard.hermes.install import detect as detect_install
from hermes_wizard.hermes.loader.plugin_rules import yaml_hook
from hermes_wizard.hermes.loader.state import PlatformState
from hermes_wizard.hermes.versions import Judgement, judgement

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from hermes_wizard.core.shapes import Parsed
    from hermes_wizard.hermes.model import Model

    # (name, its YAML block, config.yaml, gateway.platforms, set-if-unset, model) -> extra keys it seeds
    Hook = Callable[[str, Parsed, Parsed, Any, Callable[[str, str], None], Model], Parsed | None]

PLUGIN_ORDER = ("dingtalk", "discord", "email", "feishu", "google_chat", "homeassistant", "irc", "line", "matrix",
                "mattermost", "ntfy", "photon", "raft", "simplex", "slack", "sms", "teams", "telegram", "wecom",
                "wecom_callback", "whatsapp")
# Plugin-only names the shared-key loop visits after the enum members.
PLUGIN_ORDER_EXTRA = ("google_chat", "irc", "line", "ntfy", "photon", "raft", "simplex", "teams")
HOOK_ORDER = ("dingtalk", "discord", "feishu", "matrix", "mattermost", "slack", "telegram", "whatsapp")

# What each plugin's check_fn imports (top-level module names), in Hermes's Python.
SDK_MODULES: dict[str, tuple[str, ...]] = {
    "dingtalk": ("dingtalk_stream", "httpx"), "discord": ("discord",), "feishu": ("lark_oapi",),
    "google_chat": ("httplib2", "google.cloud.pubsub_v1", "google.oauth2", "google_auth_httplib2", "googleapiclient"),
    "homeassistant": ("aiohttp",), "line": ("aiohttp",), "matrix": ("mautrix", "aiosqlite", "asyncpg",
                                                                    "aiohttp_socks", "aiohttp"),
    "mattermost": ("aiohttp",), "ntfy": ("httpx",), "photon": ("httpx",), "raft": ("aiohttp",),
    "simplex": ("websockets",), "slack": ("slack_bolt", "slack_sdk", "aiohttp"), "sms": ("aiohttp",),
    "teams": ("microsoft_teams", "aiohttp"), "telegram": ("telegram",), "wecom": ("aiohttp", "httpx"),
    "wecom_callback": ("defusedxml", "aiohttp", "httpx"),
}


@value_class
class HostFacts(Value):
    """What Hermes's own Python and PATH provide (decides plugin `check_fn`s); a value, detected once
    (`detect`) and handed down, never changed (`judged_as` gives the same host judged as another Hermes)."""

    modules: frozenset[str] | None = None  # importable modules; None = unknown, assume all
    node: bool = False
    raft_cli: bool = False
    photon_sidecar: bool = False
    site_packages: Path | None = None
    notes: tuple[str, ...] = ()
    hermes: Judgement | None = None  # which Hermes judges (None: the newest model, as if assumed)
    # `hermes plugins enable` admits a plugin through Hermes's package manager (the main line: its
    # hermes_cli/plugins_admission.py; a download of Hermes's managed Python, refused offline)
    plugin_admission: bool = False
    # the home a command run here finds by itself ($HERMES_HOME, else ~/.hermes); None: unknown
    # (wizard/judge/commands.py names any other home on the commands a report prints)
    default_home: Path | None = None

    def has(self, *names: str) -> bool:
        return self.modules is None or all(name in self.modules for name in names)

    @classmethod
    def detect(cls, home: Path, hermes_python: str | None = None,
               environ: Mapping[str, str] | None = None) -> HostFacts:
        environ = environ if environ is not None else dict(os.environ)
        # as named, from here: Hermes is later run from another folder (lexically: a venv's python is a symlink)
        hermes_python = os.path.abspath(hermes_python) if hermes_python else None
        node, raft_cli = node_present(home, environ), which("raft") is not None
        install = detect_install(home, hermes_python, environ)
        hermes = judgement(install.version, str(install.prefix) if install.prefix else None, "detected",
                           distribution=install.distribution, release_date=install.release_date,
                           verified_as=install.verified_as)
        site, default = install.site_packages, _default_home(environ)
        if site is None:
            return cls(node=node, raft_cli=raft_cli, hermes=hermes, photon_sidecar=True,
                       notes=("Hermes's Python was not found: assuming its messaging SDKs are installed",),
                       default_home=default)
        code = install.code_root or site
        return cls(frozenset(_importable(site)), node, raft_cli,
                   photon_sidecar=(code / "plugins" / "platforms" / "photon" / "sidecar" / "node_modules").is_dir(),
                   site_packages=site, hermes=hermes,
                   plugin_admission=_regular_file(code / "hermes_cli" / "plugins_admission.py"), default_home=default)

    def judged_as(self, hermes: Judgement) -> HostFacts:
        """This host, its Hermes judged as `hermes` (`--hermes-version`, `--target`)."""
        return replace(self, hermes=hermes)


def _regular_file(path: Path) -> bool:
    """One stat (a file of Hermes's is never opened, let alone run); False for anything unreadable."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def node_present(home: Path, environ: Mapping[str, str]) -> bool:
    """Node.js for the bridge-based platforms: the home's own (Hermes's installer) or one on PATH."""
    for candidate in (home / "node" / "bin" / "node", home / "node" / "node"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return True
    return which("node", path=environ.get("PATH")) is not None


def _importable(site: Path) -> set[str]:
    names = set()
    try:
        for entry in site.iterdir():
            stem = entry.name.split(".", 1)[0]
            if entry.is_dir() and not entry.name.endswith((".dist-info", ".egg-info")):
                names.add(entry.name)
            elif entry.suffix in (".py", ".so", ".pth") or ".cpython-" in entry.name:
                names.add(stem)
    except OSError:
        return names
    if (site / "google" / "cloud" / "pubsub_v1").is_dir():
        names.add("google.cloud.pubsub_v1")
    if (site / "google" / "oauth2").is_dir():
        names.add("google.oauth2")
    return names


def apply_yaml_hooks(yaml_cfg: Parsed, gateway_platforms: Any, platforms_data: Parsed, environ: dict[str, str],
                     model: Model, names: tuple[str, ...] = HOOK_ORDER, hook: Hook | None = None) -> None:
    """The plugin YAML→env hooks of `names` (default: the eight of 0.18+), reduced to what access and
    enablement read; `hook` answers for each (default: 0.19's, `plugin_rules.yaml_hook`)."""
    answer = hook or yaml_hook

    def block_for(name: str) -> Parsed | None:
        candidate = yaml_cfg.get(name)
        if isinstance(candidate, dict):
            return candidate
        for source in (gateway_platforms, yaml_cfg.get("platforms")):
            nested = source.get(name) if isinstance(source, dict) else None
            if isinstance(nested, dict):
                return nested
        return None

    def set_if_unset(env_name: str, value: str) -> None:
        if not environ.get(env_name):
            environ[env_name] = value

    for name in names:
        block = block_for(name)
        if block is None:
            continue
        try:
            seeded = answer(name, block, yaml_cfg, gateway_platforms, set_if_unset, model)
        except Exception:  # Hermes logs and skips a failing hook
            continue
        if seeded:
            ensure_extra(platforms_data, name)[1].update(seeded)


def ensure_extra(platforms_data: Parsed, name: str) -> tuple[Parsed, Parsed]:
    """The loader's get-or-create of `platforms_data[name]["extra"]`, coercing non-dicts."""
    block = platforms_data.setdefault(name, {})
    if not isinstance(block, dict):
        block = platforms_data[name] = {}
    extra = block.setdefault("extra", {})
    if not isinstance(extra, dict):
        extra = block["extra"] = {}
    return block, extra


def seed(name: str, env: dict[str, str], model: Model) -> dict[str, str | bool] | None:
    """`env_enablement_fn`: the extra keys a plugin seeds from env (None: not configured)."""
    get: Callable[[str], str] = lambda key: env.get(key, "")
    if name == "irc" and get("IRC_SERVER").strip() and get("IRC_CHANNEL").strip():
        return {"server": get("IRC_SERVER").strip(), "channel": get("IRC_CHANNEL").strip()}
    if name == "ntfy" and get("NTFY_TOPIC").strip():
        return {"topic": get("NTFY_TOPIC").strip()}
    if name == "simplex" and get("SIMPLEX_WS_URL").strip():
        return {"ws_url": get("SIMPLEX_WS_URL").strip()}
    if name == "raft" and get("RAFT_PROFILE"):
        return {"enabled": True}
    if name == "teams" and all(get(k).strip() for k in ("TEAMS_CLIENT_ID", "TEAMS_CLIENT_SECRET", "TEAMS_TENANT_ID")):
        return {"client_id": get("TEAMS_CLIENT_ID").strip(), "client_secret": get("TEAMS_CLIENT_SECRET").strip(),
                "tenant_id": get("TEAMS_TENANT_ID").strip()}
    if name == "line" and get("LINE_CHANNEL_ACCESS_TOKEN") and get("LINE_CHANNEL_SECRET"):
        return {}
    if name == "google_chat":
        url = get("GOOGLE_CHAT_HTTP_EVENTS_URL") if model.google_chat_http_mode else ""
        project = get("GOOGLE_CHAT_PROJECT_ID") or get("GOOGLE_CLOUD_PROJECT")
        subscription = get("GOOGLE_CHAT_SUBSCRIPTION_NAME") or get("GOOGLE_CHAT_SUBSCRIPTION")
        if url or (project and subscription):
            return {"project_id": project, "subscription_name": subscription, "http_events_url": url}
    if name == "photon" and get("PHOTON_PROJECT_ID") and get("PHOTON_PROJECT_SECRET"):
        return {"project_id": get("PHOTON_PROJECT_ID"), "project_secret": get("PHOTON_PROJECT_SECRET")}
    return None


def check_fn(name: str, env: dict[str, str], facts: HostFacts, model: Model) -> bool:
    """A plugin's `check_fn` with lazy installs off: its SDK and env preconditions."""
    get: Callable[[str], str] = lambda key: env.get(key, "")
    if not all(get(key) for key in model.check_fn_env(name)):
        return False
    if name == "whatsapp":
        return facts.node
    if name == "email":
        return all(get(k).strip() for k in ("EMAIL_ADDRESS", "EMAIL_PASSWORD", "EMAIL_IMAP_HOST", "EMAIL_SMTP_HOST"))
    if name == "irc":
        return bool(get("IRC_SERVER") and get("IRC_CHANNEL"))
    sdk = facts.has(*SDK_MODULES.get(name, ()))
    if name == "dingtalk":
        return sdk and bool(get("DINGTALK_CLIENT_ID") and get("DINGTALK_CLIENT_SECRET"))
    if name == "google_chat":
        return sdk and seed("google_chat", env, model) is not None
    if name == "line":
        return sdk and bool(get("LINE_CHANNEL_ACCESS_TOKEN") and get("LINE_CHANNEL_SECRET"))
    if name == "matrix":
        return sdk and bool((get("MATRIX_ACCESS_TOKEN") or get("MATRIX_PASSWORD")) and get("MATRIX_HOMESERVER"))
    if name == "ntfy":
        return sdk and bool(get("NTFY_TOPIC").strip())
    if name == "photon":
        return sdk and facts.photon_sidecar and which(get("PHOTON_NODE_BIN") or "node") is not None
    if name == "raft":
        return sdk and facts.raft_cli
    if name == "simplex":
        return sdk and bool(get("SIMPLEX_WS_URL"))
    if name == "sms":
        return sdk and bool(get("TWILIO_ACCOUNT_SID") and get("TWILIO_AUTH_TOKEN"))
    return sdk


def enable_pass(platforms: dict[str, PlatformState], environ: dict[str, str], facts: HostFacts,
                simple_env: Mapping[str, str], model: Model) -> None:
    """The registry-driven plugin enable pass (0.19.0 gateway/config.py:2370-2522), asking `model` for each
    plugin's `env_enablement_fn`, `is_connected` and `check_fn`."""
    for name in model.plugin_platforms():
        existing = platforms.get(name)
        if (model.enable_pass_honors_explicit and existing is not None and not existing.enabled
                and existing.extra.get("_enabled_explicit", False)):
            continue
        seeded = model.plugin_seed(name, environ)
        if existing is None or not existing.enabled:
            probe_extra = dict(existing.extra) if existing is not None else {}
            for key, value in (seeded or {}).items():
                probe_extra.setdefault(key, value)
            if not model.plugin_is_connected(name, probe_extra, environ, simple_env):
                continue
        if not model.plugin_check_fn(name, environ, facts) and not model.installs_deps_on_demand(name):
            continue
        state = platforms.setdefault(name, PlatformState())
        state.enabled = True
        if seeded:
            state.extra.update(seeded)


def _default_home(environ: Mapping[str, str]) -> Path | None:
    """The home `hermes-wizard` finds without --home under `environ` (core/homeroot.py resolve_root's rule)."""
    raw = (environ.get("HERMES_HOME") or "").strip()
    try:
        return (Path(raw).expanduser() if raw else Path(environ.get("HOME") or Path.home()) / ".hermes").absolute()
    except (RuntimeError, KeyError):  # no home directory to expand
        return None
