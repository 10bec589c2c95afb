"""What an answers file may say, and what it means: a tree of Items (wizard/plan/answers_file/tree.py)
checked against the schema and turned into `Declared` platforms, every problem collected with its place.

    platforms:
      <name>:                 # a platform Hermes 0.19 knows (wizard/hermes/loader/catalog.py)
        enabled: true         # default true; false turns it off (nothing else may be said then)
        env: {KEY: "value", SECRET_KEY: {from_env: VAR}}   # KEY: one of the platform's credentials
        dm_policy: pairing    # pairing | allowlist | open
        allowed_users: [ID]   # who may use it (allowlist needs it; pairing keeps it as pre-approved)
        group_policy: disabled  # open | allowlist | pairing | disabled (gated platforms only)
        group_chats: [CHAT]   # with group_policy allowlist (and only then): the group chats answered
        allow_all: true       # required, spelled out, beside an `open` policy; never implied
    secrets: keyring          # optional: keep the secrets in the OS keyring instead of .env (default env)

A secret (a key whose name says TOKEN, SECRET, PASSWORD, …) is never taken from the file itself: it
is `{from_env: VAR}`, read from this process's environment now, so the file can live in a repository.
VAR names the credential it is read for: the key itself or a name ending in `_KEY`
(`PROD_TELEGRAM_BOT_TOKEN`), so a file can never read an unrelated variable of whoever applies it.
`allowed_users` without `dm_policy` means allowlist where the gateway's allowlist is the only gate,
and pairing with those IDs pre-approved on the platforms whose adapter has its own DM policy.

Contract: pure; `declare` raises AnswersError holding every problem, in file order.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from hermes_wizard.core.frozenmap import FrozenMap
from hermes_wizard.core.values import Value, value_class
from hermes_wizard.hermes.loader.catalog import ALIASES
from hermes_wizard.judge.masking import is_secret_name
from hermes_wizard.plan.answers import (
    GROUP_POLICIES,
    chat_problems,
    credential_error,
    id_problems,
    unmatchable_ids,
)
from hermes_wizard.plan.answers_file.tree import Item, Number

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from hermes_wizard.hermes.loader.catalog import Spec

TOP_KEYS = ("platforms", "version", "secrets")
SECRET_STORES = ("env", "keyring")
PLATFORM_KEYS = ("enabled", "env", "dm_policy", "group_policy", "group_chats", "allowed_users", "allow_all")
DM_POLICIES = ("pairing", "allowlist", "open")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")


class AnswersError(ValueError):
    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@value_class
class PlatformDecl(Value):
    name: str
    where: str
    enabled: bool = True
    values: Mapping[str, str] = FrozenMap()  # credentials, resolved
    from_env: Mapping[str, str] = FrozenMap()  # KEY → the variable it was read from
    dm_policy: str | None = None
    group_policy: str | None = None
    group_chats: tuple[str, ...] = ()
    allowed_users: tuple[str, ...] = ()
    allow_all: bool = False


@value_class
class Declared(Value):
    platforms: Mapping[str, PlatformDecl]  # a FrozenMap, in the file's order
    warnings: tuple[str, ...] = ()
    secrets_store: str = "env"  # where typed secrets go: .env (mode 0600) or the OS keyring

    def secrets(self) -> list[str]:
        return [value for p in self.platforms.values() for key, value in p.values.items() if key in p.from_env]


def declare(tree: Item, environ: Mapping[str, str], specs: Mapping[str, Spec]) -> Declared:
    """The platforms `tree` declares, their secrets read from `environ`; AnswersError with every problem.
    `specs`: the platforms of the Hermes the home is judged as (its model's), the only names it may declare."""
    problems: list[str] = []
    declared: dict[str, PlatformDecl] = {}
    warnings: list[str] = []
    secrets_store = "env"
    if not isinstance(tree.value, dict):
        raise AnswersError([f"{tree.where}: expected a mapping with `platforms:` at the top, got {tree.kind()}"])
    for key, item in tree.value.items():
        if key not in TOP_KEYS:
            problems.append(f"{item.where}: unknown key {key!r}{_closest(key, TOP_KEYS)}; expected `platforms:`")
    store = tree.value.get("secrets")
    if store is not None:
        if store.value in SECRET_STORES:
            secrets_store = store.value
        else:
            problems.append(f"{store.where}: secrets: expected env or keyring (where the platforms' secrets are "
                            f"kept), got {store.value!r}")
    version = tree.value.get("version")
    if version is not None and str(version.value) != "1":
        problems.append(f"{version.where}: version: expected 1, got {version.value!r}")
    platforms = tree.value.get("platforms")
    if platforms is None:
        problems.append(f"{tree.where}: `platforms:` is missing: nothing is declared")
    elif not isinstance(platforms.value, dict):
        problems.append(f"{platforms.where}: platforms: expected a mapping of platform names, got {platforms.kind()}")
    else:
        for name, item in platforms.value.items():
            if name not in specs:
                close = difflib.get_close_matches(name.lower(), list(specs), n=1, cutoff=0.6)
                hint = ALIASES.get(name.lower()) or (close[0] if close else "")
                problems.append(f"{item.where}: unknown platform {name!r}"
                                + (f"; did you mean {hint}?" if hint else "; see the README for the names"))
                continue
            declared[name] = _platform(specs[name], item, environ, problems, warnings)
    if problems:
        raise AnswersError(sorted(problems, key=_line_of))
    return Declared(FrozenMap(declared), tuple(warnings), secrets_store)


def _line_of(problem: str) -> int:
    """The line a problem names ("file:12: …"), 0 for one located by a flag (stable sort keeps their order)."""
    head = problem.split(": ", 1)[0].rsplit(":", 1)[-1]
    return int(head) if head.isdigit() else 0


def _platform(spec: Spec, item: Item, environ: Mapping[str, str], problems: list[str],
              warnings: list[str]) -> PlatformDecl:
    name = spec.name
    if not isinstance(item.value, dict):
        problems.append(f"{item.where}: platforms.{name}: expected a mapping (enabled, env, dm_policy, …), "
                        f"got {item.kind()}")
        return PlatformDecl(name, item.where)
    fields = item.value
    at = f"platforms.{name}"
    for key, value in fields.items():
        if key not in PLATFORM_KEYS:
            problems.append(f"{value.where}: {at}: unknown key {key!r}{_closest(key, PLATFORM_KEYS)}; expected "
                            f"one of {', '.join(PLATFORM_KEYS)}")
    enabled = _bool(fields["enabled"], f"{at}.enabled", problems) if "enabled" in fields else True
    allow_all = _bool(fields["allow_all"], f"{at}.allow_all", problems) if "allow_all" in fields else False
    if not enabled:
        for key in set(fields) - {"enabled"}:
            problems.append(f"{fields[key].where}: {at}.{key}: the platform is declared `enabled: false`; a "
                            "platform that is off takes no other setting (remove it, or enable the platform)")
        return PlatformDecl(name, item.where, enabled, allow_all=allow_all)
    values, from_env = _env(name, spec, fields["env"], environ, problems) if "env" in fields else ({}, {})
    decl = PlatformDecl(name, item.where, enabled, FrozenMap(values), FrozenMap(from_env), allow_all=allow_all)
    gated, controlled = spec.gate is not None, bool(spec.allowlist_env or spec.allow_all_env or spec.gate)
    for key in ("dm_policy", "allowed_users", "allow_all", "group_policy", "group_chats"):
        if key in fields and not controlled:
            problems.append(f"{fields[key].where}: {at}.{key}: {spec.label} has no per-user access control in "
                            "Hermes (anyone who can reach it is served); remove it")
    if not controlled:
        return decl
    decl = replace(decl, dm_policy=_choice(fields.get("dm_policy"), f"{at}.dm_policy", DM_POLICIES, problems))
    if "group_policy" in fields:
        if gated:
            decl = replace(decl, group_policy=_choice(fields["group_policy"], f"{at}.group_policy", GROUP_POLICIES,
                                                      problems))
        else:
            problems.append(f"{fields['group_policy'].where}: {at}.group_policy: {spec.label} has no group policy "
                            "in Hermes (only whatsapp, weixin, wecom, qqbot and yuanbao do); remove it")
    if "group_chats" in fields:
        if gated:
            decl = replace(decl, group_chats=tuple(_chats(spec, fields["group_chats"], f"{at}.group_chats", problems)))
        else:
            problems.append(f"{fields['group_chats'].where}: {at}.group_chats: {spec.label} has no group allowlist "
                            "in Hermes (only whatsapp, weixin, wecom, qqbot and yuanbao do); remove it")
    if "allowed_users" in fields:
        decl = replace(decl, allowed_users=tuple(_ids(fields["allowed_users"], f"{at}.allowed_users", problems)))
        wrong = unmatchable_ids(spec, decl.allowed_users)
        problems += [f"{fields['allowed_users'].where}: {at}.allowed_users: {w}" for w in wrong]
        warnings += [f"{fields['allowed_users'].where}: {at}.allowed_users: {w}"
                     for w in id_problems(spec, decl.allowed_users) if not wrong]
    _access_rules(decl, fields, at, problems)
    return decl


def _access_rules(decl: PlatformDecl, fields: dict[str, Item], at: str, problems: list[str]) -> None:
    where = fields.get("dm_policy", fields.get("group_policy", Item(None, decl.where))).where
    opens = decl.dm_policy == "open" or decl.group_policy == "open"
    if opens and not decl.allow_all and "allow_all" not in fields:
        problems.append(f"{where}: {at}: an open policy lets ANYONE who can reach the bot use the agent; say so "
                        "with `allow_all: true` beside it (it is never implied)")
    elif opens and not decl.allow_all:
        problems.append(f"{fields['allow_all'].where}: {at}.allow_all: false contradicts an open policy; choose "
                        "pairing or allowlist, or write `allow_all: true`")
    elif decl.allow_all and not opens:
        problems.append(f"{fields['allow_all'].where}: {at}.allow_all: true opens the platform to everyone; it "
                        "goes only with `dm_policy: open` (or `group_policy: open`), spelled out")
    if decl.group_policy == "allowlist" and not decl.group_chats and "group_chats" not in fields:
        problems.append(f"{fields['group_policy'].where}: {at}.group_policy: allowlist needs `group_chats:` with at "
                        "least one group chat ID (a group allowlist of no chat answers no group)")
    elif decl.group_policy != "allowlist" and "group_chats" in fields:
        problems.append(f"{fields['group_chats'].where}: {at}.group_chats: group chats are listed only with "
                        "`group_policy: allowlist`")
    if decl.dm_policy == "allowlist" and not decl.allowed_users:
        problems.append(f"{where}: {at}.dm_policy: allowlist needs `allowed_users:` with at least one ID (an "
                        "allowlist of nobody is pairing)")
    if decl.dm_policy == "open" and decl.allowed_users:
        problems.append(f"{fields['allowed_users'].where}: {at}.allowed_users: an open policy lets everyone in, so "
                        "a list of users means nothing; remove it, or choose allowlist")


def _env(name: str, spec: Spec, item: Item, environ: Mapping[str, str], problems: list[str]
         ) -> tuple[dict[str, str], dict[str, str]]:
    """The credentials `item` (a platform's `env:`) gives: (KEY → value, KEY → the variable read for it)."""
    at = f"platforms.{name}.env"
    values: dict[str, str] = {}
    from_env: dict[str, str] = {}
    if not isinstance(item.value, dict):
        problems.append(f"{item.where}: {at}: expected a mapping of KEY: value, got {item.kind()}")
        return values, from_env
    known = [key for key in spec.credentials if key != "WHATSAPP_ENABLED"]
    for key, value in item.value.items():
        if key not in known:
            owned = "use `enabled:`" if key == "WHATSAPP_ENABLED" else (
                "use dm_policy, group_policy, allowed_users or allow_all" if _access_env(spec, key) else
                f"expected one of: {', '.join(known) or 'none (this platform takes no credentials)'}")
            problems.append(f"{value.where}: {at}: {key!r} is not a setting this file may give {spec.label}; {owned}")
            continue
        if isinstance(value.value, dict):
            source = value.value.get("from_env")
            if set(value.value) != {"from_env"} or source is None or not isinstance(source.value, str) \
                    or not _ENV_NAME.fullmatch(source.value):
                problems.append(f"{value.where}: {at}.{key}: expected {{from_env: VARIABLE_NAME}}")
                continue
            if not names_credential(source.value, key):
                problems.append(f"{source.where}: {at}.{key}: from_env {source.value} is not a variable for {key}; "
                                f"name {key} itself or a variable ending in _{key} (e.g. PROD_{key}): an answers "
                                "file reads only variables it declares for a platform's credentials, never another "
                                "of the caller's (such as AWS_SECRET_ACCESS_KEY)")
                continue
            resolved = environ.get(source.value, "")
            if not resolved:
                problems.append(f"{source.where}: {at}.{key}: from_env {source.value} is not set in this "
                                "environment (export it before running)")
                continue
            from_env[key] = source.value
        elif isinstance(value.value, str):  # a Number too: an ID such as QQ_APP_ID written bare
            if is_secret_name(key):
                problems.append(f"{value.where}: {at}.{key}: a secret is never written in an answers file; write "
                                f"{{from_env: {key}}} and export {key} when applying")
                continue
            resolved = str(value.value)
        else:
            problems.append(f"{value.where}: {at}.{key}: expected a string or {{from_env: NAME}}, got {value.kind()}")
            continue
        wrong = credential_error(key, resolved)
        if wrong:  # never the value itself in the message: it may be a secret
            problems.append(f"{value.where}: {at}.{key}: the value does not look right: {wrong}")
            continue
        values[key] = resolved
    return values, from_env


def names_credential(variable: str, key: str) -> bool:
    """Whether `variable` may be read for the credential `key`: the key itself, or a name ending in
    `_KEY` (PROD_TELEGRAM_BOT_TOKEN).  The name says what the value is for, so a file (or a flag) can
    never have root's AWS_SECRET_ACCESS_KEY written into a home as someone's bot token."""
    return variable == key or variable.endswith(f"_{key}")


def _access_env(spec: Spec, key: str) -> bool:
    names = {spec.allowlist_env, spec.allow_all_env, spec.adapter_allowlist_env}
    if spec.gate:
        names |= {spec.gate.dm_env, spec.gate.group_env}
    return key in names


def _bool(item: Item, at: str, problems: list[str]) -> bool:
    if isinstance(item.value, bool):
        return item.value
    problems.append(f"{item.where}: {at}: expected true or false, got {item.kind()}")
    return False


def _choice(item: Item | None, at: str, choices: tuple[str, ...], problems: list[str]) -> str | None:
    if item is None:
        return None
    if isinstance(item.value, str) and not isinstance(item.value, Number) and item.value in choices:
        return item.value
    got = repr(item.value) if isinstance(item.value, str) else item.kind()
    problems.append(f"{item.where}: {at}: expected one of {', '.join(choices)}, got {got}")
    return None


def _ids(item: Item, at: str, problems: list[str]) -> list[str]:
    if not isinstance(item.value, list):
        problems.append(f"{item.where}: {at}: expected a list of IDs such as [\"123456789\"], got {item.kind()}")
        return []
    ids = []
    for entry in item.value:
        text = entry.value if isinstance(entry.value, str) else None
        if text is None or not text.strip() or text != text.strip() or "," in text or "\n" in text:
            problems.append(f"{entry.where}: {at}: each ID is one non-empty string without spaces or commas, got "
                            f"{entry.kind() if text is None else repr(text)}")
        elif text == "*":
            problems.append(f"{entry.where}: {at}: '*' lets everyone in; that is an open policy (dm_policy: open "
                            "with allow_all: true), not an allowlist")
        else:
            ids.append(text)
    return ids


def _chats(spec: Spec, item: Item, at: str, problems: list[str]) -> list[str]:
    """The group chat IDs `item` lists (at least one; each one entry of the adapter's comma-separated list)."""
    if not isinstance(item.value, list) or not item.value:
        problems.append(f"{item.where}: {at}: expected a list of at least one group chat ID such as "
                        f"[\"{spec.group_chat_hint.rsplit(' ', 1)[-1] or 'CHAT_ID'}\"], got {item.kind()}")
        return []
    chats = []
    for entry in item.value:
        if not isinstance(entry.value, str):  # a Number is a str, kept as written
            problems.append(f"{entry.where}: {at}: each group chat ID is a string, got {entry.kind()}")
        elif wrong := chat_problems(spec, [entry.value]):
            problems.append(f"{entry.where}: {at}: {wrong[0]}")
        else:
            chats.append(str(entry.value))
    return chats


def _closest(word: str, choices: Iterable[str]) -> str:
    match = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean {match[0]}?" if match else ""
