"""Checks on the configuration files themselves: readability, syntax, quirks, secrets."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from hermes_wizard.core.homeroot import home_owner
from hermes_wizard.hermes.loader.catalog import ALIASES
from hermes_wizard.hermes.loader.envfile import JUDGED_ENV_BYTES, JUDGED_ENV_LINES
from hermes_wizard.hermes.loader.yamlfile import JUDGED_YAML_NODES, lookup
from hermes_wizard.judge.checks.registry import Context, Hit, check

SECRET_KEYS = re.compile(r"(token|secret|password|api_key|apikey|access_key|private_key)$", re.I)


@check("HW010", "env-unreadable", "error", "`.env` exists but cannot be read as a file.",
       what="""The .env is a directory, not a regular file, unreadable, or implausibly large.""",
       why="""Hermes cannot load its credentials and policies from it; the gateway starts without them or hangs
(a FIFO blocks Hermes's reader).""",
       fix="""Replace it with a regular file (mode 0600) holding KEY=VALUE lines.""")
def env_unreadable(ctx: Context) -> Iterable[Hit]:
    for env in (ctx.snapshot.env, ctx.snapshot.op_env):
        if env.blocks_start and env.blocks_fix:
            continue  # Hermes reads it and crashes: HW021 says so
        if env.blocks_start:
            yield Hit(None, f"{env.blocks_start}.", f"make {env.path} a regular file (chmod 600)")
        elif env.error:
            yield Hit(None, f"{env.error}: no credentials or policies from it take effect.",
                      f"make {env.path} a regular file (chmod 600)", "warning")


@check("HW011", "env-invalid-lines", "warning", "Lines in `.env` that python-dotenv cannot parse are skipped.",
       what="""python-dotenv (what Hermes uses) skips lines it cannot parse, such as an unterminated quote.""",
       why="""A setting you believe is active is silently ignored.""",
       fix="""Fix the quoting on the named lines.""")
def env_invalid_lines(ctx: Context) -> Iterable[Hit]:
    lines = ctx.snapshot.env.invalid_lines
    if lines:
        shown = ", ".join(map(str, lines[:8])) + (" …" if len(lines) > 8 else "")
        many = len(lines) != 1
        yield Hit(None, f".env line{'s' if many else ''} {shown} cannot be parsed and {'are' if many else 'is'} "
                  "ignored by Hermes.", "fix the quoting")


@check("HW012", "env-duplicate-key", "warning", "A key is assigned more than once in `.env`; the last one wins.",
       what="""python-dotenv keeps the last assignment of a key.""",
       why="""Editing the first occurrence has no effect, a classic source of "I changed it and nothing happened".""",
       fix="""Delete all but one assignment.""")
def env_duplicate_key(ctx: Context) -> Iterable[Hit]:
    for key, lines in ctx.snapshot.env.duplicates.items():
        yield Hit(None, f"{key} is set on .env lines {', '.join(map(str, lines))}; line {lines[-1]} wins.",
                  f"keep one {key} line")


@check("HW013", "env-bom-hides-first-key", "warning", "A UTF-8 byte-order mark glues itself to the first key.",
       what="""When Hermes's sanitizer leaves the file alone, python-dotenv reads it as UTF-8 with the BOM, and the
first key's name starts with an invisible U+FEFF character.""",
       why="""That first setting is never seen under its real name.""",
       fix="""Save .env as UTF-8 without BOM.""")
def env_bom(ctx: Context) -> Iterable[Hit]:
    if ctx.snapshot.env.bom_key:
        yield Hit(None, f"the first key, {ctx.snapshot.env.bom_key}, is invisible to Hermes (UTF-8 BOM).",
                  "save .env as UTF-8 without BOM")


@check("HW014", "env-rewritten-by-hermes", "info", "Hermes will rewrite this `.env` when the gateway starts.",
       what="""At startup Hermes 'sanitizes' .env in place: strips every line, removes NUL bytes, converts UTF-16
to UTF-8 (gateway/run.py imports env_loader, which writes the file).""",
       why="""Comments with trailing spaces, indentation and the encoding change under you; tools that
compare the file see it modified.""",
       fix="""Nothing is wrong; save the file as clean UTF-8 without leading or trailing spaces to avoid it.""")
def env_rewritten(ctx: Context) -> Iterable[Hit]:
    env = ctx.snapshot.env
    if env.sanitizer_rewrites or env.encoding not in ("utf-8", "utf-32"):  # 0.19 leaves UTF-32 as it is
        detail = f" (read as {env.encoding})" if env.encoding != "utf-8" else ""
        yield Hit(None, f"Hermes will rewrite .env at startup{detail}.", "save it as clean UTF-8")
    if env.stripped_credentials:
        yield Hit(None, f"non-ASCII characters are stripped from {', '.join(env.stripped_credentials)}; the "
                  "value Hermes uses differs from the file.", "re-copy the credential", "warning")


@check("HW015", "env-permissions", "warning", "`.env` holds secrets but is readable by group or others.",
       what="""Hermes writes .env with mode 0600; hand-made files are often 0644.""",
       why="""Every bot token and API key in it can be read by other users of this machine.""",
       fix="""chmod 600 ~/.hermes/.env (doctor --fix does this).""")
def env_permissions(ctx: Context) -> Iterable[Hit]:
    env = ctx.snapshot.env
    if env.exists and env.error is None and env.mode is not None and env.mode & 0o077:
        yield Hit(None, f".env has mode {env.mode:04o}: readable beyond its owner.", f"chmod 600 {env.path}")
    # whose it should be: the user the gateway runs as — yours, or, when root judges a user's home, its owner's
    me = os.geteuid()
    runs_as = (home_owner(ctx.snapshot.home) if me == 0 else None) or me
    if env.exists and env.uid is not None and env.uid != runs_as:
        whose = "you" if runs_as == me else "the home's owner"
        yield Hit(None, f".env is owned by uid {env.uid}, not by {whose} (uid {runs_as}).",
                  "chown it to the user that runs the gateway")


@check("HW020", "yaml-syntax-error", "error", "`config.yaml` does not parse; Hermes silently falls back to `.env`.",
       what="""Hermes's gateway loader catches the YAML error, logs one warning and continues with .env and
gateway.json values only (gateway/config.py:1617).""",
       why="""Every platform setting in config.yaml — policies, enabled flags, allowlists — is ignored while
the gateway looks healthy.""",
       fix="""Fix the syntax at the line and column shown.""")
def yaml_syntax(ctx: Context) -> Iterable[Hit]:
    error = ctx.snapshot.yaml.error
    if error is not None:
        where = f" at {error.where()}" if error.line else ""
        yield Hit(None, f"config.yaml: {_quoted_abbreviated(error.message)}{where}. Hermes ignores the whole file.",
                  "fix the YAML at that position")
    elif ctx.effective.yaml_fallback:
        yield Hit(None, f"Hermes's loader fails on config.yaml ({ctx.effective.yaml_fallback}) and keeps only "
                  "what it had merged before the failure.", "fix the value named in the error")
    if ctx.snapshot.yaml.parsed_with_libyaml:
        yield Hit(None, f"config.yaml is {ctx.snapshot.yaml.size // 1024} KiB; Hermes parses it with pure-Python "
                  "YAML on every config load.", "move bulk data out of config.yaml", "warning")


def _quoted_abbreviated(message: str) -> str:
    """PyYAML quotes what it tripped on ('found undefined alias 'x''): a token pasted
    unquoted as `*abc…` or `&abc…` is read as an alias or anchor name, so a quoted
    name is shown by its first two characters and its size only."""
    return re.sub(r"'([^'\n]{5,})'", lambda m: f"'{m.group(1)[:2]}…' ({len(m.group(1))} characters)", message)


@check("HW024", "beyond-judging-bounds", "error", "A file Hermes loads is more than hermes-wizard judges.",
       what=f"""To answer before every start within a second, hermes-wizard judges a `.env` of up to
{JUDGED_ENV_BYTES // 1024:,} KiB and {JUDGED_ENV_LINES:,} lines and a config.yaml of up to {JUDGED_YAML_NODES:,} YAML
nodes (counted generously: every `:`, `,`, `[`, `{{`, `?`
(`-` counts twice). A bigger file is not read at all, and no verdict is given: `check` says "cannot judge" (exit 1,
JSON `would_start: null`), and the pre-start gate lets the gateway start, with one line in the journal.""",
       why="""Hermes still loads such a file, slowly (about 0.2 ms a `.env` line, twice, at every start), and
nobody, this tool included, has checked what it decides: a refusal or a crash would go unnoticed.""",
       fix="""Remove what the file does not need (a real `.env` is a few dozen lines, a real config.yaml a few
thousand nodes); generated bulk belongs in files of its own.""", unjudged_too=True)
def beyond_judging_bounds(ctx: Context) -> Iterable[Hit]:
    if ctx.effective.unjudged is not None:
        yield Hit(None, f"cannot judge: {ctx.effective.unjudged}.", "make the file smaller (hermes-wizard explain "
                  "HW024)")


@check("HW021", "config-loader-crash", "error", "Hermes's config loader raises: the gateway crashes at startup.",
       what="""Some mistakes escape the loader's error handling, e.g. a home_channel without `platform`
(KeyError 'platform', gateway/config.py:446), a non-string token, a gateway.json value from_dict cannot
take (a sessions_dir that is no path, a notify_exclude_platforms or profile_routes that is no list), a
config.yaml alias inside its own anchor (the runner's ${VAR} expansion recurses), or a
session_reset.bg_process_max_age_hours that is not a number (the runner of a Hermes that reads it compares it
with 0).""",
       why="""The gateway dies with a traceback on every start; the service restarts it forever. `check`
exits 78 and `check --gate` stops the start, as for a refusal.""",
       fix="""Correct or remove the value named (home_channel needs platform and chat_id; quote tokens);
`doctor --fix` removes a gateway.json value Hermes crashes on, and a bg_process_max_age_hours from
either file.""")
def loader_crash(ctx: Context) -> Iterable[Hit]:
    unreadable = [env for env in (ctx.snapshot.env, ctx.snapshot.op_env) if env.blocks_start and not env.blocks_fix]
    if ctx.effective.crash and not unreadable:  # an unreadable .env is HW010's
        yield Hit(None, f"the gateway crashes at start: {ctx.effective.crash}.",
                  ctx.effective.crash_fix or "home_channel: {platform: <name>, chat_id: \"<id>\"}; quote tokens")


MAX_UNKNOWN_KEYS_NAMED = 50


@check("HW022", "unknown-platform-key", "warning", "A platform key Hermes does not know is silently ignored.",
       what="""GatewayConfig.from_dict skips unknown platform names (gateway/config.py:1033). `qq:` must be
`qqbot:`, for instance.""",
       why="""Everything under that key — enabled, policies, allowlists — has no effect.""",
       fix="""Rename the key to Hermes's platform name.""")
def unknown_platform_key(ctx: Context) -> Iterable[Hit]:
    platforms = ctx.model.platforms()
    data = ctx.snapshot.yaml.mapping()
    sources = [("platforms",), ("gateway", "platforms")]
    for path in sources:
        node = lookup(data, path)
        if not isinstance(node, dict):
            continue
        unknown = [key for key in node if isinstance(key, str) and ctx.model.platform_value(key) is None]
        for key in unknown[:MAX_UNKNOWN_KEYS_NAMED]:
            hint = ALIASES.get(key.strip().lower())
            where = ".".join(path + (key,))
            yield Hit(hint, f"config.yaml:{ctx.snapshot.yaml.line_of(path + (key,))} `{where}` is not a Hermes "
                      "platform and is ignored" + (f"; did you mean `{hint}`?" if hint else "."),
                      f"rename it to `{hint}`" if hint else "use one of: " + ", ".join(sorted(platforms)))
        if len(unknown) > MAX_UNKNOWN_KEYS_NAMED:  # a few named, then a count: output stays bounded
            yield Hit(None, f"`{'.'.join(path)}` holds {len(unknown) - MAX_UNKNOWN_KEYS_NAMED} more keys that are "
                      "not Hermes platforms (not listed one by one).", "remove them")
    for key in data:
        if isinstance(key, str) and key.lower() in ALIASES and ctx.model.platform_value(key) is None:
            target = ALIASES[key.lower()]
            yield Hit(target, f"config.yaml:{ctx.snapshot.yaml.line_of((key,))} top-level `{key}:` is ignored; "
                      f"the platform is `{target}`.", f"rename it to `{target}:`")


@check("HW023", "secret-in-config-yaml", "warning", "A credential is stored in `config.yaml` instead of `.env`.",
       what="""config.yaml is usually world-readable, copied into bug reports and backups; .env is 0600.""",
       why="""Tokens in config.yaml leak. Hermes also never expands ${VAR} in the gateway's YAML, so a
`${TOKEN}` placeholder is used literally.""",
       fix="""Move the value to the platform's variable in .env and delete it from config.yaml.""")
def secret_in_yaml(ctx: Context) -> Iterable[Hit]:
    platforms = ctx.model.platforms()
    data = ctx.snapshot.yaml.mapping()
    for root in (("platforms",), ("gateway", "platforms"), ()):
        node = lookup(data, root)
        if not isinstance(node, dict):
            continue
        for name, block in node.items():
            if name not in platforms or not isinstance(block, dict):
                continue
            for holder, prefix in ((block, root + (name,)), (block.get("extra"), root + (name, "extra"))):
                if not isinstance(holder, dict):
                    continue
                for key, value in holder.items():
                    if isinstance(key, str) and SECRET_KEYS.search(key) and isinstance(value, (str, int)) and value:
                        path = prefix + (key,)
                        literal = isinstance(value, str) and value.startswith("${")
                        words = ("is a ${...} placeholder that Hermes never expands" if literal
                                 else "holds a credential")
                        yield Hit(name, f"config.yaml:{ctx.snapshot.yaml.line_of(path)} `{'.'.join(path)}` {words}.",
                                  f"move it to {platforms[name].token_env or 'the platform variable'} in .env",
                                  "error" if literal else None)
