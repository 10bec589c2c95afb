"""The command lines of `access` and `pairing`: their parsers, kept apart from the commands themselves.

The full parser (faces/cli.py) adds every command's arguments on every run, so these definitions must
import nothing; faces/access.py and faces/pairing_cmd.py, which import the engine and Hermes's runner,
are loaded only when their command runs.  `one_home` and `named_platform` are the argument checks both commands share.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from hermes_wizard.core.exitcodes import ExitCode
from hermes_wizard.core.safetext import to_stderr, visible

if TYPE_CHECKING:
    from hermes_wizard.hermes.model import Model

CHAT_TYPES = ("dm", "group", "channel", "forum", "thread")
Parser = TypeVar("Parser", bound=argparse.ArgumentParser)  # the full parser's own class (faces/cli.py)


def add_access_parser(sub: argparse._SubParsersAction[Parser],
                      common: Callable[[argparse.ArgumentParser], None]) -> None:
    parser = sub.add_parser("access", help="who can reach the agent: per platform, or whether one sender's "
                            "message gets through (exit 0 accepted, 1 denied)")
    common(parser)
    parser.add_argument("platform", nargs="?", help="a platform, as Hermes names it (telegram, whatsapp, ...)")
    parser.add_argument("sender", nargs="?", help="the sender's user ID as the platform reports it")
    parser.add_argument("--chat", default="dm", choices=CHAT_TYPES, help="where the message is sent (default: dm)")
    parser.add_argument("--chat-id", help="the group's or channel's chat ID (chat allowlists match it)")
    parser.add_argument("--bot", action="store_true", help="the sender is a bot (the *_ALLOW_BOTS admission)")
    parser.add_argument("--name", help="the sender's display name (SimpleX allowlists match it)")


def add_pairing_parser(sub: argparse._SubParsersAction[Parser],
                       common: Callable[[argparse.ArgumentParser], None]) -> None:
    parser = sub.add_parser("pairing", help="list pairing requests and paired users; approve or revoke through "
                            "Hermes's own pairing code, previewed")
    common(parser)
    parser.add_argument("action", choices=("list", "approve", "revoke"))
    parser.add_argument("platform", nargs="?", help="the platform (approve, revoke; optional for list)")
    parser.add_argument("value", nargs="?", metavar="CODE|USER_ID", help="the code to approve, the user to revoke")
    parser.add_argument("--yes", action="store_true", help="do it without asking (required without a terminal)")


def usage(command: str, message: str) -> int:
    """Say what is wrong with the command line, on stderr; the usage exit status."""
    to_stderr(f"hermes-wizard {command}: {message}")
    return ExitCode.USAGE


def one_home(args: argparse.Namespace, command: str) -> int | None:
    """None, or the usage exit status after saying why: both commands act on one home, so `--all-profiles`
    is refused before any home is read."""
    if getattr(args, "all_profiles", False):
        return usage(command, f"--all-profiles is not for {command}: name one home (--home, --profile)")
    return None


def named_platform(args: argparse.Namespace, command: str, model: Model) -> tuple[str | None, int | None]:
    """(the platform named on the command line or None, None) — or (None, exit status) after saying why not.

    A platform is taken by any of Hermes's names for it and must be one the judged Hermes knows: `model` is
    the judged version's (0.20 knows platforms 0.19 does not), so this runs once the home is judged."""
    if args.platform is None:
        return None, None
    known = model.platforms()
    platform = model.platform_value(args.platform)
    if platform is None or platform not in known:
        return None, usage(command, f"unknown platform {visible(args.platform)!r} for Hermes {model.version} "
                           f"(one of: {', '.join(sorted(known))})")
    return platform, None
