"""`setup`'s non-interactive arguments: an answers file, or flags for every question (gh auth login style).

    setup --answers FILE [--dry-run] [--detailed-exitcode] [--save-answers OUT]
    setup --platform telegram --token-from-env TELEGRAM_BOT_TOKEN --allow 123456789 [--policy pairing|allowlist|open
          --i-understand-open telegram] [--group-policy P [--group-allow CHAT]...] [--env KEY=VALUE]
          [--env-from-env KEY=VAR]
          [--disable whatsapp]... [--save-answers OUT]

Several platforms in one run: each `--platform` takes the flags after it, up to the next `--platform`
(`--platform telegram --token-from-env TELEGRAM_BOT_TOKEN --platform weixin --token-from-env WEIXIN_TOKEN`);
a platform named twice, flags before any `--platform`, or one flag given twice with different values is a
usage error (exit 2, nothing written) — never a silent last-wins.  A token's variable is named for the
credential it holds (TELEGRAM_BOT_TOKEN, or PROD_TELEGRAM_BOT_TOKEN), as in an answers file.

The flags build the same tree an answers file is read into (wizard/plan/answers_file/tree.py), each
value located by the flag it came from, so both meet one validator and make the same Plan.  "Token"
is the platform's primary secret (the catalog's token variable, or its only secret credential);
where that is ambiguous the user is told to name the key with --env-from-env.  `--token-stdin`
reads one line from stdin (without echo on a terminal); nothing here ever prompts otherwise.

Contract: `add_arguments` only declares; `wants_declared` says whether `setup` runs headless;
`flags_tree` returns (tree, extra environment) or raises TreeError naming the flags.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import TYPE_CHECKING, Any, TextIO

from hermes_wizard.core.exitcodes import ExitCode
from hermes_wizard.judge.masking import is_secret_name
from hermes_wizard.plan.answers_file.tree import Item, TreeError

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from hermes_wizard.hermes.loader.catalog import Spec

OPEN_FLAG = "--i-understand-open"
# One --platform and the flags after it, by dest: the values argparse parsed (a name, True for --token-stdin, a list
# for a repeated flag), and "_twice", the flags given twice with different values.
PlatformFlags = dict[str, Any]


def add_arguments(setup: argparse.ArgumentParser) -> None:
    """`setup`'s arguments for a run without prompts (the parser is wizard/faces/cli.py's)."""
    setup.add_argument("--answers", metavar="FILE", help="apply the configuration declared in FILE (YAML; see "
                       "the README) without prompts; `-` reads it from stdin")
    setup.add_argument("--save-answers", metavar="FILE", help="also record what was chosen in FILE (mode "
                       "0600), secrets referenced by environment variable name, never written")
    setup.add_argument("--dry-run", action="store_true", help="with --answers or flags: print the plan and the "
                       "verdict after it; write nothing to the home")
    setup.add_argument("--detailed-exitcode", action="store_true", help="exit 0 when nothing changed, 2 when "
                       "changes were applied, 1 on any error, 78 when Hermes would refuse to start")
    setup.add_argument("--secrets", choices=("env", "keyring"),
                       help="where the platforms' secrets are kept: .env (mode 0600, the default) or the OS keyring "
                            "(read by the gateway through this tool's Hermes plugin)")
    setup.add_argument("--platform", metavar="NAME", action=_NewPlatform, dest="platform",
                       help="a platform to configure; the flags after it (up to the next --platform) are its own")
    for flag, kwargs in _PER_PLATFORM:
        setup.add_argument(flag, action=_ForPlatform, **kwargs)
    setup.add_argument("--disable", metavar="NAME", action="append", default=[], help="turn a platform off; "
                       "repeatable")


PLATFORM_FLAGS = ("token_from_env", "token_stdin", "env", "env_from_env", "allow", "policy", "group_policy",
                  "group_allow", "i_understand_open")
_REPEATED = ("env", "env_from_env", "allow", "group_allow")  # these add up; the others are one value per platform

_PER_PLATFORM: list[tuple[str, dict[str, Any]]] = [
    ("--token-from-env", dict(metavar="VAR", help="the platform's token is in environment variable VAR")),
    ("--token-stdin", dict(nargs=0, help="read the platform's token from stdin (one line)")),
    ("--env", dict(metavar="KEY=VALUE", help="a non-secret credential of the platform (e.g. WEIXIN_ACCOUNT_ID=…); "
                   "repeatable")),
    ("--env-from-env", dict(metavar="KEY=VAR", help="a credential of the platform read from environment variable "
                            "VAR; repeatable")),
    ("--allow", dict(metavar="ID", help="a user who may use the platform (repeatable, or comma-separated)")),
    ("--policy", dict(choices=("pairing", "allowlist", "open"), help="who may message the bot directly")),
    ("--group-policy", dict(choices=("open", "allowlist", "pairing", "disabled"),
                            help="what the platform does with group chats (whatsapp, weixin, wecom, qqbot, yuanbao)")),
    ("--group-allow", dict(metavar="CHAT", help="with --group-policy allowlist: a group chat the bot answers "
                           "(repeatable, one chat ID each)")),
    (OPEN_FLAG, dict(metavar="PLATFORM", dest="i_understand_open", help="required with an open policy, naming the "
                     "same platform: anyone who can reach it uses the agent")),
]


class _NewPlatform(argparse.Action):
    """`--platform NAME`: starts NAME's own set of flags (namespace.platform_groups, in command-line order)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        groups = _groups(namespace)
        groups.append({"platform": values})
        setattr(namespace, self.dest, [group["platform"] for group in groups if group.get("platform")])


class _ForPlatform(argparse.Action):
    """A per-platform flag: it belongs to the --platform before it (a group without a platform when none is)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        groups = _groups(namespace)
        if not groups:
            groups.append({})
        group = groups[-1]
        value = True if self.nargs == 0 else values
        if self.dest in _REPEATED:
            group.setdefault(self.dest, []).append(value)
        else:
            if self.dest in group and group[self.dest] != value:
                group.setdefault("_twice", []).append(option_string)
            group[self.dest] = value
        setattr(namespace, self.dest, value if self.dest not in _REPEATED else
                [*(getattr(namespace, self.dest, None) or []), value])


def _groups(namespace: argparse.Namespace) -> list[PlatformFlags]:
    if getattr(namespace, "platform_groups", None) is None:
        namespace.platform_groups = []
    groups: list[PlatformFlags] = namespace.platform_groups
    return groups


def wants_declared(args: argparse.Namespace) -> bool:
    """Whether `setup` was given an answers file or any flag that answers a question (`--save-answers`
    alone is the interactive faces': they record their answers with wizard/write/saved_answers.py)."""
    names = ("answers", "platform", "disable", "dry_run", "detailed_exitcode") + PLATFORM_FLAGS
    return any(getattr(args, name, None) for name in names)


def usage_code(args: argparse.Namespace) -> int:
    """The exit code of bad input: 2, except under --detailed-exitcode, where 2 means "changed"."""
    return ExitCode.PROBLEMS if getattr(args, "detailed_exitcode", False) else ExitCode.USAGE


def flags_tree(args: argparse.Namespace, specs: Mapping[str, Spec],
               stdin: TextIO | None = None) -> tuple[Item, dict[str, str]]:
    """The answers the flags give, as a located tree, and the environment additions they need
    (a token read from stdin is handed to the validator as if exported under its key's name).  `specs`: the
    judged version's platforms (a token flag names its platform's token variable; an unknown name is left
    to the answers validator, which says so).
    Each --platform's own flags are the ones after it (argparse groups them: _NewPlatform/_ForPlatform)."""
    problems: list[str] = []
    extra_env: dict[str, str] = {}
    platforms: dict[str, Item] = {}
    groups = list(getattr(args, "platform_groups", None) or [])
    named = [group["platform"] for group in groups if group.get("platform")]
    given = [f"--{flag.replace('_', '-')}" for flag in PLATFORM_FLAGS if getattr(args, flag, None)]
    if args.answers and getattr(args, "secrets", None):
        raise TreeError(["--secrets cannot be combined with --answers: say `secrets: keyring` in the file"])
    if args.answers and (named or args.disable or given):
        raise TreeError(["--answers cannot be combined with --platform, --disable or the other answer flags: "
                         "put everything in the file"])
    if groups and not groups[0].get("platform"):  # flags before any --platform belong to none
        early = [f"--{flag.replace('_', '-')}" for flag in PLATFORM_FLAGS if flag in groups[0]]
        raise TreeError([f"{', '.join(early)} configure one platform: name it with --platform before them"])
    for here, after in zip(groups, groups[1:]):  # `--platform a --platform b --token…`: whose token? never guessed
        if len(here) == 1:
            problems.append(f"--platform {here['platform']} --platform {after['platform']}: the flags after "
                            f"--platform {after['platform']} are its own, and {here['platform']} has none; give "
                            f"each platform its flags right after its --platform")
    for twice in sorted({name for name in named if named.count(name) > 1}):
        problems.append(f"--platform {twice} is given twice: give each platform once, with all its flags after it")
    if sum("token_stdin" in group for group in groups) > 1:
        problems.append("--token-stdin: stdin holds one token; give the other platforms' with --token-from-env")
    for off in args.disable or []:
        if off in named:
            problems.append(f"--disable {off}: the same platform is configured with --platform")
        platforms[off] = Item({"enabled": Item(False, f"--disable {off}")}, f"--disable {off}")
    for group in groups:
        platforms[group["platform"]] = _platform_item(group, specs.get(group["platform"]), problems, extra_env, stdin)
    if problems:
        raise TreeError(problems)
    top = {"platforms": Item(platforms, "flags")}
    if getattr(args, "secrets", None):
        top["secrets"] = Item(args.secrets, "--secrets")
    return Item(top, "flags"), extra_env


def _platform_item(group: PlatformFlags, spec: Spec | None, problems: list[str], extra_env: dict[str, str],
                   stdin: TextIO | None) -> Item:
    """One --platform and the flags after it, as the answers file's platform entry; what is wrong with
    them goes to `problems`, in flag order, and a token read from stdin to `extra_env`."""
    name = group["platform"]
    at = f"--platform {name}"
    problems += [f"{at}: {flag} is given twice with different values" for flag in group.get("_twice", [])]
    if "token_from_env" in group and "token_stdin" in group:
        problems.append(f"{at}: --token-from-env and --token-stdin both give its token: choose one")
    fields: dict[str, Item] = {}
    env = {**_token_env(group, spec, problems, extra_env, stdin), **_env_flags(group, problems)}
    if env:
        fields["env"] = Item(env, at)
    if group.get("allow"):
        fields["allowed_users"] = Item([Item(part.strip(), "--allow") for raw in group["allow"]
                                        for part in raw.split(",") if part.strip()], "--allow")
    fields.update(_policy_fields(group, name, problems))
    return Item(fields, at)


def _token_env(group: PlatformFlags, spec: Spec | None, problems: list[str], extra_env: dict[str, str],
               stdin: TextIO | None) -> dict[str, Item]:
    """--token-from-env / --token-stdin as the platform's token variable (a token read from stdin is kept in
    `extra_env`); empty when neither is given or the platform has no one token."""
    if not (group.get("token_from_env") or group.get("token_stdin")):
        return {}
    token_key = _token_key(spec, problems) if spec else None
    if token_key and group.get("token_from_env"):
        return {token_key: Item({"from_env": Item(group["token_from_env"], "--token-from-env")}, "--token-from-env")}
    if token_key:
        extra_env[token_key] = _read_token(stdin or sys.stdin, problems)
        return {token_key: Item({"from_env": Item(token_key, "--token-stdin")}, "--token-stdin")}
    return {}


def _env_flags(group: PlatformFlags, problems: list[str]) -> dict[str, Item]:
    """--env KEY=VALUE (never a secret: the command line is visible in ps) and --env-from-env KEY=VARIABLE."""
    env: dict[str, Item] = {}
    for raw in group.get("env", []):
        key, _, value = raw.partition("=")
        if not _ or not key:
            problems.append(f"--env {raw!r}: expected KEY=VALUE")
        elif is_secret_name(key):
            problems.append(f"--env {key}=…: a secret is never given on the command line (other users see it "
                            f"in ps); use --env-from-env {key}=VARIABLE")
        else:
            env[key] = Item(value, f"--env {key}")
    for raw in group.get("env_from_env", []):
        key, _, var = raw.partition("=")
        if not _ or not key or not var:
            problems.append(f"--env-from-env {raw!r}: expected KEY=VARIABLE")
        else:
            env[key] = Item({"from_env": Item(var, f"--env-from-env {key}")}, f"--env-from-env {key}")
    return env


def _policy_fields(group: PlatformFlags, name: str, problems: list[str]) -> dict[str, Item]:
    """--policy, --group-policy and its --group-allow chats (only with allowlist, which needs one); an open
    policy only with the confirmation flag naming this platform."""
    fields: dict[str, Item] = {}
    policy, group_policy, confirmed = group.get("policy"), group.get("group_policy"), group.get("i_understand_open")
    if policy:
        fields["dm_policy"] = Item(policy, "--policy")
    if group_policy:
        fields["group_policy"] = Item(group_policy, "--group-policy")
    chats = group.get("group_allow", [])
    if chats and group_policy != "allowlist":
        problems.append(f"--group-allow {chats[0]!r}: only with --group-policy allowlist (the chats it answers)")
    elif group_policy == "allowlist" and not chats:
        problems.append(f"--group-policy allowlist: name each group chat {name} answers with --group-allow CHAT (a "
                        "group allowlist of no chat answers no group)")
    elif chats:
        fields["group_chats"] = Item([Item(chat, "--group-allow") for chat in chats], "--group-allow")
    opening = "open" in (policy, group_policy)
    if confirmed and confirmed != name:
        problems.append(f"{OPEN_FLAG} {confirmed}: it must name the platform being opened ({name})")
    elif confirmed and not opening:
        problems.append(f"{OPEN_FLAG}: only with --policy open or --group-policy open")
    elif opening and not confirmed:
        problems.append(f"--policy open: anyone who can reach {name} would use the agent and its tools on this "
                        f"machine; add {OPEN_FLAG} {name} to confirm")
    elif opening:
        fields["allow_all"] = Item(True, OPEN_FLAG)
    return fields


def _token_key(spec: Spec, problems: list[str]) -> str | None:
    """The platform's primary secret: the catalog's token variable, else its only secret credential."""
    if spec.token_env:
        return spec.token_env
    secrets = [key for key in spec.credentials if is_secret_name(key)]
    if len(secrets) == 1:
        return secrets[0]
    if not secrets:
        problems.append(f"--platform {spec.name}: {spec.label} has no token (its credentials: "
                        f"{', '.join(spec.credentials) or 'none'}); give them with --env / --env-from-env")
    else:
        problems.append(f"--platform {spec.name}: {spec.label} has several secrets ({', '.join(secrets)}); say "
                        "which with --env-from-env KEY=VARIABLE instead of a token flag")
    return None


def _read_token(stdin: TextIO, problems: list[str]) -> str:
    if stdin.isatty():
        return getpass.getpass("Token (not shown): ").strip()
    line = stdin.readline(4097)
    if not line.strip():
        problems.append("--token-stdin: stdin gave no token (one line expected)")
    elif len(line) > 4096:
        problems.append("--token-stdin: the first line of stdin is longer than any token (4096 characters)")
    return line.strip()
