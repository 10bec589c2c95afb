"""`hermes-wizard access [PLATFORM [SENDER]]`: who can reach the agent, decided as the gateway decides.

Without a sender: per enabled platform (or the one named), who gets through in DMs and in groups —
everyone (and the opt-in that makes it so), the allowlisted IDs (with the names the pairing store
knows), the approved pairings and the requests waiting, or nobody yet.  With a sender: whether
that sender's message is accepted, the rule that decided (in Hermes's order) and where its value
lives — after "nobody: the gateway does not start — …" when Hermes refuses, or crashes, at start (the verdict
`check` exits 78 for): then nobody is heard, whatever the rule.  Exit 0 accepted, 1 denied or the gateway does
not start, 2 usage.  `--format json` with a sender prints one object: `platform`, `sender`, `chat_type`,
`chat_id`, `authorized` (the rule's answer), `rule`, `source`, `variable`, `would_start` (as `check`'s: false
when nobody is heard, whatever the rule), `hermes`, and for the adapters that gate messages themselves (WhatsApp,
Weixin DMs, WeCom, QQBot, Yuanbao) `reaches_gateway` and `gets_through`.

Everything from the home is escaped (the guarded output) and every secret it holds is masked.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from hermes_wizard.core.exitcodes import ExitCode
from hermes_wizard.core.safetext import hide, json_text, to_stderr, visible
from hermes_wizard.faces.access_args import named_platform, one_home, usage
from hermes_wizard.faces.access_words import overview_json, overview_text, rule_words
from hermes_wizard.faces.judging import host_facts
from hermes_wizard.faces.selection import select_homes
from hermes_wizard.hermes.access.authz import Sender
from hermes_wizard.judge.access import AccessView, decide, load_view, nobody_heard, platform_access, source_of
from hermes_wizard.judge.masking import secret_values


def run_access(args: argparse.Namespace) -> int:
    refused = one_home(args, "access")
    if refused is not None:
        return refused
    if args.sender is None and (args.chat_id or args.bot or args.name or args.chat != "dm"):
        return usage("access", "--chat, --chat-id, --bot and --name describe a sender: name one (access PLATFORM "
                     "SENDER)")
    homes = select_homes(args)
    if homes is None:
        return ExitCode.USAGE
    (profile, home), = homes
    base_env = dict(os.environ) if args.inherit_env else {}
    view = load_view(home, profile, base_env=base_env, facts=host_facts(args, home))
    hide(secret_values(view.report.snapshot))
    if view.report.effective.unjudged is not None:  # no state to decide from: say so, never a guess
        to_stderr(f"hermes-wizard access: cannot judge who reaches the agent: "
                  f"{visible(view.report.effective.unjudged)} (hermes-wizard explain HW024)")
        return ExitCode.PROBLEMS
    platform, refused = named_platform(args, "access", view.report.model)
    if refused is not None:
        return refused
    if args.sender is not None and platform is not None:
        return _one_sender(args, view, platform)
    return _overview(args, view, platform)


def _one_sender(args: argparse.Namespace, view: AccessView, platform: str) -> int:
    sender = Sender(platform, args.sender, args.chat, args.chat_id, bool(args.bot), args.name)
    decision = decide(view, sender)
    source = source_of(view, decision, platform)
    enabled = platform in view.report.effective.enabled()
    effective = view.report.effective
    intake, intake_rule = view.authorizer.intake(effective.environ, effective.platforms, view.files, sender)
    nobody = nobody_heard(view)
    reaches = decision.authorized and intake is not False and enabled  # what exit 0 promises (the contract)
    if args.format == "json":
        payload = {"platform": platform, "sender": args.sender, "chat_type": args.chat, "chat_id": args.chat_id,
                   "authorized": decision.authorized, "rule": decision.rule, "source": source,
                   "variable": decision.variable, "matched": decision.matched, "platform_enabled": enabled,
                   "reaches_gateway": intake, "intake_rule": intake_rule or None,
                   "gets_through": None if intake is None else (intake and decision.authorized),
                   "would_start": view.report.would_start, "hermes": view.report.hermes.judged_as}
        sys.stdout.write(json_text(payload) + "\n")
    else:
        mark, verdict = ("[✓]", "accepted") if reaches else ("[✗]", "denied" if not decision.authorized else
                                                               "dropped" if intake is False else "not received")
        where = {"dm": "a DM", "group": "a group", "channel": "a channel", "forum": "a forum topic"}[args.chat]
        where += f" ({visible(args.chat_id)})" if args.chat_id else ""
        if nobody is not None:  # first: no rule matters until the gateway starts
            print(f"[✗] {nobody}. Once it starts:")
        print(f"{mark} {verdict}: {visible(args.sender)!r} in {where} on {platform} "
              f"(Hermes {view.report.hermes.judged_as})")
        print(f"    rule: {decision.rule} — {rule_words(decision)}" + (f" [{source}]" if source else "")
              + (" (the gateway's own rule would let it through)" if decision.authorized and not reaches else ""))
        if intake is False:
            print(f"    but: the {platform} adapter drops this message before the gateway sees it ({intake_rule})")
        if not enabled:
            print(f"    note: {platform} is not enabled in this home: the gateway would not receive the message")
    return ExitCode.OK if reaches and nobody is None else ExitCode.PROBLEMS


def _overview(args: argparse.Namespace, view: AccessView, platform: str | None) -> int:
    rows = [row for row in platform_access(view, time.time()) if platform is None or row.name == platform]
    if args.format == "json":
        sys.stdout.write(json_text(overview_json(view, rows)) + "\n")
    else:
        sys.stdout.write(overview_text(view, rows, platform) + "\n")
    return ExitCode.OK
