"""Reach checks: access that is surely not what the user meant, judged by the version's authorizer.

Each finding is a claim about `_is_user_authorized` / `_get_unauthorized_dm_behavior` that the
access model (wizard/hermes/access/authz.py) makes and tests/conformance/test_access_checks.py confirms against
the real Hermes of each modelled version.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from hermes_wizard.core.homeroot import home_owner
from hermes_wizard.core.smallfile import reading_for
from hermes_wizard.hermes.access.authz import OWN_POLICY, Sender
from hermes_wizard.hermes.access.identity import stored_ids
from hermes_wizard.hermes.models import model_for
from hermes_wizard.judge.checks.registry import Context, Hit, check
from hermes_wizard.judge.provenance import env_source, find_yaml, yaml_source

if TYPE_CHECKING:
    from hermes_wizard.hermes.access.access_files import AccessFiles
    from hermes_wizard.hermes.access.authz import Authorizer, Decision

_NOBODY = "\x00nobody\x00"  # a sender no list names


def _access(ctx: Context) -> tuple[Authorizer, AccessFiles]:
    """The version's authorizer and the home's pairing store, read as the home's owner could."""
    model = model_for(ctx.facts.hermes)
    with reading_for(home_owner(ctx.home)):
        files = model.access_files(ctx.home, home_owner(ctx.home), ctx.effective.environ)
    return model.authorizer(), files


def _decide(ctx: Context, auth: Authorizer, files: AccessFiles, platform: str, user: str,
            chat: str = "dm") -> Decision:
    return auth.decide(ctx.effective.environ, ctx.effective.platforms, files, Sender(platform, user, chat))


def _items(raw: Any) -> list[str]:
    if isinstance(raw, list):
        return [str(item).strip() for item in raw if str(item).strip()]
    return [item.strip() for item in str(raw or "").split(",") if item.strip()]


@check("HW170", "allowlist-key-unread", "warning",
       "People are listed in a key Hermes never reads to decide who may talk to the agent.",
       what="""Hermes authorizes senders from <PLATFORM>_ALLOWED_USERS (and a few group variables), the pairing
store and the allow-all opt-ins (gateway/authz_mixin.py). Telegram's `allowed_chats` in config.yaml only limits the
group chats the bot answers in — it never authorizes anyone, and DMs are not filtered by it at all. And
WHATSAPP_GROUP_ALLOWED_USERS is read by nothing in Hermes (the WhatsApp adapter reads group_allow_from in
config.yaml; the authorizer reads WHATSAPP_ALLOWED_USERS).""",
       why="""The people you listed get "Unauthorized user" (or silence) while you think they are allowed.""",
       fix="""Put user IDs in <PLATFORM>_ALLOWED_USERS (or <platform>.allow_from in config.yaml); for Telegram
groups, chat IDs go in TELEGRAM_GROUP_ALLOWED_CHATS. `hermes-wizard access PLATFORM ID` tells who gets in.""")
def allowlist_key_unread(ctx: Context) -> Iterable[Hit]:
    platforms, env = ctx.effective.platforms, ctx.effective.environ
    telegram = platforms.get("telegram")
    if telegram is not None and telegram.enabled and isinstance(telegram.extra, dict):
        listed = _items(telegram.extra.get("allowed_chats"))
        if listed:
            auth, files = _access(ctx)
            denied = [item for item in listed if not _decide(ctx, auth, files, "telegram", item).authorized]
            if denied:
                path = find_yaml(ctx.snapshot, "telegram", "allowed_chats")
                where = yaml_source(ctx.snapshot, path) if path else "telegram.allowed_chats"
                shown = ", ".join(denied[:3]) + (" …" if len(denied) > 3 else "")
                yield Hit("telegram", f"{where} lists {shown}, but allowed_chats only limits the group chats the "
                          f"bot answers in: a DM from {denied[0]} is denied (\"Unauthorized user\").",
                          f"TELEGRAM_ALLOWED_USERS={','.join(denied)} (user IDs), or chat IDs in "
                          "TELEGRAM_GROUP_ALLOWED_CHATS")
    whatsapp = platforms.get("whatsapp")
    where = env_source(ctx.snapshot, "WHATSAPP_GROUP_ALLOWED_USERS")
    if whatsapp is not None and whatsapp.enabled and where != "WHATSAPP_GROUP_ALLOWED_USERS" and \
            env.get("WHATSAPP_GROUP_ALLOWED_USERS", "").strip():
        yield Hit("whatsapp", f"{where}: nothing in Hermes reads WHATSAPP_GROUP_ALLOWED_USERS; the numbers in it are "
                  "not allowed by it, in groups or anywhere.",
                  "WHATSAPP_ALLOWED_USERS for senders, or whatsapp.group_allow_from in config.yaml with "
                  "group_policy: allowlist")


@check("HW171", "allowlist-admits-nobody", "error",
       "An allowlist is set, but no entry in it can match a sender of that platform: nobody gets in.",
       what="""Telegram identifies senders by numeric user IDs and Hermes compares them with the list entries
exactly (after stripping spaces). '@alice', 'alice' or '+123' never match. With an allowlist set, Hermes also stops
sending pairing codes to strangers (unauthorized DMs are ignored), so nobody can reach the agent at all.""",
       why="""The bot stays silent for everyone, you included, and the log says "Unauthorized user".""",
       fix="""Replace the entries with numeric user IDs (message @userinfobot to learn yours), or remove the
variable and use pairing.""")
def allowlist_admits_nobody(ctx: Context) -> Iterable[Hit]:
    state, env = ctx.effective.platforms.get("telegram"), ctx.effective.environ
    if state is None or not state.enabled:
        return
    sources = {name: _items(env.get(name, "").strip()) for name in ("TELEGRAM_ALLOWED_USERS", "GATEWAY_ALLOWED_USERS")}
    entries = [item for items in sources.values() for item in items]
    if not entries or any(item == "*" or re.fullmatch(r"\d+", item) for item in entries):
        return
    auth, files = _access(ctx)
    if _decide(ctx, auth, files, "telegram", "1").rule != "not-allowlisted":
        return  # something else (an opt-in) decides first
    silent = auth.unauthorized_dm_behavior(env, ctx.effective.platforms, "telegram") == "ignore"
    named = [name for name, items in sources.items() if items]
    where = "; ".join(f"{env_source(ctx.snapshot, name)} = {', '.join(sources[name][:3])}" for name in named)
    yield Hit("telegram", f"{where}: Telegram senders are numeric user IDs, so no one matches"
              + ("; and with an allowlist set, strangers get no pairing code either." if silent else "."),
              f"{named[0]}=<numeric user IDs>, or remove it and use pairing")


@check("HW172", "pairing-nobody-waiting", "info",
       "Pairing, with nobody approved and no request waiting: the agent answers no one yet.",
       what="""Without an allowlist or an allow-all opt-in, Hermes admits only paired users. A stranger's first
DM gets a one-time code (valid one hour) which the owner approves with `hermes pairing approve`. Nobody is in the
pairing store and no code is pending.""",
       why="""A fresh setup looks broken: the bot replies only with a pairing code, and nothing will change until
you pair yourself.""",
       fix="""Message the bot from your own account, then run `hermes pairing approve <platform> <CODE>` with the
code it replies (`hermes-wizard access` shows waiting requests).""")
def pairing_nobody_waiting(ctx: Context) -> Iterable[Hit]:
    for name in nobody_waiting(ctx):
        yield Hit(name, "nobody is paired and no one has asked for a code: only a paired sender gets an answer.",
                  f"message the bot, then: hermes pairing approve {name} <CODE>")


def nobody_waiting(ctx: Context) -> list[str]:
    """Enabled platforms where only pairing admits, codes are sent, and the store is empty."""
    env, out, specs = ctx.effective.environ, list[str](), ctx.model.platforms()
    enabled = [name for name, state in ctx.effective.platforms.items() if state.enabled
               and not (name in specs and specs[name].always_authorized)]  # no per-user access control
    if not enabled:
        return out
    auth, files = _access(ctx)
    for name in enabled:
        if _decide(ctx, auth, files, name, _NOBODY).rule != "no-allowlist":
            continue
        if auth.unauthorized_dm_behavior(env, ctx.effective.platforms, name) != "pair":
            continue
        state = ctx.effective.platforms[name]
        if name in OWN_POLICY:  # an 'open' or 'allowlist' adapter is not "pairing", whatever strangers get
            extra = state.extra if isinstance(state.extra, dict) else {}
            if auth.adapter_policy(env, name, extra, "dm")[0] != "pairing":
                continue
        if any(violation.platform == name for violation in ctx.violations):
            continue  # it refuses to start: HW101 says what matters
        try:
            approved = stored_ids(files.approved_for(name).data, auth.pairing_store_objects_only)
        except TypeError:
            continue
        pending = files.pending.get(name)
        waiting = [info for info in (pending.data.values() if pending and isinstance(pending.data, dict) else ())
                   if isinstance(info, dict) and isinstance(info.get("created_at"), (int, float))
                   and time.time() - info["created_at"] <= 3600]
        if not approved and not waiting:
            out.append(name)
    return out
