"""`hermes-wizard access [PLATFORM [SENDER]]`: who can reach the agent, decided as the gateway decides.

Without a sender: per enabled platform (or the one named), who gets through in DMs and in groups —
everyone (and the opt-in that makes it so), the allowlisted IDs (with the names the pairing store
knows), the approved pairings and the requests waiting, or nobody yet.  With a sender: whether
that sender's message is accepted, the rule that decided (in Hermes's order) and where its value
lives.  Exit 0 accepted, 1 denied, 2 usage.  `--format json` with a sender prints one object:
`platform`, `sender`, `chat_type`, `chat_id`, `authorized`, `rule`, `source`, `variable`, `hermes`, and for
the adapters that gate messages themselves (WhatsApp, Weixin DMs, WeCom, QQBot, Yuanbao) `reaches_gateway`
and `gets_through`.

Everything from the home is escaped (the guarded output) and every secret it holds is masked.
"""

from __future__ import annotations

import os
import sys
import time

from hermes_wizard.core.exitcodes import ExitCode
from hermes_wizard.core.safetext import to_stderr


def add_parser(sub, common) -> None:
    parser = sub.add_parser("access", help="who can reach the agent: per platform, or whether one sender's "
                            "message gets through (exit 0 accepted, 1 denied)")
    common(parser)
    parser.add_argument("platform", nargs="?", help="a platform, as Hermes names it (telegram, whatsapp, ...)")
    parser.add_argument("sender", nargs="?", help="the sender's user ID as the platform reports it")
    parser.add_argument("--chat", default="dm", choices=("dm", "group", "channel", "forum", "thread"),
                        help="where the message is sent (default: dm)")
    parser.add_argument("--chat-id", help="the group's or channel's chat ID (chat allowlists match it)")
    parser.add_argument("--bot", action="store_true", help="the sender is a bot (the *_ALLOW_BOTS admission)")
    parser.add_argument("--name", help="the sender's display name (SimpleX allowlists match it)")


def run_access(args) -> int:
    from hermes_wizard.faces.selection import select_homes
    from hermes_wizard.hermes.loader.catalog import PLATFORMS, platform_value

    def usage(message: str) -> int:
        to_stderr(f"hermes-wizard access: {message}")
        return ExitCode.USAGE

    if getattr(args, "all_profiles", False):
        return usage("--all-profiles is not for access: name one home (--home, --profile)")
    platform = None
    if args.platform is not None:
        platform = platform_value(args.platform)
        if platform is None or platform not in PLATFORMS:
            from hermes_wizard.core.safetext import visible

            return usage(f"unknown platform {visible(args.platform)!r} (one of: {', '.join(sorted(PLATFORMS))})")
    if args.sender is None and (args.chat_id or args.bot or args.name or args.chat != "dm"):
        return usage("--chat, --chat-id, --bot and --name describe a sender: name one (access PLATFORM SENDER)")
    homes = select_homes(args)
    if homes is None:
        return ExitCode.USAGE
    (profile, home), = homes
    from hermes_wizard.core.safetext import hide
    from hermes_wizard.faces.judging import host_facts
    from hermes_wizard.judge.access import load_view
    from hermes_wizard.judge.masking import secret_values

    base_env = dict(os.environ) if args.inherit_env else {}
    view = load_view(home, profile, base_env=base_env, facts=host_facts(args, home))
    hide(secret_values(view.report.snapshot))
    if args.sender is not None and platform is not None:
        return _one_sender(args, view, platform)
    return _overview(args, view, platform)


def _one_sender(args, view, platform: str) -> int:
    from hermes_wizard.core.safetext import json_text, visible
    from hermes_wizard.hermes.access.authz import Sender
    from hermes_wizard.judge.access import decide, source_of

    sender = Sender(platform, args.sender, args.chat, args.chat_id, bool(args.bot), args.name)
    decision = decide(view, sender)
    source = source_of(view, decision, platform)
    enabled = platform in view.report.effective.enabled()
    effective = view.report.effective
    intake, intake_rule = view.authorizer.intake(effective.environ, effective.platforms, view.files, sender)
    if args.format == "json":
        payload = {"platform": platform, "sender": args.sender, "chat_type": args.chat, "chat_id": args.chat_id,
                   "authorized": decision.authorized, "rule": decision.rule, "source": source,
                   "variable": decision.variable, "matched": decision.matched, "platform_enabled": enabled,
                   "reaches_gateway": intake, "intake_rule": intake_rule or None,
                   "gets_through": None if intake is None else (intake and decision.authorized),
                   "hermes": view.report.hermes.judged_as}
        sys.stdout.write(json_text(payload) + "\n")
    else:
        from hermes_wizard.faces.access_words import rule_words

        mark, verdict = ("[✓]", "accepted") if decision.authorized else ("[✗]", "denied")
        where = {"dm": "a DM", "group": "a group", "channel": "a channel", "forum": "a forum topic"}[args.chat]
        where += f" ({visible(args.chat_id)})" if args.chat_id else ""
        print(f"{mark} {verdict}: {visible(args.sender)!r} in {where} on {platform} "
              f"(Hermes {view.report.hermes.judged_as})")
        print(f"    rule: {decision.rule} — {rule_words(decision)}" + (f" [{source}]" if source else ""))
        if intake is False:
            print(f"    but: the {platform} adapter drops this message before the gateway sees it ({intake_rule})")
        if not enabled:
            print(f"    note: {platform} is not enabled in this home: the gateway would not receive the message")
    return ExitCode.OK if decision.authorized else ExitCode.PROBLEMS


def _overview(args, view, platform: str | None) -> int:
    from hermes_wizard.core.safetext import json_text
    from hermes_wizard.faces.access_words import overview_json, overview_text
    from hermes_wizard.judge.access import platform_access

    rows = [row for row in platform_access(view, time.time()) if platform is None or row.name == platform]
    if args.format == "json":
        sys.stdout.write(json_text(overview_json(view, rows)) + "\n")
    else:
        sys.stdout.write(overview_text(view, rows, platform) + "\n")
    return ExitCode.OK
