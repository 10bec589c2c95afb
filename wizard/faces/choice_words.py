"""The words of the access choices, the same in the TUI and the plain face: what each DM choice and group
policy does on this platform, with this Hermes version.

Who a choice lets through is never written here: `dm_reach` and `group_reach` (wizard/judge/choice_reach.py)
ask the judged version's authorizer and adapter gates, and these functions only put that answer in words —
so a choice says "nobody" exactly where `access` will say the adapter drops those messages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermes_wizard.judge.choice_reach import Reach, dm_reach, group_reach

if TYPE_CHECKING:
    from hermes_wizard.hermes.model import Model

# the phrases a test reads back (tests/unit/test_choice_words.py): one per answer of the access model
NOBODY_IN_GROUPS = "no group message is answered"
ANYONE_IN_GROUPS = "anyone in any group the bot is in"
LISTED_CHATS = "only the group chats you list"
ANYONE_IN_CHATS = "anyone in them is answered"
PAIRED_IN_GROUPS = "only people approved by pairing"
OPENS_DMS = "anyone who DMs the bot too"
ANYONE = "ANYONE who can reach the bot"
NOBODY_IN_DMS = "Nobody is answered in DMs"
CODE = "gets a one-time code"
IGNORED = "silently ignored"
ONLY_LISTED = "Only the IDs you list"

_AGENT = ("talks to your agent — and the agent runs terminal, file and code-execution tools on this machine for "
          "them. Choose this only for a bot no stranger can find.")
_TITLES = {"pairing": "Pairing (recommended).", "allowlist": "Allowlist.", "open": "Open.", "disabled": "Disabled."}


def access_words(model: Model, platform: str, mode: str) -> str:
    """What the DM choice `mode` (one of ACCESS_MODES) does on `platform`, as the version `model` decides."""
    spec = model.platforms()[platform]
    label, allow_all = spec.label, spec.allow_all_env or "its allow-all variable"
    if mode == "disabled":
        return f"Disabled. {label} is turned off: nobody reaches the agent through it. Credentials are kept."
    reach = dm_reach(model, platform, mode)
    return f"{_TITLES[mode]} {_dm_clause(reach, platform, label)}" + (
        f" It writes {allow_all}=true." if mode == "open" else "")


def _dm_clause(reach: Reach, platform: str, label: str) -> str:
    if reach.who == "everyone":
        return f"{ANYONE} on {label} {_AGENT}"
    if reach.who == "nobody":
        return (f"{NOBODY_IN_DMS}: the {label} adapter drops them all (its dm_policy {reach.policy or 'empty'}"
                + (", and its own allow list does not name the IDs you list" if reach.policy == "allowlist" else "")
                + ").")
    stranger = (f"A stranger who messages the bot {CODE} and no access. You approve them on this machine with "
                f"`hermes pairing approve {platform} <CODE>`; codes expire after an hour." if reach.stranger_code
                else f"A stranger gets no pairing code from {label} on this Hermes: they are {IGNORED}.")
    if reach.who == "listed":
        return (f"{ONLY_LISTED}{' (and people approved by pairing)' if reach.paired_too else ''} can talk to the "
                f"agent. {stranger} As safe as IDs are hard to forge on {label}.")
    if reach.stranger_code:
        return f"{stranger} Approved people get the same agent you have."
    return f"Only people already approved by pairing get through. {stranger}"


def group_words(model: Model, platform: str, policy: str, mode: str = "pairing") -> str:
    """What the group policy `policy` (one of GROUP_POLICIES) does on `platform` with the DM choice `mode`, as the
    version `model` decides."""
    spec = model.platforms()[platform]
    reach = group_reach(model, platform, policy, mode if mode != "disabled" else "pairing")
    title = policy.capitalize()
    if reach.who == "nobody":
        text = f"{title}: {NOBODY_IN_GROUPS} — the {spec.label} adapter drops them all"
    elif reach.chats_only:
        who = ANYONE_IN_CHATS if reach.who == "everyone" else f"in them, {_paired(reach)} are answered"
        hint = f" ({spec.group_chat_hint})" if spec.group_chat_hint else ""
        text = f"{title}: {LISTED_CHATS}{hint} are answered by the {spec.label} adapter; {who}"
    elif reach.who == "everyone":
        text = f"{title}: {ANYONE_IN_GROUPS} talks to the agent"
    else:
        text = f"{title}: in groups, {_paired(reach)} are answered"
    if policy == "open":
        text += f" (writes {spec.allow_all_env}=true; type the name to confirm)"
    if reach.opens_dms:
        text += f" — and that opt-in lets {OPENS_DMS}"
    if policy == "disabled":
        text += "; direct messages follow the choice above"
    return text + "."


def _paired(reach: Reach) -> str:
    return PAIRED_IN_GROUPS + (" or on the allowlist" if reach.who == "listed" else "")
