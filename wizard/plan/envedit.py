"""Edit `.env` text in place, keeping every byte that is not being changed.

The file is split into python-dotenv's own bindings (their concatenation is the
whole text), so comments, blank lines, order, `export ` prefixes, spacing around
`=`, inline comments, CRLF line ends, a BOM and unknown keys all survive.  Only the
value token of an edited assignment is rewritten.

Values are written so that python-dotenv (as Hermes reads it) and a shell's
`set -a; . ./.env` both read back exactly the value written: bare when that is
unambiguous, else in single quotes, else in double quotes.  Values no encoding can
carry for both readers raise `UnwritableValue`: newline, carriage return, NUL; a
value ending in a backslash unless it fits bare; and a single quote or a double
backslash together with a shell expansion (`$name`, `${…}`, a backtick).

Contract: pure text → text; the caller (apply) does all I/O.
"""

from __future__ import annotations

import io
import re

from hermes_wizard.core.dotenv_parts import parse_stream
from hermes_wizard.core.values import Value, value_class
from hermes_wizard.hermes.loader.envfile import _glued_segments
from hermes_wizard.hermes.models import model_for

DISABLED_MARKER = "#hermes-wizard-off: "
_BARE_SAFE = re.compile(r"[A-Za-z0-9_@%+=:,./-]*")
_SHELL_EXPANDS_AFTER_DOLLAR = re.compile(r"\$([A-Za-z0-9_{([@*#?$!-])")
_DOTENV_VARIABLE = re.compile(r"\$\{[^}:]*(?::-[^}]*)?\}")
_HEAD = re.compile(r"(?P<ws>\s*)(?P<export>(?:export[^\S\r\n]+)?)(?P<key>'[^']+'|[^=#\s]+)"
                   r"(?P<eq>[^\S\r\n]*=[^\S\r\n]*)")


class UnwritableValue(ValueError):
    """A value that cannot be written so every reader sees the same thing."""


@value_class
class EnvEdit(Value):
    """Set `key` to `value`; `value=None` comments the assignment out (reversibly)."""

    key: str
    value: str | None
    restore: bool = False  # True: uncomment a line this tool disabled
    remove: bool = False  # True: delete every assignment of `key`, and this tool's disabled copies of it


def quote_value(value: str, prefer: str = "") -> str:
    """The value as it must appear after `KEY=`; `prefer` ("'" or '"') keeps an
    existing quoting style when it is safe for this value."""
    if any(ch in value for ch in "\n\r\x00"):
        raise UnwritableValue("values cannot contain a newline, carriage return or NUL character")
    in_single_ok = ("'" not in value and not value.endswith("\\") and "\\\\" not in value
                    and not _DOTENV_VARIABLE.search(value))
    # python-dotenv 1.2.2 reads `\"` as an escaped quote even after an escaped backslash, so
    # neither quoting may end with a backslash.
    in_double_ok = ("`" not in value and not _SHELL_EXPANDS_AFTER_DOLLAR.search(value)
                    and not _DOTENV_VARIABLE.search(value) and not value.endswith("\\"))
    single = f"'{value}'"
    double = '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if prefer == "'" and in_single_ok:
        return single
    if prefer == '"' and in_double_ok:
        return double
    if _BARE_SAFE.fullmatch(value):
        return value
    if in_single_ok:
        return single
    if in_double_ok:
        return double
    raise UnwritableValue("this value mixes a single quote, backslashes or a trailing backslash with `$`, `${…}` "
                          "or a backtick; no quoting reads back the same in python-dotenv and in a shell")


def _split_bindings(text: str) -> list[tuple[str | None, str]]:
    """(key, original text) for every binding; joined, the texts are `text` again."""
    return [(b.key if not b.error else None, b.original.string) for b in parse_stream(io.StringIO(text))]


def _newline_of(text: str) -> str:
    return "\r\n" if text.count("\r\n") * 2 > text.count("\n") else "\n"


def _replace_value(original: str, new_value: str) -> str:
    """Swap the value token of one binding's text; keep prefix, comment and line end."""
    head = _HEAD.match(original)
    if head is None:
        raise ValueError(f"cannot locate the value in {original!r}")
    rest = original[head.end():]
    body, ending = _strip_line_end(rest)
    quote = body[0] if body.startswith(("'", '"')) else ""
    if quote:
        pattern = r"'((?:\\'|[^'])*)'" if quote == "'" else r'"((?:\\"|[^"])*)"'
        token = re.match(pattern, body, re.S)
        tail = body[token.end():] if token else ""
    else:
        comment = re.search(r"\s+#", body)
        tail = body[comment.start():] if comment else body[len(body.rstrip()):]
    rendered = quote_value(new_value, quote)
    if not rendered and tail.strip():  # python-dotenv reads `KEY= # note` as "# note"
        rendered = "''"
    return original[:head.end()] + rendered + tail + ending


def _strip_line_end(text: str) -> tuple[str, str]:
    for ending in ("\r\n", "\n", "\r"):
        if text.endswith(ending):
            return text[: -len(ending)], ending
    return text, ""


def apply_edits(text: str, edits: list[EnvEdit], known: frozenset[str] | None = None) -> str:
    """Return `text` with `edits` applied.  Setting a key that appears several times
    changes the last one (the one python-dotenv keeps).  A "glued" line holding an
    edited key (`A=1B_TOKEN=x`, which Hermes splits at start-up) is first split the
    same way (over the judged Hermes's `known` names), so editing one assignment never swallows the other."""
    bindings = _split_bindings(_unglue(text, {edit.key for edit in edits}, known))
    for edit in edits:
        if edit.restore:
            bindings = _restore(bindings, edit.key)
            continue
        if edit.remove:
            bindings = [(key, original) for key, original in bindings
                        if key != edit.key and not _disabled_copy(original, edit.key)]
            continue
        positions = [i for i, (key, _) in enumerate(bindings) if key == edit.key]
        if edit.value is None:
            for i in positions:
                key, original = bindings[i]
                lead = original[: len(original) - len(original.lstrip())]
                bindings[i] = (None, lead + DISABLED_MARKER + original[len(lead):])
            continue
        if positions:
            key, original = bindings[positions[-1]]
            bindings[positions[-1]] = (key, _replace_value(original, edit.value))
        else:
            joined = "".join(original for _, original in bindings)
            newline = _newline_of(joined)
            prefix = "" if not joined or joined.endswith(("\n", "\r")) else newline
            bindings.append((edit.key, f"{prefix}{edit.key}={quote_value(edit.value)}{newline}"))
    return "".join(original for _, original in bindings)


def _unglue(text: str, keys: set[str], known: frozenset[str] | None) -> str:
    known = known if known is not None else model_for(None).env_keys()

    out: list[str] = []
    for line in text.splitlines(keepends=True):
        body, ending = _strip_line_end(line)
        stripped = body.strip()
        if stripped.count("=") >= 2 and not stripped.startswith("#"):
            segments = _glued_segments(stripped, known)
            if len(segments) > 1 and any(seg.split("=", 1)[0] in keys for seg in segments):
                out.extend(segment.strip() + (ending or "\n") for segment in segments)
                continue
        out.append(line)
    return "".join(out)


def _restore(bindings: list[tuple[str | None, str]], key: str) -> list[tuple[str | None, str]]:
    out = []
    for bound, original in bindings:
        stripped = original.lstrip()
        if bound is None and stripped.startswith(DISABLED_MARKER + key + "=") or (
                bound is None and stripped.startswith(DISABLED_MARKER + "export ") and f" {key}=" in stripped):
            lead = original[: len(original) - len(stripped)]
            original = lead + stripped[len(DISABLED_MARKER):]
            bound = key
        out.append((bound, original))
    return out


def _disabled_copy(original: str, key: str) -> bool:
    stripped = original.lstrip()
    if not stripped.startswith(DISABLED_MARKER):
        return False
    body = stripped[len(DISABLED_MARKER):]
    body = body[len("export "):] if body.startswith("export ") else body
    return body.split("=", 1)[0].strip() == key


def disabled_keys(text: str) -> list[str]:
    """Keys this tool commented out in `text` (for undo and for the UI)."""
    found = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(DISABLED_MARKER):
            body = stripped[len(DISABLED_MARKER):]
            body = body[len("export "):] if body.startswith("export ") else body
            found.append(body.split("=", 1)[0].strip())
    return found
