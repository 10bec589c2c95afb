"""Plan: the one description of what a repair will change, shared by every face.

A Plan is a pure value: the home, the fingerprints of the files as they were read,
and a tuple of Changes.  `planned_contents` renders the new file contents in
memory (through the `.env` and YAML writers); `render_diff` shows them as a
per-file unified diff with secret values masked.  Only `hermes_wizard.write.apply` writes.
"""

from __future__ import annotations

import codecs
import difflib
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.core.frozenmap import FrozenMap
from hermes_wizard.core.homefs import ApplyError, fingerprint_in, read_in_home
from hermes_wizard.core.safetext import visible
from hermes_wizard.core.values import Value, value_class
from hermes_wizard.hermes.loader.envfile import read_env_file
from hermes_wizard.hermes.models import model_for
from hermes_wizard.judge.masking import MASK as MASK  # re-exported: faces import both from here
from hermes_wizard.judge.masking import env_masks, split_lines, yaml_masks
from hermes_wizard.judge.masking import is_secret_name as is_secret_name
from hermes_wizard.judge.masking import scrub as scrub  # re-exported
from hermes_wizard.plan.actions import ChangeAction
from hermes_wizard.plan.envedit import EnvEdit, apply_edits
from hermes_wizard.plan.jsonedit import JsonEditError, remove_key, replace_value
from hermes_wizard.plan.yamledit import append_value, remove_value, set_value

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from hermes_wizard.hermes.model import Model
    from hermes_wizard.plan.keyring_steps import KeyringStep
    from hermes_wizard.plan.service_steps import ServiceStep

ENV, YAML, GATEWAY_JSON = ".env", "config.yaml", "gateway.json"


@value_class
class Change(Value):
    """One edit.  `key` is an env name for `.env`, a dotted YAML path for config.yaml.

    `action`: a `ChangeAction` (wizard/core/kinds.py): set `after`, disable (comment an env line
    out, reversibly), restore (undo such a comment), or mode (`after` is an octal file mode).
    """

    file: str
    key: str
    before: str | None
    after: str | None
    action: ChangeAction = ChangeAction.SET
    platform: str | None = None
    reason: str = ""
    secret: bool = False

    def __repr__(self) -> str:  # a secret's values never reach a log, a traceback or a test report
        shown = (MASK, MASK) if self.secret else (self.before, self.after)
        return (f"Change({self.file!r}, {self.key!r}, {shown[0]!r} -> {shown[1]!r}, {self.action.value}, "
                f"platform={self.platform!r}, reason={self.reason!r})")


@value_class
class Plan(Value):
    """`changes` edit the home's files; `service` (wizard/plan/service_steps.py) act on the units
    that run it — both previewed alike, applied by hermes_wizard.write.apply, recorded in the backup set."""

    home: Path
    # file -> sha256 of what was read (None: absent); given as any mapping, kept as a FrozenMap
    fingerprints: Mapping[str, str | None] = field(default_factory=FrozenMap)
    changes: tuple[Change, ...] = ()
    service: tuple[ServiceStep, ...] = ()
    keyring: tuple[KeyringStep, ...] = ()  # OS keyring entries stored or deleted (wizard/plan/keyring_steps.py)

    def __post_init__(self) -> None:
        if not isinstance(self.fingerprints, FrozenMap):  # a caller's dict never stays shared with the plan
            object.__setattr__(self, "fingerprints", FrozenMap(self.fingerprints))

    def __bool__(self) -> bool:
        return bool(self.changes or self.service or self.keyring)

    def with_service(self, steps: Iterable[ServiceStep]) -> Plan:
        return Plan(self.home, self.fingerprints, self.changes, tuple(steps), self.keyring)

    def with_keyring(self, steps: Iterable[KeyringStep]) -> Plan:
        return Plan(self.home, self.fingerprints, self.changes, self.service, tuple(steps))

    def without_changes(self) -> Plan:
        """The service steps alone (doctor --install-gate without --fix: the files are only shown)."""
        return Plan(self.home, self.fingerprints, (), self.service)

    @classmethod
    def of(cls, home: Path, changes: Iterable[Change]) -> Plan:
        """A plan for `home` as its files are now; one Change per key (the last
        one's value, the first one's `before`)."""
        merged: dict[tuple[str, str], Change] = {}
        for change in changes:
            first = merged.get((change.file, change.key))
            merged[(change.file, change.key)] = change if first is None else Change(
                change.file, change.key, first.before, change.after, change.action, change.platform, change.reason,
                change.secret)
        names = (ENV, YAML) + ((GATEWAY_JSON,) if any(c.file == GATEWAY_JSON for c in merged.values()) else ())
        return cls(home, {name: fingerprint(home / name) for name in names}, tuple(merged.values()))

    def files(self) -> list[str]:
        return sorted({change.file for change in self.changes})


def plan_files(plan: Plan) -> tuple[str, ...]:
    """The files a plan reads and may write: .env and config.yaml always, gateway.json when it edits it."""
    return tuple(dict.fromkeys((ENV, YAML, *plan.fingerprints)))


def fingerprint(path: Path) -> str | None:
    """sha256 of the file as the writer will see it (None: absent); never blocks or raises."""
    return fingerprint_in(path)


def read_bytes(path: Path) -> bytes | None:
    """The file's bytes through the guarded reader (hermes_wizard.core.homefs): ApplyError for a FIFO,
    a device, a directory, a link loop or a huge file, never a hang."""
    return read_in_home(path)


def planned_modes(plan: Plan) -> dict[str, int]:
    """The permission bits the plan sets, per file (its MODE changes: ".env" -> 0o600)."""
    return {c.file: int(c.after, 8) for c in plan.changes if c.action == ChangeAction.MODE and c.after}


def planned_contents(plan: Plan, current: dict[str, bytes | None] | None = None,
                     model: Model | None = None) -> dict[str, bytes]:
    """The new bytes of every file whose content the plan changes (mode-only excluded); the new `.env`
    must read as planned by the Hermes `model` judges for (the newest modelled by default)."""
    current = current if current is not None else {name: read_bytes(plan.home / name) for name in (ENV, YAML)}
    model = model if model is not None else model_for(None)
    out: dict[str, bytes] = {}
    env_edits = planned_env_edits(plan)
    reencode = any(c.file == ENV and c.action == ChangeAction.REENCODE for c in plan.changes)
    if env_edits or reencode:
        raw = current.get(ENV) or b""
        text, encode = _utf32_text(raw) if reencode and _is_utf32(raw) else decode_env(raw)
        if reencode:
            encode = _utf8
        known = model.env_keys()  # how that Hermes splits a glued line
        out[ENV] = encode(apply_edits(text, env_edits, known) if env_edits else text)
        if problem := env_misreads(out[ENV], env_edits, model):
            raise UnwritableFile(f".env: {problem}; nothing is written this way")
    yaml_changes = [c for c in plan.changes if c.file == YAML]
    if yaml_changes:
        text = (current.get(YAML) or b"").decode("utf-8")
        for change in yaml_changes:
            path = tuple(change.key.split("."))
            if change.action == ChangeAction.APPEND:
                text = append_value(text, path, change.after)
            elif change.action == ChangeAction.REMOVE:  # a value Hermes crashes on (repairs.py)
                text = remove_value(text, path)
            else:
                text = set_value(text, path, _yaml_value(change.after))
        out[YAML] = text.encode("utf-8")
    json_changes = [c for c in plan.changes if c.file == GATEWAY_JSON]
    if json_changes:  # legacy gateway.json: values Hermes crashes on removed, open policies closed (repairs.py)
        try:
            data = current[GATEWAY_JSON] if GATEWAY_JSON in current else read_bytes(plan.home / GATEWAY_JSON)
        except ApplyError as exc:  # a link to someone else's file, a FIFO: never edited
            raise UnwritableFile(f"gateway.json cannot be edited ({exc})") from None
        try:
            for change in json_changes:
                path = tuple(change.key.split("."))
                data = (remove_key(data, path) if change.action == ChangeAction.REMOVE
                        else replace_value(data, path, change.after or ""))
        except JsonEditError as exc:
            raise UnwritableFile(str(exc)) from None
        if data is not None:
            out[GATEWAY_JSON] = data
    return out


def _shown_text(name: str, raw: bytes) -> str:
    """A file's text for the diff: `.env` decoded in its own encoding (a UTF-16 one is not shown as NULs)."""
    if name == ENV:
        try:
            return (_utf32_text(raw) if _is_utf32(raw) else decode_env(raw))[0]
        except UnwritableFile:
            pass
    return raw.decode("utf-8", "replace")


def planned_env_edits(plan: Plan) -> list[EnvEdit]:
    return [_env_edit(c) for c in plan.changes
            if c.file == ENV and c.action not in (ChangeAction.MODE, ChangeAction.REENCODE)]


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _is_utf32(raw: bytes) -> bool:
    return raw.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE))


def _utf32_text(raw: bytes) -> tuple[str, Callable[[str], bytes]]:
    """A UTF-32 `.env`'s text, for converting it to UTF-8 only (no Hermes reads UTF-32 as written)."""
    try:
        return raw.decode("utf-32"), _utf8
    except UnicodeDecodeError:
        raise UnwritableFile(".env starts with a UTF-32 byte-order mark but is not valid UTF-32; convert it to UTF-8 "
                             "yourself") from None


class UnwritableFile(ValueError):
    """A file this tool cannot edit so that Hermes reads what was planned (the message says why)."""


def decode_env(raw: bytes) -> tuple[str, Callable[[str], bytes]]:
    """(text, encode) for editing `.env` in its own encoding, as Hermes 0.19 decodes it:
    UTF-16 with a BOM (its sanitizer converts it), UTF-8, else latin-1 (its fallback).
    UTF-32 and broken UTF-16 are refused: Hermes reads them as latin-1 garbage."""
    if raw.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        raise UnwritableFile(".env is UTF-32, which Hermes does not decode (it reads it as latin-1, so no key in "
                             "it is what it looks like); convert it first: iconv -f UTF-32 -t UTF-8 .env > .env.new "
                             "&& mv .env.new .env")
    for bom, codec in ((codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")):
        if raw.startswith(bom):
            try:
                text = raw[len(bom):].decode(codec)
            except UnicodeDecodeError:
                raise UnwritableFile(".env starts with a UTF-16 byte-order mark but is not valid UTF-16 (Hermes then "
                                     "reads it as latin-1); convert it to UTF-8 first") from None
            return text, lambda new, bom=bom, codec=codec: bom + new.encode(codec, "surrogatepass")
    try:
        return raw.decode("utf-8"), lambda new: new.encode("utf-8")
    except UnicodeDecodeError:
        pass

    def latin1(new: str) -> bytes:
        try:
            return new.encode("latin-1")
        except UnicodeEncodeError:
            raise UnwritableFile(".env is not UTF-8, so Hermes reads it as latin-1, which cannot hold the new value; "
                                 "convert it to UTF-8 first (iconv -f LATIN1 -t UTF-8)") from None
    return raw.decode("latin-1"), latin1


def env_misreads(data: bytes, edits: list[EnvEdit], model: Model | None = None) -> str | None:
    """Why `data`, read as the Hermes of `model` reads a `.env` (the shared reader asks the model how
    to decode it), does not hold what `edits` planned; None when every edited key reads as planned."""
    entries = read_env_file(Path(ENV), content=data, model=model if model is not None else model_for(None)).entries
    for edit in edits:
        entry = entries.get(edit.key)
        if edit.remove:
            if entry is not None:
                return f"{edit.key} would still be set after removing it"
        elif edit.restore or edit.value is None:
            if (entry is None) != (edit.value is None):
                return f"{edit.key} would {'still be set' if entry else 'not be read'} after the edit"
        elif entry is None or entry.value != edit.value:
            seen = "missing" if entry is None else repr(entry.value)
            return f"{edit.key} would read as {seen}, not as the planned value"
    return None


def _env_edit(change: Change) -> EnvEdit:
    if change.action == ChangeAction.DISABLE:
        return EnvEdit(change.key, None)
    if change.action == ChangeAction.RESTORE:
        return EnvEdit(change.key, "", restore=True)
    if change.action == ChangeAction.REMOVE:
        return EnvEdit(change.key, None, remove=True)
    return EnvEdit(change.key, change.after or "")


def _yaml_value(text: str | None) -> bool | str | None:
    """Changes carry text; YAML booleans are written as booleans."""
    booleans: dict[str | None, bool] = {"true": True, "false": False}
    return booleans.get(text, text)


def contents_diff(current: Mapping[str, bytes | None], new: Mapping[str, bytes | None],
                  secret_keys: frozenset[str] | set[str] = frozenset()) -> str:
    """Unified diff from `current` to `new` bytes of each file `new` names (None: absent), masked and
    escaped as `render_diff` shows a plan (undo's preview: the home now against a backup set)."""
    sides, secrets = {}, set()
    for name, after in sorted(new.items()):
        before_text, after_text = _shown_text(name, current.get(name) or b""), _shown_text(name, after or b"")
        before_lines, before_values = _masked_lines(name, before_text, set(secret_keys))
        after_lines, after_values = _masked_lines(name, after_text, set(secret_keys))
        sides[name] = (split_lines(before_text), before_lines), (split_lines(after_text), after_lines)
        secrets |= before_values | after_values
    shown: Callable[[list[str]], list[str]] = lambda lines: [visible(scrub(line, secrets)) for line in lines]
    return "".join(_file_diff(name, raw_before, shown(before), raw_after, shown(after))
                   for name, ((raw_before, before), (raw_after, after)) in sides.items())


def _file_diff(name: str, raw_before: list[str], before: list[str], raw_after: list[str], after: list[str]) -> str:
    """A unified diff (no context) of one file: lines are compared as they are and shown masked, so a changed
    secret is never hidden by its mask.  A removed and an added line that read the same once masked (a rotated
    token) are shown as one `~ NAME = (secret changed)` line."""
    matcher = difflib.SequenceMatcher(None, raw_before, raw_after, autojunk=False)
    out = []
    for group in matcher.get_grouped_opcodes(0):
        out.append(f"@@ -{_span(group[0][1], group[-1][2])} +{_span(group[0][3], group[-1][4])} @@\n")
        for _, a1, a2, b1, b2 in group:
            removed, added, changed = before[a1:a2], after[b1:b2], []
            for index in range(min(len(removed), len(added))):
                if removed[index] == added[index]:
                    changed.append(f"~ {_bound_name(removed[index])} = (secret changed)\n")
                    removed[index] = added[index] = ""
            out += changed + [f"-{line}\n" for line in removed if line] + [f"+{line}\n" for line in added if line]
    return f"--- {name}\n+++ {name}\n{''.join(out)}" if out else ""


def _span(start: int, stop: int) -> str:
    """A hunk's range as `diff -U0` writes it."""
    length = stop - start
    return f"{start + 1}" if length == 1 else f"{start if not length else start + 1},{length}"


def _bound_name(line: str) -> str:
    """The name a masked line binds (`KEY` of `export KEY=••••••`, `token` of `  token: ••••••`)."""
    head = line.split(MASK, 1)[0].strip().rstrip("=:").strip()
    head = head.removeprefix("export ").strip().strip("'\"")
    return head or "(a line of a secret value)"


def _masked_lines(name: str, text: str, secret_keys: set[str]) -> tuple[list[str], set[str]]:
    """The lines of one side of a diff with secrets masked where the parser reads them."""
    lines = split_lines(text)
    if name == ENV:
        columns, values = env_masks(text, secret_keys)
        spans = {index: [(column, len(lines[index]))] for index, column in columns.items() if index < len(lines)}
    else:
        spans, values = yaml_masks(text)
    for index, ranges in spans.items():
        if index >= len(lines):
            continue
        line = lines[index]
        for start, end in sorted(_merged(ranges), reverse=True):
            if line[start:end].strip():
                line = line[:start] + MASK + line[end:]
        lines[index] = line
    return lines, values


def _merged(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[list[int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(start, end) for start, end in merged]


def render_diff(plan: Plan, current: dict[str, bytes | None] | None = None) -> str:
    """Per-file unified diff of the plan: secrets masked on both sides (by what the
    parsers see, and every secret value wherever else it occurs), every line shown
    with control and bidi characters escaped (wizard/core/safetext.py)."""

    current = current if current is not None else {name: read_bytes(plan.home / name) for name in plan_files(plan)}
    chunks = [contents_diff(current, dict(planned_contents(plan, current)), {c.key for c in plan.changes if c.secret})]
    for change in plan.changes:
        if change.action == ChangeAction.REENCODE:
            chunks.append(f"--- {change.file} encoding {change.before}\n+++ {change.file} encoding {change.after}\n")
        if change.action == ChangeAction.MODE:
            chunks.append(f"--- {change.file} mode {change.before}\n+++ {change.file} mode {change.after}\n")
    return "".join(chunks)
