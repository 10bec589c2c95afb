"""Secrets masked by what the parsers see, not by the first key of a line.

A line can define a secret without starting with its name: `'WEIXIN_TOKEN'=…`,
`export X_TOKEN=…`, a glued `WEIXIN_DM_POLICY=openDISCORD_BOT_TOKEN=…`, a flow
mapping `weixin: {token: …}`, an anchor `t: &tok …` used as `token: *tok`, a
quoted value spanning lines.  So:

* `.env` text is parsed as python-dotenv does (the project's own reader, whose
  sanitizer splits glued lines); every line a secret binding spans is masked,
  and so is any line naming a secret-looking `NAME=` anywhere (comments too).
* YAML text is composed (aliases stay shared nodes, never expanded); every
  scalar under a secret-looking key, at any depth, is masked at the exact
  columns the parser read it from, and a secret-looking `name:` anywhere on a
  line masks the rest of it (the fallback when the file does not parse).
* `secret_values` collects the secret values themselves; `scrub` masks them
  wherever else they occur (another line, a message, a glued policy value).

Secret is what Hermes reads as a credential, not only what is named like one:
a secret-looking name, a credential of Hermes's catalog whose name does not
say so (catalog.SECRET_VALUED: a service account's JSON, a webhook's client
state), and any value holding a URL with a password (`https://u:pw@host`, as
MATTERMOST_URL or SIGNAL_HTTP_URL may).  An inline JSON's `private_key` and a
URL's password are also scrubbed on their own (`secret_parts`).

When in doubt this masks: a false mask is cheap, a leak is not.
"""

from __future__ import annotations

import bisect
import io
import json
import re
from typing import TYPE_CHECKING, Any

import yaml

from hermes_wizard.core.dotenv_parts import parse_stream
from hermes_wizard.core.safetext import MASK as MASK  # re-exported: the plan and faces mask with it
from hermes_wizard.core.safetext import scrub as scrub  # re-exported
from hermes_wizard.hermes.loader.catalog import SECRET_VALUED
from hermes_wizard.hermes.loader.envfile import _glued_segments
from hermes_wizard.hermes.models import model_for

if TYPE_CHECKING:
    from collections.abc import Callable, Collection

    import yaml

    from hermes_wizard.hermes.loader.inputs import Snapshot

_SECRET_NAME = re.compile(r"(TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|_KEY|PRIVATE|CREDENTIAL|COOKIE)", re.I)
_ENV_NAME = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_.]*)['\"]?\s*=")
# Only for a config.yaml that does not parse: compiled on first use (re's cache), not on every check's path.
_YAML_NAME = r"(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_-]*)['\"]?\s*:(?=\s|$)"
LINE_BREAK = re.compile(r"\r\n|\r|\n")
# `scheme://user:password@`: the password group; a value holding one is a credential whatever its name.
_URL_PASSWORD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#\s@:'\"]*:([^/?#\s@'\"]+)@")
# Anything that may make a text hold a secret (the quick test before parsing it): a secret-looking word, a word of
# every name in SECRET_VALUED (tests/unit/test_output_safety.py keeps each name matched), a URL password.  Short:
# an alternation of every name costs more to compile than a check spends masking.
_MAYBE_SECRET = re.compile("|".join((_SECRET_NAME.pattern, "WEBHOOK|CLIENT_STATE|SERVICE_ACCOUNT|TOPIC",
                                     _URL_PASSWORD.pattern)), re.I)


def is_secret_name(name: str) -> bool:
    upper = name.upper()
    return ((bool(_SECRET_NAME.search(name)) or upper in SECRET_VALUED)
            and not upper.endswith(("_ALLOWED_USERS", "_POLICY")))


def has_url_password(value: str) -> bool:
    return "://" in value and _URL_PASSWORD.search(value) is not None


def secret_parts(value: str) -> set[str]:
    """`value` and the pieces of it that are secrets on their own: each URL's password, and the secret-named
    string fields (`private_key`, `private_key_id`) of an inline JSON such as a service account's."""
    parts = {value} | {match.group(1) for match in _URL_PASSWORD.finditer(value)}
    if value.lstrip().startswith("{") and "private" in value.lower():
        try:
            data = json.loads(value)
        except (ValueError, RecursionError):
            data = None
        if isinstance(data, dict):
            parts |= {v for k, v in data.items() if isinstance(v, str) and is_secret_name(str(k))}
    return {part for part in parts if part.strip()}


def split_lines(text: str) -> list[str]:
    """Lines as parsers count them (only CR/LF break a line; U+2028 or FF do not)."""
    lines = LINE_BREAK.split(text)
    return lines[:-1] if lines and lines[-1] == "" else lines


# ---- .env -------------------------------------------------------------------------------------------------

def _names_on(text: str) -> set[str]:
    return {m.group(1) for m in _ENV_NAME.finditer(text)}


def env_masks(text: str, secret_keys: Collection[str] = ()) -> tuple[dict[int, int], set[str]]:
    """({line index: column from which to mask}, secret values) for a `.env` text.

    A secret binding's first line is masked after its first `=`, the lines its
    quoted value continues on entirely; so is any line naming a secret `NAME=`."""
    if not secret_keys and not _MAYBE_SECRET.search(text):
        # Every name judged below is a piece of `text`: with no secret-looking piece anywhere there is
        # nothing to mask, and the dotenv parse (most of a check's masking time) is skipped.
        return {}, set()
    secret: Callable[[str], bool] = lambda name: name in secret_keys or is_secret_name(name)
    keys = model_for(None).env_keys()  # glued lines split as the newest Hermes does: the widest mask
    lines = split_lines(text)
    spans: dict[int, int | None] = {}  # None: mask from the line's first `=`
    values: set[str] = set()
    # Line starts as the lines are shown: python-dotenv's own `original.line` drifts by one after
    # a binding that ends between the CR and the LF of a CRLF (an error line such as `=x\r\n`).
    starts = [0] + [m.end() for m in LINE_BREAK.finditer(text)]
    offset = 0
    for binding in parse_stream(io.StringIO(text)):
        raw = binding.original.string
        at, offset = offset, offset + len(raw)
        body = raw.strip()
        segments = _glued_segments(body, keys) if body.count("=") >= 2 else [body]
        names = _names_on(body) | {seg.split("=", 1)[0].strip() for seg in segments if "=" in seg}
        if binding.key is not None:
            names.add(binding.key)
        if not (any(secret(name) for name in names) or has_url_password(body)):
            continue
        first = bisect.bisect_right(starts, at + len(raw) - len(raw.lstrip())) - 1
        spans[first] = None  # from the first `=` (below)
        for line_after in range(1, len(LINE_BREAK.findall(body)) + 1):
            spans[first + line_after] = 0
        if binding.value and binding.key is not None:
            values |= secret_parts(binding.value)
        for segment in segments:
            name, _, value = segment.partition("=")
            if secret(name.strip()) and value.strip():
                values.add(value.strip().strip("'\""))
        for match in _ENV_NAME.finditer(body):  # `NAME=value` inside a value Hermes did not split
            rest = body[match.end():].split(None, 1)
            if secret(match.group(1)) and rest:
                values.add(rest[0].strip("'\""))
    masks: dict[int, int] = {}
    for index, line in enumerate(lines):  # comments and whatever the parse did not bind
        if spans.get(index) == 0:
            masks[index] = 0
        elif index in spans or any(secret(name) for name in _names_on(line)) or has_url_password(line):
            masks[index] = line.find("=") + 1  # 0 (the whole line) when there is no `=`
    return masks, {v for v in values if v.strip()}


# ---- YAML -------------------------------------------------------------------------------------------------

def yaml_masks(text: str) -> tuple[dict[int, list[tuple[int, int]]], set[str]]:
    """({line index: [(start, end) columns to mask]}, secret scalars) for a YAML text."""
    spans: dict[int, list[tuple[int, int]]] = {}
    lines = split_lines(text)
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except (yaml.YAMLError, RecursionError, ValueError, TypeError):
        for index, line in enumerate(lines):  # no structure to go by: the rest of the line after a secret name
            for match in re.finditer(_YAML_NAME, line):
                if is_secret_name(match.group(1)) and line[match.end():].strip():
                    spans.setdefault(index, []).append((match.end() + 1, len(line)))
                    break
        return spans, set()
    values: set[str] = set()
    for node in secret_scalars(root):
        values |= secret_parts(str(node.value))
        start, end = node.start_mark, node.end_mark
        for row in range(start.line, end.line + 1):
            left = start.column if row == start.line else 0
            right = end.column if row == end.line else len(lines[row]) if row < len(lines) else 0
            spans.setdefault(row, []).append((left, max(left, right)))
    return spans, {v for v in values if v.strip()}


def secret_scalars(root: yaml.Node | None) -> list[yaml.ScalarNode]:
    """Every scalar node under a secret-looking key, at any depth (shared nodes visited once).

    Collections are walked from a stack; a scalar child is judged on the spot rather than pushed, and each
    key name is judged once per call: a config.yaml with 100k platform keys holds 500k scalars."""
    if isinstance(root, yaml.ScalarNode):
        return [root] if has_url_password(str(root.value)) else []
    found: list[yaml.ScalarNode] = []
    seen: set[tuple[int, bool]] = set()  # (collection, under a secret key): each walked once
    named_secret: dict[str, bool] = {}  # key name -> is_secret_name(name)
    stack: list[tuple[Any, bool, tuple[str, ...]]] = [(root, False, ())]
    while stack:
        node, under_secret, path = stack.pop()
        if node is None or (id(node), under_secret) in seen:
            continue
        seen.add((id(node), under_secret))
        if isinstance(node, yaml.SequenceNode):
            for child in node.value:
                if not isinstance(child, yaml.ScalarNode):
                    stack.append((child, under_secret, path))
                elif under_secret or ("://" in (text := str(child.value)) and has_url_password(text)):
                    found.append(child)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.__class__ is yaml.ScalarNode:
                    name = str(key.value)
                    if "://" in name and has_url_password(name):  # a key is a name, not a value: masked only
                        found.append(key)  # where it holds a URL's password
                else:
                    name = ""
                    stack.append((key, False, path))
                secret = named_secret.get(name)
                if secret is None:
                    secret = named_secret[name] = is_secret_name(name)
                # `secrets:` and its sources' names (`wizard_keyring`) configure secret sources; our keyring source's
                # `env` maps variable names to entry names — references, never the secrets themselves.
                flag = under_secret or (secret and not ((path[0] if path else name) == "secrets" and len(path) <= 1)
                                        and path != _KEYRING_REFS)
                if value.__class__ is not yaml.ScalarNode:
                    stack.append((value, flag, path if len(path) == 3 else (*path, name)))
                elif flag or ("://" in (text := str(value.value)) and has_url_password(text)):
                    found.append(value)
    return list(dict.fromkeys(found))  # a shared scalar reached from several collections, once


_KEYRING_REFS = ("secrets", "wizard_keyring", "env")


# ---- values anywhere --------------------------------------------------------------------------------------

def secret_values(snapshot: Snapshot) -> set[str]:
    """The secret values a snapshot holds (.env files, config.yaml, the OS keyring), for `scrub`."""
    values: set[str] = set()
    for env in (snapshot.env, getattr(snapshot, "op_env", None), getattr(snapshot, "managed_env", None)):
        for entry in (getattr(env, "entries", None) or {}).values():
            _, found = env_masks(entry.raw)
            values |= found
        for key, value in (getattr(env, "values", None) or {}).items():
            if value and (is_secret_name(key) or has_url_password(value)):
                values |= secret_parts(value)
    root = getattr(snapshot.yaml, "_root", None)
    for node in secret_scalars(root):
        values |= secret_parts(str(node.value))
    kept = getattr(snapshot, "keyring", None)  # whatever the OS keyring gave is secret, whatever its name
    if kept is not None:
        values.update(value for value in kept.values.values() if value)
    return values
