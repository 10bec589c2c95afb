"""Answers → Changes: what a face's choices mean on disk, decided once for every face.

The TUI, the prompts and flags all ask the same questions — enable a platform, set
a credential, choose who may use it — and this module turns an answer into the
Changes that make Hermes 0.19 see exactly that, with the opt-ins it requires:
choosing "open" writes the platform's own allow-all variable (never the global
one); choosing anything else removes a stale opt-in.  `preview` judges the plan
with the same resolver as `check`.

Contract: pure; nothing here writes.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from hermes_wizard.hermes.loader.envrules import ALLOW_ALL_TRUE
from hermes_wizard.hermes.loader.yamlfile import lookup
from hermes_wizard.judge.engine import evaluate
from hermes_wizard.judge.provenance import platform_blocks, yaml_paths
from hermes_wizard.plan.actions import ChangeAction
from hermes_wizard.plan.changes import ENV, YAML, Change, Plan, is_secret_name, planned_contents, planned_modes

if TYPE_CHECKING:
    from collections.abc import Iterable

    from hermes_wizard.hermes.loader.catalog import Spec
    from hermes_wizard.judge.engine import HomeReport

ACCESS_MODES = ("pairing", "allowlist", "open", "disabled")
GROUP_POLICIES = ("open", "allowlist", "pairing", "disabled")  # the five gated platforms' adapters
EMPTY_ALLOWLIST = "An allowlist of nobody is pairing: list at least one ID, or choose pairing."
EMPTY_GROUP_ALLOWLIST = ("A group allowlist of no chat answers no group: list at least one group chat ID, "
                         "or choose disabled.")
TOKEN_SHAPES = {
    "TELEGRAM_BOT_TOKEN": (r"\d{6,12}:[A-Za-z0-9_-]{30,}",
                           "a Telegram token looks like 123456789:AA… (from @BotFather)"),
    "SLACK_BOT_TOKEN": (r"xoxb-[A-Za-z0-9-]+", "a Slack bot token starts with xoxb-"),
    "SLACK_APP_TOKEN": (r"xapp-[A-Za-z0-9-]+", "a Slack app token starts with xapp-"),
    "WEIXIN_ACCOUNT_ID": (r"[^\s/]+", "the iLink bot account ID, e.g. b0f5…@im.bot"),
    "MATRIX_HOMESERVER": (r"https?://\S+", "a URL such as https://matrix.org"),
    "SIGNAL_HTTP_URL": (r"https?://\S+", "the signal-cli HTTP URL, e.g. http://127.0.0.1:8080"),
    "SIGNAL_ACCOUNT": (r"\+\d{6,15}", "the account's number in E.164, e.g. +15551234567"),
    "EMAIL_ADDRESS": (r"[^@\s]+@[^@\s]+", "an email address"),
}


def credential_error(key: str, value: str) -> str | None:
    """Why `value` cannot be right for `key` (None when it looks fine)."""
    if value != value.strip():
        return "remove the spaces around it"
    if any(ch in value for ch in "\n\r\x00"):
        return "it must be a single line"
    shape = TOKEN_SHAPES.get(key)
    if value and shape and not re.fullmatch(shape[0], value):
        return shape[1]
    return None


def id_problems(spec: Spec, ids: Iterable[str], bot_number: str | None = None) -> list[str]:
    """Warnings about allowlist entries of the platform `spec` describes (the judged version's), never
    blocking: the user may know better."""
    problems = []
    for item in ids:
        if item == "*":
            problems.append("'*' lets everyone in: that is open access, not an allowlist")
        elif not spec.id_ok(item):
            problems.append(f"{item!r} does not look like {spec.id_hint or 'an ID of this platform'}")
        elif bot_number and item.lstrip("+").split("@")[0] == bot_number:
            problems.append(f"{item} is the bot's own number (from creds.json), not yours")
    return problems


def unmatchable_ids(spec: Spec, ids: Iterable[str]) -> list[str]:
    """Why each allowlist entry that can match no sender of the platform `spec` describes is refused (Hermes
    compares the sender's ID as a string: `@name` is never a Telegram user's ID, a WhatsApp entry without a digit is
    never a number, JID or LID — the catalog's `sender_id_shape`)."""
    if spec.sender_id_shape is None:
        return []
    shape, why = spec.sender_id_shape
    return [f"{item!r} can never match a {spec.label} sender: {why}"
            for item in ids if item != "*" and re.fullmatch(shape, item) is None]


def chat_problems(spec: Spec, chats: Iterable[object]) -> list[str]:
    """Why each group chat ID cannot be written to `spec`'s group chat list: one entry of it (its adapter splits the
    list at commas, `.env` ends a value at a line break), read back as written (no quote, `$`, backtick or
    backslash, which `.env` quoting cannot always keep): letters, digits and `@ . _ : + = / -` only — every chat ID
    shape the five adapters use (120363…@g.us, …@chatroom, OpenIDs, numeric group codes)."""
    hint = f" ({spec.group_chat_hint})" if spec.group_chat_hint else ""
    problems = []
    for chat in chats:
        if not isinstance(chat, str):
            problems.append(f"a group chat ID must be text, not {type(chat).__name__}")
        elif chat == "*":
            problems.append("'*' would admit every group: that is the open group policy, not a list")
        elif re.fullmatch(r"[A-Za-z0-9@._:+=/-]+", chat) is None:
            problems.append(f"{chat!r} is not one {spec.label} group chat ID{hint}: no commas, spaces or line "
                            "breaks — letters, digits and @ . _ : + = / - only")
    return problems


def group_chat_changes(report: HomeReport, platform: str, chats: Iterable[str]) -> list[Change]:
    """Write `chats` where `platform`'s adapter reads its group chat list (the catalog's `group_chats_env`, else
    `group_chats_key` in config.yaml: every place it is set already, else platforms.<name>.extra)."""
    spec = report.model.platforms()[platform]
    listed, reason = ",".join(chats), f"the group chats the {spec.label} adapter answers"
    if spec.group_chats_env:
        change = _env(report, spec.group_chats_env, listed, platform, reason)
        return [change] if change.before != change.after else []
    if not spec.group_chats_key:
        return []
    data = report.snapshot.yaml.mapping()
    found = [path for path in yaml_paths(platform, spec.group_chats_key, data) if lookup(data, path) is not None]
    paths = found or [("platforms", platform, "extra", spec.group_chats_key)]
    changes = [Change(YAML, ".".join(path), None if (node := lookup(data, path)) is None else str(node), listed,
                      platform=platform, reason=reason) for path in paths]
    return [c for c in changes if c.before != c.after]


def split_ids(text: str) -> list[str]:
    return [part.strip() for part in re.split(r"[,\s]+", text) if part.strip()]


def _env(report: HomeReport, key: str, value: str, platform: str, reason: str) -> Change:
    entry = report.snapshot.env.entries.get(key)
    return Change(ENV, key, entry.value if entry else None, value, platform=platform, reason=reason,
                  secret=is_secret_name(key))


def credential_changes(report: HomeReport, platform: str, values: dict[str, str]) -> list[Change]:
    changes = []
    for key, value in values.items():
        current = report.snapshot.env.values.get(key)
        if value and value != current:
            changes.append(_env(report, key, value, platform, "credential"))
    return changes


def policy_changes(report: HomeReport, platform: str, side: str, value: str) -> list[Change]:
    """Set a gated platform's dm/group policy everywhere Hermes might read it from."""
    spec = report.model.platforms()[platform]
    changes = []
    env_name = getattr(spec.gate, f"{side}_env") if spec.gate else None
    if env_name:
        seen = report.effective.environ.get(env_name, "").strip().lower()
        if seen != value or env_name in report.snapshot.env.entries:
            changes.append(_env(report, env_name, value, platform, f"{side} policy"))
    data = report.snapshot.yaml.mapping()
    for path in yaml_paths(platform, f"{side}_policy", data):
        node = lookup(data, path)
        if node is not None and str(node).strip().lower() != value:
            changes.append(Change(YAML, ".".join(path), str(node), value, platform=platform, reason=f"{side} policy"))
    if not env_name and not any(c.file == YAML for c in changes):  # qqbot: YAML is the only place
        changes.append(Change(YAML, f"platforms.{platform}.extra.{side}_policy", None, value, platform=platform,
                              reason=f"{side} policy"))
    return [c for c in changes if c.before != c.after]


def access_changes(report: HomeReport, platform: str, mode: str, ids: list[str] | tuple[str, ...] = ()) -> list[Change]:
    """Changes that give `platform` the access `mode` (one of ACCESS_MODES)."""
    if mode not in ACCESS_MODES:
        raise ValueError(f"unknown access mode {mode!r}")
    spec = report.model.platforms()[platform]
    if mode == "disabled":
        return enable_changes(report, platform, False)
    if mode == "allowlist" and not [i for i in ids if i.strip()]:
        raise ValueError(EMPTY_ALLOWLIST)
    changes: list[Change] = []
    environ = report.effective.environ
    if spec.gate:
        changes += policy_changes(report, platform, "dm", "open" if mode == "open" else mode)
    allow_all = spec.allow_all_env
    if allow_all:
        if mode == "open":
            changes.append(_env(report, allow_all, "true", platform, "explicit opt-in to open access"))
        elif environ.get(allow_all, "").lower() in ALLOW_ALL_TRUE or allow_all in report.snapshot.env.entries:
            changes.append(_env(report, allow_all, "false", platform, "no open access"))
    if spec.allowlist_env:
        listed = ",".join(ids)
        if mode == "allowlist" or (mode == "pairing" and ids):
            changes.append(_env(report, spec.allowlist_env, listed, platform, "who may use the agent"))
        if mode == "allowlist" and spec.adapter_allowlist_env:
            changes.append(_env(report, spec.adapter_allowlist_env, listed, platform,
                                f"the {spec.label} adapter forwards only the DMs its own list names"))
        if mode == "allowlist" and spec.adapter_allowlist_key:
            changes.append(Change(YAML, f"{platform}.{spec.adapter_allowlist_key}", None, listed, platform=platform,
                                  reason=f"the {spec.label} adapter reads its allowlist from YAML"))
    return [c for c in changes if c.before != c.after]


def opt_in_changes(report: HomeReport, platform: str) -> list[Change]:
    """The platform's own allow-all set to true (what an open DM or group policy needs); never the global one."""
    allow_all = report.model.platforms()[platform].allow_all_env
    if not allow_all:
        return []
    change = _env(report, allow_all, "true", platform, "explicit opt-in to open access")
    return [change] if change.before != change.after else []


def enable_changes(report: HomeReport, platform: str, enabled: bool) -> list[Change]:
    """Turn a platform on or off the way Hermes will honour (force-enabling credentials
    are commented out, reversibly, to turn one off)."""
    changes: list[Change] = []
    switch = report.model.platforms()[platform].enabled_env
    if switch:
        changes.append(_env(report, switch, "true" if enabled else "false", platform, "on/off"))
    if not enabled:
        for key in report.model.forcing_credentials(platform):
            if key in report.snapshot.env.entries:
                changes.append(Change(ENV, key, None, None, ChangeAction.DISABLE, platform, "on/off",
                                      is_secret_name(key)))
    data = report.snapshot.yaml.mapping()
    # Explicit in YAML either way: env-enabled platforms honour an explicit `false`,
    # and the plugin pass never re-enables a platform whose YAML says so.
    for block in platform_blocks(data, platform):
        current = lookup(data, block + ("enabled",))
        changes.append(Change(YAML, ".".join(block + ("enabled",)), None if current is None else str(current).lower(),
                              "true" if enabled else "false", platform=platform, reason="on/off"))
    # a DISABLE carries no values (before and after are both None): it is never a no-op
    return [c for c in changes if c.action == ChangeAction.DISABLE or c.before != c.after]


def build_plan(report: HomeReport, changes: list[Change]) -> Plan:
    return Plan.of(report.home, changes)


def preview(report: HomeReport, plan: Plan, service_steps: Iterable[object] = ()) -> HomeReport:
    """The HomeReport Hermes's files would give once `plan` is applied, the service units read as `report`
    read them, with the drop-ins of `service_steps` in place."""
    stored = {step.variable: step.secret for step in plan.keyring if step.secret is not None}
    return evaluate(report.home, report.profile, base_env=report.snapshot.base_env, facts=report.facts,
                    overrides=planned_contents(plan, model=report.model), keyring_planned=stored or None,
                    service=report.service.with_planned(service_steps), parsed=report.parsed,
                    modes=planned_modes(plan))
