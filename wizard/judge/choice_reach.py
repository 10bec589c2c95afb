"""What a choice means: who a DM or group policy lets through on one platform, decided by the judged version.

Every face offers the same choices (who may use the agent: pairing, allowlist, open, disabled; and, on the
platforms whose adapter has its own gate, what it does with group chats).  What each means differs by adapter
and by Hermes version — Hermes 0.18 and later drop every group message under `pairing`, 0.17 forwards them to
its authorizer; Email sends a stranger no pairing code from 0.18 on — so no face words a choice from a table:
`dm_reach` and `group_reach` ask the version's own authorizer and adapter gates (`Model.authorizer()`,
wizard/hermes/access/) about a platform set up as the wizard writes that choice (the platform enabled; the
policy where its adapter reads it; an allowlist naming one ID; a group allowlist naming one chat where the
adapter reads its group list; the platform's own allow-all for an open DM or
group policy, as Hermes's startup rule demands), and say who gets through: the same rules `access` applies to
the written home (wizard/judge/access.py), so the words of a choice and `access` after it agree
(tests/unit/test_choice_words.py).

Contract: pure (no home is read: an empty pairing store, no alias files); `Reach` is a value.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_wizard.core.values import Value, value_class
from hermes_wizard.hermes.access.access_files import AccessFiles
from hermes_wizard.hermes.access.authz import Authorizer, Sender
from hermes_wizard.hermes.loader.envrules import apply_env_overrides
from hermes_wizard.hermes.loader.state import PlatformState

if TYPE_CHECKING:
    from hermes_wizard.hermes.model import Model

STRANGER, LISTED, CHAT, LISTED_CHAT = "15550000001", "15550000002", "120363000000000001", "120363000000000002"


@value_class
class Reach(Value):
    """Who a choice lets through on one side (DMs or groups) of a platform.

    `who`: "nobody" (the adapter drops every such message; for DMs, also the platform turned off), "everyone",
    "listed" (the IDs the allowlist names) or "paired" (people approved by pairing only).  `paired_too`: with
    "listed", people approved by pairing get through too (not where the adapter admits only its own list).
    `chats_only`: groups — only in the group chats the adapter's own group list names.  `stranger_code`:
    DMs — a stranger the choice keeps out is sent a pairing code (False: silently ignored).  `opens_dms`: a group
    choice whose allow-all opt-in lets everyone in through DMs too, where the DM choice alone did not.
    `policy`: the adapter's policy that decides, where an adapter gate decides."""

    who: str
    paired_too: bool = True
    chats_only: bool = False
    stranger_code: bool = False
    opens_dms: bool = False
    policy: str = ""


def dm_reach(model: Model, platform: str, mode: str, group: str | None = None) -> Reach:
    """Who gets through `platform`'s DMs under the DM choice `mode` (with the group choice `group`, if made)."""
    if mode == "disabled":
        return Reach("nobody", policy="disabled")
    auth, env, platforms = _state(model, platform, mode, group)
    gate = auth.gate(env, platforms, platform, "dm")
    if gate is not None and gate[0] == "drops":
        return Reach("nobody", policy=gate[1])
    stranger = Sender(platform, STRANGER, "dm", STRANGER)
    if _through(auth, env, platforms, stranger):
        return Reach("everyone")
    forwarded = auth.intake(env, platforms, _FILES, stranger)[0] is not False
    code = forwarded and auth.unauthorized_dm_behavior(env, platforms, platform) == "pair"
    listed = mode == "allowlist" and _through(auth, env, platforms, Sender(platform, LISTED, "dm", LISTED))
    if gate is not None and gate[0] == "listed" and not listed:  # its own list lacks the IDs: it drops every DM
        return Reach("nobody", policy=gate[1])
    return Reach("listed" if listed else "paired", paired_too=gate is None or gate[0] != "listed", stranger_code=code,
                 policy=gate[1] if gate else "")


def group_reach(model: Model, platform: str, policy: str, mode: str = "pairing") -> Reach:
    """Who gets through `platform`'s group chats under the group choice `policy`, with the DM choice `mode`."""
    auth, env, platforms = _state(model, platform, mode, policy)
    gate = auth.gate(env, platforms, platform, "group")
    opens = policy == "open" and dm_reach(model, platform, mode, policy).who == "everyone" \
        and dm_reach(model, platform, mode).who != "everyone"
    if gate is not None and gate[0] == "drops":
        return Reach("nobody", policy=gate[1])
    chats_only = gate is not None and gate[0] == "listed"
    chat = LISTED_CHAT if chats_only else CHAT
    decided = gate[1] if gate else ""
    if chats_only and auth.intake(env, platforms, _FILES, Sender(platform, STRANGER, "group", chat))[0] is False:
        return Reach("nobody", policy=decided)  # the chat was written where its adapter never reads its list
    if _through(auth, env, platforms, Sender(platform, STRANGER, "group", chat)):
        return Reach("everyone", chats_only=chats_only, opens_dms=opens, policy=decided)
    listed = mode == "allowlist" and _through(auth, env, platforms, Sender(platform, LISTED, "group", chat))
    return Reach("listed" if listed else "paired", chats_only=chats_only, opens_dms=opens, policy=decided)


_FILES = AccessFiles(Path("/nonexistent/hermes-wizard/pairing"))  # nobody paired, no alias files


def _state(model: Model, platform: str, mode: str, group: str | None) -> tuple[Authorizer, dict[str, str],
                                                                                dict[str, Any]]:
    """The gateway's environment and platforms once the wizard has written these choices (the module doc): what
    config.yaml sets in the platform's `extra`, then the version's env override blocks over it, as Hermes loads."""
    spec = model.platforms()[platform]
    env: dict[str, str] = {}
    extra: dict[str, Any] = {}
    if group == "allowlist":  # a group list naming one chat, where the wizard writes it (the catalog's Spec)
        if spec.group_chats_env:
            env[spec.group_chats_env] = LISTED_CHAT
        elif spec.group_chats_key:
            extra[spec.group_chats_key] = LISTED_CHAT
    if mode == "allowlist" and spec.allowlist_env:
        env[spec.allowlist_env] = LISTED
        if spec.adapter_allowlist_env:
            env[spec.adapter_allowlist_env] = LISTED
        if spec.adapter_allowlist_key:
            extra[spec.adapter_allowlist_key] = LISTED
    sides = [("dm", mode if mode != "disabled" else None), ("group", group)]
    for side, policy in sides:
        if spec.gate is None or policy is None:
            continue
        variable = spec.gate.dm_env if side == "dm" else spec.gate.group_env
        if variable:
            env[variable] = policy
        extra[f"{side}_policy"] = policy  # where the adapter reads it first (QQBot: the only place)
    if "open" in (mode, group) and spec.allow_all_env:
        env[spec.allow_all_env] = "true"
    for name in spec.credentials:  # the platform's env override block runs, as with its credentials in `.env`
        env.setdefault(name, "true" if name.endswith("_ENABLED") else "1234567890")
    platforms = {platform: PlatformState(extra=extra)}  # what config.yaml gave, before the env blocks override it
    apply_env_overrides(platforms, env, {}, model)
    platforms[platform].enabled = True
    return model.authorizer(), env, dict(platforms)


def _through(auth: Authorizer, env: dict[str, str], platforms: dict[str, Any], sender: Sender) -> bool:
    """Whether `sender`'s message reaches the agent: forwarded by the adapter's gate, then authorized."""
    forwarded = auth.intake(env, platforms, _FILES, sender)[0]
    if forwarded is None:  # no per-message gate modelled (WhatsApp Cloud's DMs): the gate by policy
        side = "dm" if sender.chat_type == "dm" else "group"
        gate = auth.gate(env, platforms, sender.platform, side)
        forwarded = gate is None or gate[0] == "forwards"
    return bool(forwarded) and auth.decide(env, platforms, _FILES, sender).authorized
