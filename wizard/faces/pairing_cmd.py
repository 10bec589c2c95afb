"""`hermes-wizard pairing list|approve|revoke`: the pairing store, through Hermes's own pairing code.

Every action runs Hermes's `PairingStore` / `hermes pairing` code in Hermes's Python as the home's owner
(wizard/hermes/pairing_run.py); this tool never writes the store's files.  `approve` and `revoke` are
previewed first — who it is, since when, and whether Hermes will also mirror the change into a configured
allowlist in `.env` — and done only after a yes (a terminal prompt, or `--yes`).  A code that matches no
request is not tried: a wrong approval counts toward Hermes's lockout (5 failures lock a platform for an hour).

Exit codes: 0 done (or listed), 1 not done (no such request or user, locked out, declined, Hermes could not be
asked), 2 usage (and a preview without a terminal or `--yes`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_wizard.core.atomic import Lock
from hermes_wizard.core.exitcodes import ExitCode
from hermes_wizard.core.homefs import ApplyError, HomeDir
from hermes_wizard.core.safetext import json_text, to_stderr, visible, visible_lines
from hermes_wizard.faces.access_args import named_platform, one_home, usage
from hermes_wizard.faces.judging import host_facts
from hermes_wizard.faces.selection import select_homes
from hermes_wizard.hermes.access.identity import approved_match
from hermes_wizard.hermes.models import model_for
from hermes_wizard.hermes.pairing_run import run_pairing
from hermes_wizard.hermes.verify import hermes_python
from hermes_wizard.judge.access import load_view
from hermes_wizard.write.backups import close_journal, discard, make_backup
from hermes_wizard.write.undo import pairing_backup_words

if TYPE_CHECKING:
    from hermes_wizard.hermes.loader.plugins import HostFacts


def run_pairing_cmd(args: argparse.Namespace) -> int:
    refused = one_home(args, "pairing")
    if refused is not None:
        return refused
    if args.action != "list" and (args.platform is None or not args.value):
        what = "CODE" if args.action == "approve" else "USER_ID"
        return usage("pairing", f"{args.action} needs a platform and a {what}: hermes-wizard pairing {args.action} "
                     f"PLATFORM {what}")
    homes = select_homes(args)
    if homes is None:
        return ExitCode.USAGE
    (profile, home), = homes

    facts = host_facts(args, home)
    platform, refused = named_platform(args, "pairing", model_for(facts.hermes))
    if refused is not None:
        return refused
    python = hermes_python(facts.site_packages)
    if python is None:
        to_stderr("hermes-wizard pairing: Hermes's Python was not found (name it with --hermes-python PATH); "
                  "pairing is done by Hermes's own code")
        return ExitCode.PROBLEMS
    if args.action == "list":
        return _list(args, home, python, platform)
    return _change(args, home, profile, python, platform or "", args.value, facts)


def _ask(home: Path, python: Path, *argv: str) -> dict[str, Any] | None:
    answer = run_pairing(home, python, *argv)
    if answer.get("failure"):
        to_stderr(f"hermes-wizard pairing: Hermes could not be asked: {visible(answer['failure'])}")
        return None
    return answer


def _list(args: argparse.Namespace, home: Path, python: Path, platform: str | None) -> int:
    answer = _ask(home, python, "list")
    if answer is None:
        return ExitCode.PROBLEMS
    pending = [p for p in answer.get("pending", []) if platform is None or p.get("platform") == platform]
    approved = [a for a in answer.get("approved", []) if platform is None or a.get("platform") == platform]
    if args.format == "json":
        sys.stdout.write(json_text({"pending": pending, "approved": approved,
                                    "lockouts": answer.get("lockouts", {})}) + "\n")
        return ExitCode.OK
    print(f"Pairing — {visible(str(home))}")
    if pending:
        print(f"Waiting for approval ({len(pending)}; a code is valid for one hour):")
        for p in pending:
            who = visible(p.get("user_name") or "") or "(no name)"
            print(f"  {p.get('platform')}: {who} {visible(str(p.get('user_id', '')))}, asked "
                  f"{p.get('age_minutes')} min ago → hermes-wizard pairing approve {p.get('platform')} <CODE>")
    else:
        print("No one is waiting for approval.")
    if approved:
        print(f"Paired ({len(approved)}):")
        for a in approved:
            name = visible(a.get("user_name") or "")
            print(f"  {a.get('platform')}: {visible(str(a.get('user_id', '')))}" + (f" ({name})" if name else ""))
    else:
        print("No one is paired.")
    for locked, seconds in (answer.get("lockouts") or {}).items():
        print(f"[!] {visible(str(locked))} is locked out after too many failed approval attempts; it clears in "
              f"~{max(0, int(seconds)) // 60} minute(s).")
    return ExitCode.OK


def _change(args: argparse.Namespace, home: Path, profile: str, python: Path, platform: str, value: str,
            facts: HostFacts) -> int:
    preview = _preview(home, profile, python, platform, value, args.action, facts)
    if preview is None:
        return ExitCode.PROBLEMS
    print(preview)
    if not args.yes:
        if not sys.stdin.isatty():
            to_stderr("Nothing changed: confirm with --yes (no terminal to ask on).")
            return ExitCode.USAGE
        if input(f"{args.action.capitalize()}? [y/N] ").strip().lower() not in ("y", "yes"):
            print("Nothing changed.")
            return ExitCode.PROBLEMS
    answer, backup, problem = journalled(home, python, args.action, platform, value)
    if answer is None:
        to_stderr(f"hermes-wizard pairing: {problem}")
        return ExitCode.PROBLEMS
    print(visible_lines(answer.get("said", "").strip()) or "(Hermes said nothing)")
    if backup is not None:
        print(pairing_backup_words(args.action, visible(backup)))
    before, after = answer.get("before") or [], answer.get("after") or []
    done = after != before if args.action == "approve" else len(after) < len(before)
    return ExitCode.OK if done else ExitCode.PROBLEMS


def journalled(home: Path, python: Path, action: str, platform: str,
               value: str) -> tuple[dict[str, Any] | None, str | None, str]:
    """Hermes's answer to `action`, journalled like any change this tool makes: `.env` (where Hermes mirrors an
    approval into a configured allowlist) is backed up first, and the set records who was approved or revoked,
    so `undo` restores `.env` and revokes an approval through Hermes.  Returns (Hermes's answer or None, the
    set's path or None when nothing changed and the set was dropped, why there is no answer)."""
    try:
        with HomeDir(home) as opened, Lock(opened):
            backup = make_backup(opened, {".env": opened.place(".env")}, f"hermes-wizard pairing {action} {platform}")
            told = run_pairing(home, python, action, platform, value)
            answer: dict[str, Any] | None = told
            problem = ""
            if told.get("failure"):
                answer, problem = None, f"Hermes could not be asked: {visible(str(told['failure']))}"
            changed = changed_users(action, answer)
            if answer is None or not changed:
                discard(opened, backup)
                return answer, None, problem
            backup.manifest["pairing"] = [{"action": action, "platform": platform, "user_id": uid}
                                          for uid in changed]
            close_journal(opened, backup)
            return answer, str(backup.path), ""
    except ApplyError as exc:
        return None, None, visible(str(exc))


def changed_users(action: str, answer: dict[str, Any] | None) -> list[str]:
    """The user IDs Hermes's `answer` to `action` approved or revoked (none without an answer)."""
    before = {_uid(u) for u in (answer or {}).get("before") or []}
    after = {_uid(u) for u in (answer or {}).get("after") or []}
    return sorted(after - before) if action == "approve" else sorted(before - after)


def _uid(entry: Any) -> str:
    return str(entry.get("user_id") if isinstance(entry, dict) else entry)


def _preview(home: Path, profile: str, python: Path, platform: str, value: str, action: str,
             facts: HostFacts | None) -> str | None:
    """The preview of `action` (printed by the caller), or None after printing why it cannot be done."""
    ok, words = preview(home, profile, python, platform, value, action, facts)
    if not ok:
        print(words)
        return None
    return words


def preview(home: Path, profile: str, python: Path, platform: str, value: str, action: str,
            facts: HostFacts | None) -> tuple[bool, str]:
    """(whether `action` can be done, and its preview — or why not, in Hermes's terms): every face's words."""
    view = load_view(home, profile, base_env={}, facts=facts)
    allowlist_var = view.authorizer.allowlist_env(platform)
    configured = view.report.effective.environ.get(allowlist_var, "").strip() if allowlist_var else ""
    if action == "approve":
        answer = run_pairing(home, python, "preview", platform, value)
        if answer.get("failure"):
            return False, f"Hermes could not be asked: {visible(str(answer['failure']))}. Nothing changed."
        if answer.get("locked"):
            seconds = (answer.get("lockouts") or {}).get(platform, 0)
            return False, (f"Platform '{platform}' is locked out after too many failed approval attempts; it clears "
                           f"in ~{max(0, int(seconds)) // 60} minute(s). Nothing changed.")
        match = answer.get("match")
        if not match:
            return False, (f"No pending request on {platform} matches code {visible(value)!r} (codes expire after an "
                           "hour). Nothing was tried, so no failed attempt counts toward Hermes's lockout. "
                           "See: hermes-wizard pairing list")
        who = visible(str(match.get("user_id", "")))
        name = visible(match.get("user_name") or "")
        lines = [f"Approve {name + ' ' if name else ''}{who} on {platform} (asked {match.get('age_minutes')} min ago)?",
                 "  They can then use the agent: its tools run on this machine as the home's owner."]
        listed = [item.strip() for item in configured.split(",")]
        if configured and "*" not in listed and str(match.get("user_id", "")) not in listed:
            lines.append(f"  Hermes also adds {who} to {allowlist_var} in .env (it mirrors approvals into a "
                         "configured allowlist).")
        return True, "\n".join(lines)
    stored = approved_match(platform, value, view.files, view.authorizer.whatsapp_alias_platforms,
                            view.authorizer.pairing_store_objects_only)
    if stored is None:
        return False, f"{visible(value)} is not paired on {platform}. Nothing changed. See: hermes-wizard pairing list"
    lines = [f"Revoke {visible(stored)} on {platform}? They lose access unless an allowlist or opt-in admits them."]
    if configured and value in [item.strip() for item in configured.split(",")]:
        lines.append(f"  Hermes also removes {visible(value)} from {allowlist_var} in .env.")
    return True, "\n".join(lines)

