"""Access-policy checks: the startup refusal and every "open by another name"."""

from __future__ import annotations

from collections.abc import Iterable

from hermes_wizard.hermes.loader.credentials import approved_users
from hermes_wizard.hermes.loader.envrules import ALLOW_ALL_TRUE, TRUTHY
from hermes_wizard.hermes.loader.gate import opted_in, policies
from hermes_wizard.hermes.versions import FIRST_REFUSING_NAME
from hermes_wizard.judge.checks.reach import nobody_waiting
from hermes_wizard.judge.checks.registry import Context, Hit, check
from hermes_wizard.judge.provenance import env_source, find_yaml, policy_source, yaml_source

APPROVE = "hermes pairing approve {platform} <CODE>"


@check("HW101", "open-policy-without-opt-in", "error",
       "An own-policy platform is 'open' without an allow-all opt-in: Hermes refuses to start.",
       what=f"""weixin, whatsapp, wecom, qqbot and yuanbao enforce dm_policy/group_policy themselves. If either is
'open' and neither GATEWAY_ALLOW_ALL_USERS nor the platform's own *_ALLOW_ALL_USERS is true/1/yes, Hermes
{FIRST_REFUSING_NAME} and later refuse to start the whole gateway (gateway/run.py,
`_own_policy_open_startup_violation`).""",
       why="""The refusal exits 0, so systemd (Restart=always) restarts it every 5 seconds, forever, and every
other platform (your working Telegram bot) goes down with it. Only the first such platform is named in the log.""",
       fix="""Pick one: set the policy to pairing (recommended: strangers get a code you approve), to allowlist
(only listed IDs), or keep it open deliberately with <PLATFORM>_ALLOW_ALL_USERS=true. `hermes-wizard doctor`
applies pairing by default.""")
def open_policy_without_opt_in(ctx: Context) -> Iterable[Hit]:
    platforms = ctx.model.platforms()
    for index, violation in enumerate(ctx.violations):
        state = ctx.effective.platforms[violation.platform]
        seen = policies(violation.platform, state, ctx.effective.environ, platforms)
        where = []
        for side in violation.open_sides():
            short = side.split("_")[0]
            source = policy_source(ctx.snapshot, platforms[violation.platform], short,
                                   getattr(seen, f"{short}_from_extra"))
            where.append(f'{side} is "open" ({source})')
        first = (" Hermes names this one and stops." if index == 0
                 else f" (Hermes stops at {ctx.violations[0].platform} first.)")
        message = (f"{' and '.join(where)} but neither {violation.allow_all_env} nor GATEWAY_ALLOW_ALL_USERS "
                   f"is true/1/yes.{first}")
        fix = (f"pairing (recommended) · allowlist · keep open: {violation.allow_all_env}=true  "
               f"→ hermes-wizard doctor")
        yield Hit(violation.platform, message, fix)


@check("HW102", "allow-all-spelling-ignored", "warning",
       "An allow-all variable is set to a value Hermes does not accept as true.",
       what="""The startup gate and the authorizer accept only true, 1 or yes (any case) — not 'on', not
' true' with a space, not 'enabled'.""",
       why="""You meant to opt in, but Hermes treats the platform as not opted in: an open policy then refuses
to start, and otherwise strangers are not let in as you intended.""",
       fix="""Write the value as true (hermes-wizard doctor --fix does this), or remove the line.""")
def allow_all_spelling(ctx: Context) -> Iterable[Hit]:
    platforms = ctx.model.platforms()
    names: dict[str, str | None] = {"GATEWAY_ALLOW_ALL_USERS": None}
    names.update({spec.allow_all_env: spec.name for spec in platforms.values() if spec.allow_all_env})
    for key, platform in names.items():
        value = ctx.effective.environ.get(key)
        if value is None or value.lower() in ALLOW_ALL_TRUE:
            continue
        if value.strip().lower() in TRUTHY or value.strip().lower() in ("enabled", "enable", "y"):
            yield Hit(
                platform, f"{env_source(ctx.snapshot, key)} is {value!r}, which Hermes reads as NOT opted in "
                "(only true, 1 or yes count, unpadded).", f"{key}=true")


@check("HW103", "wildcard-allowlist", "warning",
       "'*' in an allowlist lets everyone in: open access by another name.",
       what="""Hermes treats '*' in any allowlist as 'everyone' (gateway/authz_mixin.py:583). The startup gate
does not look at allowlists, so this passes silently.""",
       why="""Anyone who can message the bot talks to your agent, which runs terminal, file and code tools on
this machine as you.""",
       fix="""Replace '*' with the IDs of the people you trust, or use pairing.""")
def wildcard_allowlist(ctx: Context) -> Iterable[Hit]:
    platforms = ctx.model.platforms()
    env = ctx.effective.environ
    for spec in platforms.values():
        state = ctx.effective.platforms.get(spec.name)
        if state is None or not state.enabled:
            continue
        for key in filter(None, (spec.allowlist_env, spec.allowlist_env and spec.allowlist_env.replace(
                "_ALLOWED_USERS", "_GROUP_ALLOWED_USERS"))):
            if "*" in [part.strip() for part in env.get(key, "").split(",")]:
                yield Hit(spec.name, f"{env_source(ctx.snapshot, key)} contains '*': "
                                                       "everyone is allowed.", f"list real IDs in {key}")
        for key in ("allow_from", "group_allow_from"):
            value = state.extra.get(key)
            items = value if isinstance(value, list) else str(value or "").split(",")
            if "*" in [str(item).strip() for item in items]:
                path = find_yaml(ctx.snapshot, spec.name, key)
                where = yaml_source(ctx.snapshot, path) if path else key
                yield Hit(spec.name, f"{where} contains '*': everyone is allowed.",
                                                       "list real IDs instead of '*'")
    if "*" in [p.strip() for p in env.get("GATEWAY_ALLOWED_USERS", "").split(",")]:
        yield Hit(None, f"{env_source(ctx.snapshot, 'GATEWAY_ALLOWED_USERS')} contains "
                                               "'*': every platform is open.", "list real IDs")


@check("HW104", "global-allow-all", "warning",
       "GATEWAY_ALLOW_ALL_USERS opens every enabled platform that has no allowlist.",
       what="""GATEWAY_ALLOW_ALL_USERS=true authorizes anyone on every platform without its own allowlist
(gateway/authz_mixin.py:482). Hermes's own generic setup writes it when you pick 'open access' for one platform.""",
       why="""Enabling a new platform later silently opens it to everyone too.""",
       fix="""Remove GATEWAY_ALLOW_ALL_USERS; opt in per platform with <PLATFORM>_ALLOW_ALL_USERS=true where you
really want open access.""")
def global_allow_all(ctx: Context) -> Iterable[Hit]:
    platforms = ctx.model.platforms()
    env = ctx.effective.environ
    if env.get("GATEWAY_ALLOW_ALL_USERS", "").lower() not in ALLOW_ALL_TRUE:
        return
    exposed = [spec.name for spec in platforms.values()
               if ctx.effective.platforms.get(spec.name) is not None and ctx.effective.platforms[spec.name].enabled
               and not spec.always_authorized and not (spec.allowlist_env and env.get(spec.allowlist_env, "").strip())]
    if exposed or env.get("GATEWAY_ALLOW_ALL_USERS"):
        yield Hit(
            None, f"{env_source(ctx.snapshot, 'GATEWAY_ALLOW_ALL_USERS')} is on: "
            f"{', '.join(exposed) or 'no enabled platform yet, but every future one'} "
            f"{'accepts' if len(exposed) <= 1 else 'accept'} messages from anyone.",
            "remove GATEWAY_ALLOW_ALL_USERS; use per-platform opt-ins")


@check("HW105", "open-outside-gate", "warning",
       "An 'open' policy on a platform the startup gate does not cover: open to everyone, no refusal.",
       what="""WhatsApp Cloud and Feishu read dm/group policies too, but Hermes's startup check only covers
weixin, whatsapp, wecom, qqbot and yuanbao. WhatsApp Cloud even defaults to 'open'.""",
       why="""Nothing stops or warns: strangers reach the agent.""",
       fix="""Set an allowlist (WHATSAPP_CLOUD_ALLOWED_USERS / FEISHU_ALLOWED_USERS) or a closed policy.""")
def open_outside_gate(ctx: Context) -> Iterable[Hit]:
    platforms = ctx.model.platforms()
    env = ctx.effective.environ
    for name, spec in platforms.items():
        state = ctx.effective.platforms.get(name)
        if state is None or not state.enabled:
            continue
        for side, key in zip(("dm_policy", "group_policy"), spec.ungated_policy_env):
            if key is None:
                continue
            default = spec.dm_default if side == "dm_policy" else spec.group_default
            value = str(state.extra.get(side) or env.get(key) or default).strip().lower()
            if value == "open" and not env.get(spec.allowlist_env or "", "").strip():
                where = env_source(ctx.snapshot, key) if key in env else f"the default {side}"
                yield Hit(name, f"{side} is open ({where}) and no allowlist is set: "
                                                      "anyone can message the agent.",
                                                      f"set {spec.allowlist_env} or {key}=allowlist")


@check("HW106", "pairing-only", "info",
       "No allowlist and pairing: the bot answers nobody until you approve someone.",
       what="""With pairing and no allowlist, every sender gets a one-time code and no access until the owner
approves it on this machine. Codes expire after one hour.""",
       why="""A new setup looks broken ('the bot doesn't answer') when it is waiting for your approval.""",
       fix="""Message the bot, then run `hermes pairing approve <platform> <CODE>` with the code it replies.""")
def pairing_only(ctx: Context) -> Iterable[Hit]:
    platforms = ctx.model.platforms()
    env = ctx.effective.environ
    for name, state in ctx.effective.platforms.items():
        spec = platforms.get(name)
        if not state.enabled or spec is None or spec.always_authorized or not spec.allowlist_env:
            continue
        if env.get(spec.allowlist_env, "").strip() or env.get("GATEWAY_ALLOWED_USERS", "").strip():
            continue
        if opted_in(name, env, platforms) or state.extra.get("allow_from"):
            continue
        seen = policies(name, state, env, platforms)
        if seen is not None and seen.dm != "pairing":
            continue
        approved = approved_users(ctx.home, name)
        if not approved and name in nobody_waiting(ctx):
            continue  # HW172 says it, with what to do
        users = "user" if approved == 1 else "users"
        status = f"{approved} approved {users} so far" if approved else "nobody is approved yet"
        yield Hit(name, f"no allowlist: strangers get a pairing code; {status}.",
                                         APPROVE.format(platform=name))


@check("HW107", "whatsapp-allowlist-unread", "warning",
       "WHATSAPP_ALLOWED_USERS with dm_policy allowlist: the WhatsApp adapter never reads that variable.",
       what="""The WhatsApp adapter's intake allowlist comes only from YAML allow_from; with
dm_policy=allowlist and no allow_from it drops every DM before the gateway's WHATSAPP_ALLOWED_USERS is consulted.""",
       why="""Nobody, not even you, gets an answer.""",
       fix="""Use dm_policy pairing with WHATSAPP_ALLOWED_USERS, or put the numbers in whatsapp.allow_from in
config.yaml.""")
def whatsapp_allowlist_unread(ctx: Context) -> Iterable[Hit]:
    platforms = ctx.model.platforms()
    for name, spec in platforms.items():  # WhatsApp's adapter, in the modelled versions
        state, key = ctx.effective.platforms.get(name), spec.adapter_allowlist_key
        if state is None or not state.enabled or key is None or spec.gate is None:
            continue
        seen = policies(name, state, ctx.effective.environ, platforms)
        assert seen is not None  # a gated platform always has policies
        if seen.dm == "allowlist" and not (state.extra.get(key) or state.extra.get("allowFrom")):
            unread = spec.allowlist_env and ctx.effective.environ.get(spec.allowlist_env)
            yield Hit(
                name, f"dm_policy is allowlist but there is no {key} in config.yaml: every DM is dropped"
                + (f" ({spec.allowlist_env} is not read by the adapter)" if unread else "") + ".",
                f"{spec.gate.dm_env}=pairing, or {name}: {key}: [<numbers>] in config.yaml")


@check("HW111", "adapter-dm-list-empty", "warning",
       "dm_policy allowlist, but the adapter's own DM list is empty: it drops every DM.",
       what="""Yuanbao's adapter admits a DM under dm_policy=allowlist only when the sender is on its own list,
YUANBAO_DM_ALLOW_FROM (or dm_allow_from in config.yaml). The gateway's YUANBAO_ALLOWED_USERS is a separate list,
read only for the DMs the adapter has let through.""",
       why="""With the adapter's list empty, nobody, not even the users on YUANBAO_ALLOWED_USERS, gets an answer.""",
       fix="""List the same IDs in YUANBAO_DM_ALLOW_FROM (`hermes-wizard setup --platform yuanbao --policy allowlist
--allow ID` writes both), or use dm_policy pairing.""")
def adapter_dm_list_empty(ctx: Context) -> Iterable[Hit]:
    platforms = ctx.model.platforms()
    env = ctx.effective.environ
    for name, spec in platforms.items():
        state, variable = ctx.effective.platforms.get(name), spec.adapter_allowlist_env
        if state is None or not state.enabled or variable is None or spec.gate is None:
            continue
        seen = policies(name, state, env, platforms)
        if seen is None or seen.dm != "allowlist":
            continue
        if str(state.extra.get("dm_allow_from") or env.get(variable, "")).strip(", "):
            continue
        unread = spec.allowlist_env and env.get(spec.allowlist_env, "").strip()
        yield Hit(name, f"dm_policy is allowlist but {variable} is empty: every DM is dropped"
                  + (f" ({spec.allowlist_env} alone is not enough)" if unread else "") + ".",
                  f"{variable}=<the IDs>" + (f" (those in {spec.allowlist_env})" if unread else ""))


@check("HW108", "allowlist-id-format", "warning",
       "An allowlist entry does not look like an ID of that platform.",
       what="""Allowlists match sender IDs exactly. Telegram wants numeric IDs, Matrix @user:server, WhatsApp
digits with country code, and so on.""",
       why="""A username where an ID belongs matches nobody: the person you meant is locked out.""",
       fix="""Replace the entry with the platform's ID (see `hermes-wizard explain HW108`).""")
def allowlist_id_format(ctx: Context) -> Iterable[Hit]:
    platforms = ctx.model.platforms()
    env = ctx.effective.environ
    for spec in platforms.values():
        state = ctx.effective.platforms.get(spec.name)
        if state is None or not state.enabled or not spec.allowlist_env or spec.id_pattern is None:
            continue
        bad = [item.strip() for item in env.get(spec.allowlist_env, "").split(",")
               if item.strip() and item.strip() != "*" and not spec.id_ok(item.strip())]
        if bad:
            shown = ", ".join(repr(b) for b in bad[:3]) + (" …" if len(bad) > 3 else "")
            yield Hit(spec.name, f"{env_source(ctx.snapshot, spec.allowlist_env)} has "
                                                    f"{shown}: expected {spec.id_hint}.", f"use {spec.id_hint}")


@check("HW109", "allowlist-has-bot-itself", "warning",
       "The bot's own WhatsApp number is in the allowlist.",
       what="""creds.json names the account the bridge runs as (me.id). Listing it lets the bot's own number
talk to the agent — in self-chat mode that is you, in bot mode it is the bot.""",
       why="""Usually a mix-up: the number you meant to allow is your personal one, not the bot's.""",
       fix="""Put your personal number in the allowlist instead of the bot's.""")
def allowlist_has_bot(ctx: Context) -> Iterable[Hit]:
    transport = ctx.transports.get("whatsapp")
    if transport is None or not transport.owner:
        return
    env = ctx.effective.environ
    allowlist_env = ctx.model.platforms()["whatsapp"].allowlist_env or ""
    listed = [item.strip().lstrip("+").split("@")[0] for item in env.get(allowlist_env, "").split(",")]
    if transport.owner in listed:
        yield Hit("whatsapp", f"{allowlist_env} lists +{transport.owner}, the "
                                              "number this bot is logged in as (creds.json me.id).",
                                              "list your personal number, not the bot's")


@check("HW110", "platform-allow-all", "info",
       "A platform is deliberately open: its allow-all opt-in is set.",
       what="""<PLATFORM>_ALLOW_ALL_USERS=true authorizes every sender on that platform, whatever its policy.""",
       why="""Everyone who can reach the bot runs your agent's tools (terminal, files, code) on this machine.""",
       fix="""If that is not what you want: remove the opt-in and use pairing or an allowlist.""")
def platform_allow_all(ctx: Context) -> Iterable[Hit]:
    platforms = ctx.model.platforms()
    env = ctx.effective.environ
    for name, state in ctx.effective.platforms.items():
        spec = platforms.get(name)
        if state.enabled and spec and spec.allow_all_env and env.get(spec.allow_all_env, "").lower() in ALLOW_ALL_TRUE:
            yield Hit(name, f"{env_source(ctx.snapshot, spec.allow_all_env)}: anyone "
                                                   "who can message this bot can use the agent.",
                      _closing_fix(ctx, name, spec.allow_all_env))


def _closing_fix(ctx: Context, name: str, allow_all_env: str) -> str:
    """How to close a deliberately open platform without bringing the refusal back: on a gated platform
    whose policy is itself "open", removing the opt-in alone makes Hermes refuse to start."""
    platforms = ctx.model.platforms()
    seen = policies(name, ctx.effective.platforms[name], ctx.effective.environ, platforms)
    open_sides = [side for side in ("dm", "group") if seen is not None and getattr(seen, side) == "open"]
    if not open_sides:
        return f"remove {allow_all_env} to close it"
    assert seen is not None  # open sides were found in it
    sources = {side: policy_source(ctx.snapshot, platforms[name], side, getattr(seen, f"{side}_from_extra"))
               for side in open_sides}
    where = " and ".join(f"{side}_policy to pairing ({source})" for side, source in sources.items())
    return (f"to close it, set {where}, then remove {allow_all_env} (removing only the opt-in leaves the policy "
            "open, and Hermes refuses to start); or run hermes-wizard doctor")
