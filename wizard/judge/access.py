"""Who can reach the agent: a judged home, its pairing store, and its Hermes version's authorizer.

`load_view` judges the home as `check` does (the same resolved environment and platform
configs) and reads the pairing store and WhatsApp alias files as the home's owner could;
`decide` asks the version's authorizer (the `Model` contract, `authorizer()`) about one sender;
`source_of` says where the deciding value lives (`.env:3`, `config.yaml:12`, a pairing file);
`platform_access` sums up, per enabled platform, who gets through in DMs and in groups; `nobody_heard` says
when none of that matters yet, because the gateway does not start.

Contract: read-only; never raises for anything found on disk.  Values returned are the home's
own text: faces escape them before display (wizard/core/safetext.py).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_wizard.core.homeroot import home_owner
from hermes_wizard.core.smallfile import reading_for
from hermes_wizard.core.values import Value, value_class
from hermes_wizard.hermes.access.access_files import AccessFiles
from hermes_wizard.hermes.access.authz import ALWAYS, GROUP_CHATS, GROUP_USERS, Authorizer, Decision, Sender
from hermes_wizard.hermes.models import model_for
from hermes_wizard.judge.engine import HomeReport, evaluate
from hermes_wizard.judge.provenance import env_source, find_yaml, policy_source, yaml_source
from hermes_wizard.judge.report import start_obstacle

if TYPE_CHECKING:
    from hermes_wizard.hermes.loader.plugins import HostFacts

CHAT_TYPES = ("dm", "group", "channel", "forum")


@value_class
class AccessView(Value):
    report: HomeReport
    files: AccessFiles
    authorizer: Authorizer


def load_view(home: Path, profile: str = "default", *, base_env: dict[str, str] | None = None,
              facts: HostFacts | None = None) -> AccessView:
    report = evaluate(home, profile, base_env=base_env, facts=facts)
    model = model_for(report.facts.hermes if report.facts else None)
    with reading_for(home_owner(home)):
        files = model.access_files(home, home_owner(home), report.effective.environ)
    return AccessView(report, files, model.authorizer())


def nobody_heard(view: AccessView) -> str | None:
    """The sentence every face of access shows first when the gateway does not start (Hermes refuses, or
    crashes, at start: the verdict `check` exits 78 for), whatever the rules would let through once it does —
    "nobody: the gateway does not start — <why>"; None when it starts, or when the home cannot be judged (each
    face says that its own way).  `access PLATFORM SENDER` then exits 1."""
    obstacle = start_obstacle(view.report)
    return None if obstacle is None else f"nobody: the gateway does not start — {obstacle}"


def decide(view: AccessView, sender: Sender) -> Decision:
    effective = view.report.effective
    return view.authorizer.decide(effective.environ, effective.platforms, view.files, sender)


def source_of(view: AccessView, decision: Decision, platform: str) -> str | None:
    """Where the value that decided lives, in the home's own terms."""
    snapshot = view.report.snapshot
    if decision.path:
        try:
            return str(Path(decision.path).relative_to(view.report.home))
        except ValueError:
            return decision.path
    if decision.variable:
        where = env_source(snapshot, decision.variable)
        if where != decision.variable:
            return where.split(" in ", 1)[1]
        return _yaml_bridge(view, platform, decision.variable) or "the gateway's environment"
    if decision.yaml_key:
        key = decision.yaml_key.split(".", 1)[0]
        if key in ("dm_policy", "group_policy"):  # env wins over YAML where Hermes copies it into extra
            return _policy_source(view, platform, key, key.removesuffix("_policy"))
        path = find_yaml(snapshot, platform, key)
        if path:
            return yaml_source(snapshot, path).split(" (", 1)[0]
        variable = f"{platform.upper()}_{key.upper()}"  # the loader's env override wrote it into extra
        where = env_source(snapshot, variable)
        return where.split(" in ", 1)[1] if where != variable else "config.yaml"
    return None


# variables a platform's YAML hook sets from config.yaml when still unset (wizard/hermes/loader/plugins.py)
_FROM_YAML = {"WHATSAPP_ALLOWED_USERS": "allow_from", "WHATSAPP_GROUP_ALLOWED_USERS": "group_allow_from",
              "WHATSAPP_DM_POLICY": "dm_policy", "WHATSAPP_GROUP_POLICY": "group_policy",
              "TELEGRAM_ALLOWED_USERS": "allow_from", "TELEGRAM_GROUP_ALLOWED_USERS": "group_allow_from",
              "TELEGRAM_GROUP_ALLOWED_CHATS": "group_allowed_chats",
              "DISCORD_ALLOWED_USERS": "allow_from", "MATRIX_ALLOWED_USERS": "allowed_users",
              "DINGTALK_ALLOWED_USERS": "allowed_users"}


def _yaml_bridge(view: AccessView, platform: str, variable: str) -> str | None:
    """Where in config.yaml a variable Hermes copied from YAML was written."""
    key = _FROM_YAML.get(variable)
    path = find_yaml(view.report.snapshot, variable.split("_", 1)[0].lower(), key) if key else None
    return yaml_source(view.report.snapshot, path).split(" (", 1)[0] if path else None


@value_class
class Side(Value):
    """Who gets through on one side (dm or group) of a platform."""

    everyone: str | None = None  # the opt-in that opens it (a variable name or rule)
    everyone_source: str | None = None
    allowlisted: tuple[tuple[str, str, str | None], ...] = ()  # (id, variable, name the store knows)
    adapter_allowlist: str | None = None  # an own-policy adapter's allowlist (where it is set)
    disabled: str | None = None  # the adapter drops this side at intake (where its policy is set)
    chats_only: str | None = None  # groups: the adapter forwards only the chats its own group list names (where)
    chats: tuple[str, ...] = ()  # with chats_only: the chats that list names
    dropped_by: str = ""  # the policy value that makes it drop them ("disabled", WhatsApp groups: "pairing"...)


@value_class
class PlatformAccess(Value):
    name: str
    dm: Side
    group: Side
    approved: tuple[tuple[str, str], ...] = ()  # (id, user_name)
    pending: tuple[tuple[str, str, int], ...] = ()  # (id, user_name, age in minutes)
    error: str | None = None


def platform_access(view: AccessView, now: float) -> list[PlatformAccess]:
    effective = view.report.effective
    out = []
    for name in effective.enabled():
        approved_file = view.files.approved_for(name)
        approved = [(str(k), _name(v)) for k, v in _pairs(approved_file.data)]
        pending = []
        entries = view.files.pending.get(name)
        for _key, info in _pairs(entries.data if entries else {}):
            created = info.get("created_at") if isinstance(info, dict) else None
            if isinstance(created, (int, float)) and not isinstance(created, bool) and now - created <= 3600:
                pending.append((str(info.get("user_id", "")), _name(info), int((now - created) / 60)))
        known = {uid: who for uid, who in approved if who} | {uid: who for uid, who, _ in pending if who}
        out.append(PlatformAccess(name, _side(view, name, "dm", known), _side(view, name, "group", known),
                                  tuple(approved), tuple(pending), approved_file.crash))
    return out


def _pairs(data: Any) -> list[tuple[Any, Any]]:
    if isinstance(data, dict):
        return list(data.items())
    if isinstance(data, list):
        return [(item, {}) for item in data]
    return []


def _name(info: Any) -> str:
    return str(info.get("user_name") or "") if isinstance(info, dict) else ""


def _side(view: AccessView, name: str, side: str, known: dict[str, str]) -> Side:
    """Who gets through without being paired, judged by the authorizer's own rules."""
    env, auth = view.report.effective.environ, view.authorizer
    if name in ALWAYS:
        return Side(everyone="platform-always")
    gate = auth.gate(env, view.report.effective.platforms, name, side)
    if gate is not None and gate[0] == "drops":  # the adapter drops them at intake: the authorizer never sees them
        return Side(disabled=_policy_source(view, name, gate[2], side), dropped_by=gate[1] or "empty")
    # groups an adapter forwards only from the chats its own list names: who gets through, in those chats
    chats_only = (_policy_source(view, name, gate[2], side) if gate is not None and gate[0] == "listed"
                  and side == "group" else None)
    if chats_only:
        chats = auth.group_chats(env, view.report.effective.platforms, name)
        return replace(_who(view, name, side, known, gate), chats_only=chats_only, chats=chats)
    return _who(view, name, side, known, gate)


def _who(view: AccessView, name: str, side: str, known: dict[str, str], gate: tuple[str, str, str] | None) -> Side:
    """Who the authorizer lets through on `side` (in groups the adapter forwards only from listed chats: in those)."""
    env, auth = view.report.effective.environ, view.authorizer
    probe = Sender(name, "\x00nobody\x00", "dm" if side == "dm" else "group", "\x00nochat\x00")
    decision = decide(view, probe)
    if decision.authorized:
        source = source_of(view, decision, name)
        if decision.rule == "adapter-allowlist":
            return Side(everyone_source=source, adapter_allowlist=source or "config.yaml")
        return Side(everyone=decision.variable or decision.rule, everyone_source=source)
    variables = [auth.allowlist_env(name), GROUP_USERS.get(name, "") if side == "group" else "",
                 GROUP_CHATS.get(name, "") if side == "group" else "", "GATEWAY_ALLOWED_USERS"]
    allowlisted = tuple((item, variable, known.get(item)) for variable in filter(None, variables)
                        for item in sorted({i.strip() for i in auth.auth_env(env, variable).split(",") if i.strip()}))
    if gate is not None and gate[0] == "listed" and side == "dm":  # the adapter forwards only its own list's DMs
        platforms = view.report.effective.platforms
        allowlisted = tuple(row for row in allowlisted if auth.intake(
            env, platforms, view.files, Sender(name, row[0], "dm", None))[0] is not False)
        if not allowlisted:
            return Side(disabled=_policy_source(view, name, gate[2], side),
                        dropped_by="allowlist, and its own list names none of them")
    return Side(allowlisted=allowlisted)


def _policy_source(view: AccessView, name: str, where: str, side: str) -> str:
    """Where an own-policy adapter's `side` policy comes from: an env line, config.yaml, or its default.  `where`
    is what the adapter read: an extra key Hermes may have filled from the environment (its env override
    wins over YAML, wizard/judge/provenance.py `policy_source`), an env name, or `default`."""
    if where == "default":
        return "the adapter's default"
    spec = view.report.model.platforms().get(name)
    if where == f"{side}_policy" and spec is not None:
        found = policy_source(view.report.snapshot, spec, side, from_extra=True)
        return found.split(" in ", 1)[1] if " in " in found else found.split(" (", 1)[0]
    if where.isupper():
        found = env_source(view.report.snapshot, where)
        return found.split(" in ", 1)[1] if found != where else where
    path = find_yaml(view.report.snapshot, name, where)
    return yaml_source(view.report.snapshot, path).split(" (", 1)[0] if path else "config.yaml"
