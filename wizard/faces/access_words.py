"""The words of `access`: a decision's rule in plain language, and the per-platform overview.

Shared by every face that shows access (the CLI now; the TUI's and plain face's Access views use the
same sentences).  Values from the home pass through `visible` (escaped); secrets are masked by the
guarded output before anything is written.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.core.safetext import visible
from hermes_wizard.judge.access import AccessView, PlatformAccess, Side, load_view, nobody_heard, platform_access

if TYPE_CHECKING:
    from hermes_wizard.hermes.access.authz import Decision
    from hermes_wizard.hermes.loader.plugins import HostFacts

_RULES = {
    "platform-always": "events of this platform are authenticated by their transport; no per-user check",
    "upstream-relay": "the relay connector authorized the sender upstream",
    "chat-allowlist": "the chat is on the chat allowlist {variable}",
    "bot-admission": "bots are admitted by {variable}",
    "no-user-id": "the message carries no sender ID, and no chat or bot rule admits it",
    "platform-allow-all": "{variable} lets everyone in",
    "pairing-approved": "paired: {matched} is in the pairing store",
    "adapter-allowlist": "no env allowlist, but the adapter enforces its own allowlist policy at intake, "
                         "and Hermes trusts what it forwards",
    "adapter-not-allowlisted": "the adapter's own policy is allowlist ({variable}), and Hermes asks the adapter: "
                               "its DM allowlist does not name the sender",
    "adapter-chat-allowlist": "the chat is on the platform's group_allowed_chats in config.yaml",
    "adapter-allow-from": "{matched} is on the platform's {variable} in config.yaml",
    "global-allow-all": "GATEWAY_ALLOW_ALL_USERS lets everyone in",
    "no-allowlist": "no allowlist is configured and nothing opts in to open access (Hermes: \"No user "
                    "allowlists configured\"); only paired users get through",
    "legacy-group-chat-ids": "a chat ID listed in {variable} (Hermes honours it as a chat allowlist)",
    "allowlist-wildcard": "'*' in {variable} lets everyone in",
    "allowlist": "{matched} is on {variable}",
    "not-allowlisted": "not on any allowlist (Hermes logs \"Unauthorized user\")",
    "error": "Hermes raises an error deciding this",
}


def rule_words(decision: Decision) -> str:
    text = _RULES.get(decision.rule, decision.rule).format(
        variable=decision.variable or decision.yaml_key or "", matched=visible(decision.matched or ""))
    return text + (f" ({visible(decision.detail)})" if decision.detail and decision.rule in
                   ("error", "not-allowlisted", "legacy-group-chat-ids") else "")


def _side_text(side: Side, pending_or_paired: bool) -> str:
    if side.chats_only:  # who gets through, in the only chats the adapter forwards
        named = (f"only the group chats its group list names: {', '.join(visible(chat) for chat in side.chats)}"
                 if side.chats else "only the group chats its group list names — it names none: no group is answered")
        where = f"{named} (policy: allowlist) [{side.chats_only}]"
        return f"{where}; in those: {_who_text(replace(side, chats_only=None), pending_or_paired)}"
    return _who_text(side, pending_or_paired)


def _who_text(side: Side, pending_or_paired: bool) -> str:
    if side.everyone:
        opener = _RULES.get(side.everyone, f"{side.everyone} is on")
        return "everyone" + (f" — {opener if side.everyone in _RULES else side.everyone + ' opts in'}"
                             f"{f' [{side.everyone_source}]' if side.everyone_source else ''}")
    if side.disabled:
        return f"nobody — the adapter drops these messages (policy: {side.dropped_by}) [{side.disabled}]"
    if side.adapter_allowlist:
        return f"whoever the adapter's allow_from admits (its policy is allowlist) [{side.adapter_allowlist}]"
    if side.allowlisted:
        people = [visible(item) + (f" ({visible(name)})" if name else "") + ("" if variable.endswith(
            "_ALLOWED_USERS") or variable == "GATEWAY_ALLOWED_USERS" else " (chat)")
                  for item, variable, name in side.allowlisted]
        variables = sorted({variable for _, variable, _ in side.allowlisted})
        return f"only {', '.join(people)} [{', '.join(variables)}]"
    return "paired users only" if pending_or_paired else "nobody yet (pairing: no one approved)"


def overview_text(view: AccessView, rows: list[PlatformAccess], platform: str | None, start_line: bool = True) -> str:
    report = view.report
    lines = [f"Who can reach the agent — {visible(str(report.home))} (Hermes {report.hermes.judged_as})"]
    if view.files.crash:
        lines.append(f"[✗] nobody: {visible(view.files.crash)}")
    elif start_line and nobody_heard(view) is not None:  # a refusal, or a crash at start
        lines.append(f"[✗] {nobody_heard(view)}. Once it starts:")
    if not rows:
        what = f"{platform} is not enabled" if platform else "no platform is enabled"
        lines.append(f"  {what}: nobody can reach the agent through the gateway")
    for row in rows:
        lines.append(f"{row.name}")
        paired = bool(row.approved)
        lines.append(f"  DMs:     {_side_text(row.dm, paired)}")
        lines.append(f"  groups:  {_side_text(row.group, paired)}")
        if row.approved:
            lines.append("  paired:  " + ", ".join(visible(uid) + (f" ({visible(who)})" if who else "")
                                                  for uid, who in row.approved))
        if row.pending:
            waiting = ", ".join(f"{visible(who or uid)} ({age} min ago)" for uid, who, age in row.pending)
            lines.append(f"  waiting: {waiting} → hermes pairing approve {row.name} <CODE>")
        if row.error:
            lines.append(f"  [!] {visible(row.error)}")
    return "\n".join(lines)


def _side_json(side: Side) -> dict[str, object]:
    return {"everyone": bool(side.everyone), "opened_by": side.everyone, "source": side.everyone_source,
            "allowlisted": [{"id": item, "variable": variable, "name": name}
                            for item, variable, name in side.allowlisted],
            "adapter_allowlist": side.adapter_allowlist, "disabled": side.disabled, "chats_only": side.chats_only,
            "chats": list(side.chats)}


def overview_json(view: AccessView, rows: list[PlatformAccess]) -> dict[str, object]:
    return {"home": str(view.report.home), "hermes": view.report.hermes.judged_as, "error": view.files.crash,
            "would_start": view.report.would_start,
            "platforms": [{"name": row.name, "dm": _side_json(row.dm), "group": _side_json(row.group),
                           "approved": [{"id": uid, "name": who} for uid, who in row.approved],
                           "pending": [{"id": uid, "name": who, "age_minutes": age} for uid, who, age in row.pending],
                           "error": row.error} for row in rows]}


def waiting_and_paired(home: Path, profile: str, platform: str, facts: HostFacts | None = None) -> tuple[int, int]:
    """How many pairing requests wait on `platform`, and how many people are paired there."""
    rows = [r for r in platform_access(load_view(home, profile, facts=facts), time.time()) if r.name == platform]
    return (len(rows[0].pending), len(rows[0].approved)) if rows else (0, 0)


def who_reaches(home: Path, profile: str, platform: str, label: str, facts: HostFacts | None = None) -> str:
    """Who reaches the agent through `platform` today, decided as the gateway decides (the files as they are
    on disk, not a choice being made): the words the TUI's and the plain face's access step show."""
    view = load_view(home, profile, facts=facts)
    rows = [row for row in platform_access(view, time.time()) if row.name == platform]
    lines = overview_text(view, rows, platform, start_line=False).split("\n")[1:]
    if lines and lines[0].strip() == platform:
        lines = lines[1:]
    head = f"Who reaches the agent through {label} today (the files as they are on disk):"
    if view.report.effective.unjudged is not None:
        return f"{head}\n  cannot judge: {visible(view.report.effective.unjudged)}"
    nobody = nobody_heard(view)
    if nobody is not None:
        head += f"\n  {nobody}. Once it starts:"
    return "\n".join([head, *lines])
