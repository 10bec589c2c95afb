"""`setup`'s non-interactive arguments: an answers file, or flags for every question (gh auth login style).

    setup --answers FILE [--dry-run] [--detailed-exitcode] [--save-answers OUT]
    setup --platform telegram --token-from-env TG_TOKEN --allow 123456789 [--policy pairing|allowlist|open
          --i-understand-open telegram] [--group-policy P] [--env KEY=VALUE] [--env-from-env KEY=VAR]
          [--disable whatsapp]... [--save-answers OUT]

One `--platform` per run: the options configure that platform, so a second `--platform` is a usage
error (exit 2, nothing written) rather than options silently applied to the wrong one.

The flags build the same tree an answers file is read into (wizard/plan/answers_file/tree.py), each
value located by the flag it came from, so both meet one validator and make the same Plan.  "Token"
is the platform's primary secret (the catalog's token variable, or its only secret credential);
where that is ambiguous the user is told to name the key with --env-from-env.  `--token-stdin`
reads one line from stdin (without echo on a terminal); nothing here ever prompts otherwise.

Contract: `add_arguments` only declares; `wants_declared` says whether `setup` runs headless;
`flags_tree` returns (tree, extra environment) or raises TreeError naming the flags.
"""

from __future__ import annotations

import sys

from wizard.core.kinds import ExitCode

OPEN_FLAG = "--i-understand-open"


def add_arguments(setup) -> None:
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
    setup.add_argument("--platform", metavar="NAME", action="append",
                       help="the one platform the flags below configure (several: use --answers FILE)")
    token = setup.add_mutually_exclusive_group()
    token.add_argument("--token-from-env", metavar="VAR", help="the platform's token is in environment variable VAR")
    token.add_argument("--token-stdin", action="store_true", help="read the platform's token from stdin (one line)")
    setup.add_argument("--env", metavar="KEY=VALUE", action="append", default=[],
                       help="a non-secret credential of the platform (e.g. WEIXIN_ACCOUNT_ID=…); repeatable")
    setup.add_argument("--env-from-env", metavar="KEY=VAR", action="append", default=[],
                       help="a credential of the platform read from environment variable VAR; repeatable")
    setup.add_argument("--allow", metavar="ID", action="append", default=[],
                       help="a user who may use the platform (repeatable, or comma-separated)")
    setup.add_argument("--policy", choices=("pairing", "allowlist", "open"), help="who may message the bot directly")
    setup.add_argument("--group-policy", choices=("open", "allowlist", "pairing", "disabled"),
                       help="what the platform does with group chats (whatsapp, weixin, wecom, qqbot, yuanbao)")
    setup.add_argument(OPEN_FLAG, metavar="PLATFORM", dest="i_understand_open",
                       help="required with an open policy, naming the same platform: anyone who can reach it "
                            "uses the agent")
    setup.add_argument("--disable", metavar="NAME", action="append", default=[], help="turn a platform off; "
                       "repeatable")


PLATFORM_FLAGS = ("token_from_env", "token_stdin", "env", "env_from_env", "allow", "policy", "group_policy",
                  "i_understand_open")


def wants_declared(args) -> bool:
    """Whether `setup` was given an answers file or any flag that answers a question (`--save-answers`
    alone is the interactive faces': they record their answers with wizard/write/saved_answers.py)."""
    names = ("answers", "platform", "disable", "dry_run", "detailed_exitcode") + PLATFORM_FLAGS
    return any(getattr(args, name, None) for name in names)


def usage_code(args) -> int:
    """The exit code of bad input: 2, except under --detailed-exitcode, where 2 means "changed"."""
    return 1 if getattr(args, "detailed_exitcode", False) else ExitCode.USAGE


def flags_tree(args, stdin=None):
    """The answers the flags give, as a located tree, and the environment additions they need
    (a token read from stdin is handed to the validator as if exported under its key's name)."""
    from wizard.hermes.v0_19.catalog import PLATFORMS
    from wizard.judge.masking import is_secret_name
    from wizard.plan.answers_file.tree import Item, TreeError

    problems: list[str] = []
    extra_env: dict[str, str] = {}
    platforms: dict[str, Item] = {}
    named = args.platform or []
    if len(named) > 1:  # the options would all land on one of them: never guessed, never last-wins
        raise TreeError([f"--platform {' --platform '.join(named)}: one --platform per run; the options after it "
                         "(--token-from-env, --allow, --policy, …) configure that one platform, so with several "
                         "they would be misread. Run setup once per platform, or declare them all with --answers "
                         "FILE"])
    name = named[0] if named else None
    given = [f"--{flag.replace('_', '-')}" for flag in PLATFORM_FLAGS if getattr(args, flag, None)]
    if args.answers and getattr(args, "secrets", None):
        raise TreeError(["--secrets cannot be combined with --answers: say `secrets: keyring` in the file"])
    if args.answers and (name or args.disable or given):
        raise TreeError(["--answers cannot be combined with --platform, --disable or the other answer flags: "
                         "put everything in the file"])
    if given and not name:
        raise TreeError([f"{', '.join(given)} configure one platform: name it with --platform"])
    for off in args.disable:
        if off == name:
            problems.append(f"--disable {off}: the same platform is configured with --platform")
        platforms[off] = Item({"enabled": Item(False, f"--disable {off}")}, f"--disable {off}")
    if name:
        at = f"--platform {name}"
        fields: dict[str, Item] = {}
        env: dict[str, Item] = {}
        if args.token_from_env or args.token_stdin:
            spec = PLATFORMS.get(name)
            token_key = _token_key(spec, problems) if spec else None
            if token_key and args.token_from_env:
                env[token_key] = Item({"from_env": Item(args.token_from_env, "--token-from-env")}, "--token-from-env")
            elif token_key:
                extra_env[token_key] = _read_token(stdin or sys.stdin, problems)
                env[token_key] = Item({"from_env": Item(token_key, "--token-stdin")}, "--token-stdin")
        for raw in args.env:
            key, _, value = raw.partition("=")
            if not _ or not key:
                problems.append(f"--env {raw!r}: expected KEY=VALUE")
            elif is_secret_name(key):
                problems.append(f"--env {key}=…: a secret is never given on the command line (other users see it "
                                f"in ps); use --env-from-env {key}=VARIABLE")
            else:
                env[key] = Item(value, f"--env {key}")
        for raw in args.env_from_env:
            key, _, var = raw.partition("=")
            if not _ or not key or not var:
                problems.append(f"--env-from-env {raw!r}: expected KEY=VARIABLE")
            else:
                env[key] = Item({"from_env": Item(var, f"--env-from-env {key}")}, f"--env-from-env {key}")
        if env:
            fields["env"] = Item(env, at)
        if args.allow:
            fields["allowed_users"] = Item([Item(part.strip(), "--allow") for raw in args.allow
                                            for part in raw.split(",") if part.strip()], "--allow")
        if args.policy:
            fields["dm_policy"] = Item(args.policy, "--policy")
        if args.group_policy:
            fields["group_policy"] = Item(args.group_policy, "--group-policy")
        opening = "open" in (args.policy, args.group_policy)
        if args.i_understand_open and args.i_understand_open != name:
            problems.append(f"{OPEN_FLAG} {args.i_understand_open}: it must name the platform being opened "
                            f"({name})")
        elif args.i_understand_open and not opening:
            problems.append(f"{OPEN_FLAG}: only with --policy open or --group-policy open")
        elif opening and not args.i_understand_open:
            problems.append(f"--policy open: anyone who can reach {name} would use the agent and its tools on this "
                            f"machine; add {OPEN_FLAG} {name} to confirm")
        elif opening:
            fields["allow_all"] = Item(True, OPEN_FLAG)
        platforms[name] = Item(fields, at)
    if problems:
        raise TreeError(problems)
    top = {"platforms": Item(platforms, "flags")}
    if getattr(args, "secrets", None):
        top["secrets"] = Item(args.secrets, "--secrets")
    return Item(top, "flags"), extra_env


def _token_key(spec, problems: list[str]) -> str | None:
    """The platform's primary secret: the catalog's token variable, else its only secret credential."""
    from wizard.judge.masking import is_secret_name

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


def _read_token(stdin, problems: list[str]) -> str:
    if stdin.isatty():
        import getpass

        return getpass.getpass("Token (not shown): ").strip()
    line = stdin.readline(4097)
    if not line.strip():
        problems.append("--token-stdin: stdin gave no token (one line expected)")
    elif len(line) > 4096:
        problems.append("--token-stdin: the first line of stdin is longer than any token (4096 characters)")
    return line.strip()
