"""Read a Hermes `.env` exactly as Hermes 0.19 loads it, without ever writing it.

Hermes first "sanitizes" the file on disk (strips NULs, converts UTF-16 to UTF-8,
strips each line, rewrites the file if anything changed), then loads it with
python-dotenv (`override=True`, interpolation on, UTF-8 with a latin-1 fallback),
then strips non-ASCII characters from credential-looking variables.

`read_env_file` reproduces the *result* of that pipeline in memory and keeps, for
every key, the line it came from (provenance).  It also records what Hermes's
sanitizer would silently change on disk, so checks can say so.

Contract: never raises for file content; unreadable files yield `EnvFile.error`.
"""

from __future__ import annotations

import codecs
import functools
import io
import os
import stat
from dataclasses import field, replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from hermes_wizard.core.dotenv_parts import parse_stream, parse_variables
from hermes_wizard.core.smallfile import read_as_stated
from hermes_wizard.core.values import Value, value_class

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from dotenv.parser import Binding

    from hermes_wizard.hermes.model import Model

# Hermes refuses nothing by size, but a multi-megabyte .env is never intended.
MAX_ENV_BYTES = 4 * 1024 * 1024
# What this tool judges: its parse costs up to ~50 µs a line (glued names, `${VAR}` chains) and ~0.6 µs a
# byte (one long line of references), so these keep the pre-start gate well under a second on any .env
# (benchmarks/bench_inputs.py, "bound:" rows).  Beyond them the verdict is "cannot judge" (`beyond_bounds`),
# never a guess.  Hermes itself loads such a file, slowly: ~0.2 ms a line, twice, at every start.
JUDGED_ENV_BYTES = 1024 * 1024
JUDGED_ENV_LINES = 10_000
_EMPTY: Mapping[str, Any] = MappingProxyType({})  # the maps of a file not parsed (shared: nothing can change it)


def _no_map() -> Mapping[str, Any]:
    """The default of a map field (a dataclass takes no unhashable default, even a read-only one)."""
    return _EMPTY


# Suffixes whose values Hermes strips of non-ASCII after loading (env_loader.py:19).
_CREDENTIAL_SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET", "_KEY")


@value_class
class EnvEntry(Value):
    """One assignment as python-dotenv saw it (the last one wins for a key)."""

    key: str
    value: str | None  # None: a bare `KEY` line, which dotenv does not export
    line: int  # 1-based line number in the text dotenv parsed
    raw: str  # the original text of the assignment (may contain a secret)


@value_class
class EnvFile(Value):
    """The result of reading one `.env`.

    Frozen; its maps are read-only views (`MappingProxyType`) over dicts the reader built and let go of:
    wrapped once without a copy, and read at the speed of a dict, as the loader reads them key by key (a
    `.env` holds up to JUDGED_ENV_LINES).  So it compares as a value but does not hash (`Compared`)."""

    path: Path
    exists: bool = False
    error: str | None = None  # why the file could not be read at all
    blocks_start: str | None = None  # Hermes hangs or crashes on this file
    blocks_fix: str | None = None  # what ends that, when it is not "make it a regular file"
    beyond_bounds: str | None = None  # too big for this tool to judge (JUDGED_ENV_*): not parsed
    values: Mapping[str, str] = field(default_factory=_no_map)  # what reaches os.environ
    entries: Mapping[str, EnvEntry] = field(default_factory=_no_map)  # last binding per key
    duplicates: Mapping[str, tuple[int, ...]] = field(default_factory=_no_map)  # key -> all lines
    invalid_lines: tuple[int, ...] = ()  # lines dotenv could not parse
    encoding: str = "utf-8"
    bom_key: str | None = None  # first key glued to a UTF-8 BOM (Hermes ignores it)
    sanitizer_rewrites: bool = False  # Hermes would rewrite this file at startup
    stripped_credentials: tuple[str, ...] = ()
    simple_values: Mapping[str, str] = field(default_factory=_no_map)  # Hermes's get_env_value fallback parse
    mode: int | None = None
    uid: int | None = None
    size: int = 0

    def line_of(self, key: str) -> int | None:
        entry = self.entries.get(key)
        return entry.line if entry else None


def decode_like_hermes_019(raw: bytes, keys: frozenset[str]) -> tuple[str, str, bool]:
    """Hermes 0.19.0's sanitizer and load: (text dotenv parses, encoding label, does the sanitizer
    rewrite the file?).  `keys` are the known names that split glued lines."""
    if raw.startswith(codecs.BOM_UTF32_LE) or raw.startswith(codecs.BOM_UTF32_BE):
        # Hermes leaves UTF-32 untouched and then fails to decode it as UTF-8,
        # falling back to latin-1: every key becomes garbage.
        return text_as_opened(raw, "latin-1"), "utf-32", False
    if raw.startswith(codecs.BOM_UTF16_LE) or raw.startswith(codecs.BOM_UTF16_BE):
        try:
            lines = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-16", newline=None).readlines()
        except UnicodeDecodeError:
            return text_as_opened(raw, "latin-1"), "utf-16 (undecodable)", False
        return "".join(sanitize_lines(lines, keys)), "utf-16", True

    sanitized_from = io.TextIOWrapper(
        io.BytesIO(raw), encoding="utf-8-sig", errors="replace", newline=None
    ).readlines()
    if sanitized_from and sanitized_from[0].startswith("\ufffd"):
        rewrite = False
    else:
        cleaned = sanitize_lines(sanitized_from, keys)
        rewrite = cleaned != sanitized_from
        if rewrite:
            # Hermes persists the cleaned text (with U+FFFD for bad bytes) and
            # then loads that.
            return "".join(cleaned), "utf-8", True
    try:
        return text_as_opened(raw, "utf-8"), "utf-8", rewrite
    except UnicodeDecodeError:
        return text_as_opened(raw, "latin-1"), "latin-1", rewrite


def text_as_opened(raw: bytes, encoding: str) -> str:
    """Decode as `open(path, encoding=...)` does: universal newlines, BOM kept."""
    return io.TextIOWrapper(io.BytesIO(raw), encoding=encoding, newline=None).read()


def sanitize_lines(lines: list[str], keys: frozenset[str]) -> list[str]:
    """Hermes's line cleanup: NULs dropped, every line stripped, blank/comment kept.

    A line that starts with a known `KEY=` and holds more known `KEY=` needles is
    split into several lines, unless a value before a split looks structured (a URL,
    a query string, whitespace) — Hermes's repair of "glued" assignments.
    """
    out = []
    for line in lines:
        line = line.replace("\x00", "")
        raw = line.rstrip("\r\n")
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            out.append(raw + "\n")
        elif stripped.count("=") >= 2 and len(segments := _glued_segments(stripped, keys)) > 1:
            out.extend(segment.strip() + "\n" for segment in segments if segment.strip())
        else:
            out.append(stripped + "\n")
    return out


def key_starts(line: str, keys: frozenset[str]) -> list[int]:
    """Where the known `KEY=` needles start in `line`, dropping a needle inside a longer one (LM_API_KEY in
    GLM_API_KEY): the split points every modelled Hermes's sanitizer looks for.

    Hermes searches the line once per known name (~340) and then compares every pair of needles found; a line
    glued from thousands of names makes that hours of work, for Hermes too.  The same needles are the known
    names that end just before an `=` (a name holds no `=`, so no needle overlaps itself and the search misses
    none); and a needle lies inside another exactly when, in (start, longest first) order, an earlier needle
    reached at least as far: one sweep instead of every pair."""
    lengths = _key_lengths(keys)
    spans: list[tuple[int, int]] = []
    at = line.find("=")
    while at >= 0:
        spans.extend((at - size, at + 1) for size in lengths if size <= at and line[at - size:at] in keys)
        at = line.find("=", at + 1)
    starts: set[int] = set()
    reach = -1
    for start, end in sorted(spans, key=lambda span: (span[0], -span[1])):
        if end > reach:
            starts.add(start)
            reach = end
    return sorted(starts)


@functools.lru_cache(maxsize=8)
def _key_lengths(keys: frozenset[str]) -> tuple[int, ...]:
    return tuple(sorted({len(key) for key in keys}))


def _glued_segments(line: str, keys: frozenset[str]) -> list[str]:
    """How Hermes splits a glued line over its known `keys` (a model's `env_keys()`)."""
    starts = key_starts(line, keys)
    if len(starts) < 2 or starts[0] != 0:
        return [line]
    segments = [line[a:b] for a, b in zip(starts, starts[1:] + [len(line)])]
    structured = any(("://" in v or "?" in v or "&" in v or any(c.isspace() for c in v))
                     for v in (seg.split("=", 1)[1] for seg in segments[:-1]))
    return [line] if structured else segments


def read_env_file(path: Path, base_env: Mapping[str, str] | None = None, content: bytes | None = None,
                  *, model: Model, mode: int | None = None) -> EnvFile:
    """Read `path` the way Hermes's `load_hermes_dotenv` would load it.

    `base_env` is the process environment the gateway would start with; `${VAR}`
    references fall back to it (the file's own earlier values win, override=True).
    `content` stands in for the file's bytes (a planned, not yet written, version); `model` is
    the Hermes version whose loader decides (the caller's choice: `models.model_for(judgement)`).  A planned
    version has the mode and owner the writer leaves: `mode` (a planned chmod), else the file's own, else
    0600 for a new file (wizard/core/atomic.py); `mode` also stands in for the mode of the file read.
    """
    if content is not None:
        planned_mode, uid = _as_written(path, mode)
        return _parsed(path, content, base_env, model, (planned_mode, uid, len(content)))
    if mode is not None:  # a plan that only changes the mode: the file as it is, its mode as planned
        read = read_env_file(path, base_env, model=model)
        return replace(read, mode=mode) if read.mode is not None else read
    try:
        st = path.stat()
    except FileNotFoundError:
        if path.is_symlink():  # Hermes's `exists()` is False: the file is ignored
            return EnvFile(path, True, f"{path.name} is a symlink to {os.readlink(path)}, which does not exist; "
                                       "Hermes ignores it")
        return EnvFile(path)
    except OSError as exc:  # a symlink loop: `exists()` is False for Hermes too
        return EnvFile(path, True, f"{path.name} cannot be resolved ({exc.strerror or exc}); Hermes ignores it")
    found = (stat.S_IMODE(st.st_mode), st.st_uid, st.st_size)
    if stat.S_ISDIR(st.st_mode):
        return _unread(path, found, f"{path.name} is a directory; Hermes loads nothing from it")
    if not stat.S_ISREG(st.st_mode):
        return _unread(path, found, f"{path.name} is not a regular file",
                       f"{path.name} is not a regular file (a FIFO or device): Hermes blocks reading it")
    if st.st_size > MAX_ENV_BYTES:
        return _unread(path, found, f"{path.name} is {st.st_size // (1024 * 1024)} MiB",
                       f"{path.name} is {st.st_size // (1024 * 1024)} MiB: Hermes's start-up sanitizer "
                       "would take many minutes on it")
    try:
        raw = read_as_stated(path, st, MAX_ENV_BYTES)  # the file looked at, or nothing (a FIFO swapped in)
    except OSError as exc:
        return _unread(path, found, f"cannot read {path.name}: {exc.strerror or exc}",
                       f"Hermes cannot read {path.name} ({exc.strerror or exc}) and crashes at start-up")
    return _parsed(path, raw, base_env, model, found)


def _unread(path: Path, found: tuple[int | None, int | None, int], error: str, blocks_start: str | None = None
            ) -> EnvFile:
    """A `.env` that exists but was not parsed: why, and whether Hermes then hangs or crashes."""
    mode, uid, size = found
    return EnvFile(path, True, error, blocks_start, mode=mode, uid=uid, size=size)


def _as_written(path: Path, planned: int | None) -> tuple[int, int | None]:
    """(mode, owner uid) of `path` once the writer has replaced it: it keeps both (a planned mode wins); a new
    file is 0600, owned as the home is (the uid is not known here: None)."""
    try:
        st = path.stat()
    except OSError:
        return (planned if planned is not None else 0o600), None
    return (planned if planned is not None else stat.S_IMODE(st.st_mode)), st.st_uid


def beyond_bounds(name: str, raw: bytes) -> str | None:
    """Why `raw` is more than this tool judges (JUDGED_ENV_*), or None.  Counted in C: a line is what
    python-dotenv ends at `\\r\\n`, `\\n` or `\\r`."""
    if len(raw) > JUDGED_ENV_BYTES:
        return f"{name} is {len(raw):,} bytes, more than the {JUDGED_ENV_BYTES:,} this tool judges"
    lines = raw.count(b"\n") + raw.count(b"\r") - raw.count(b"\r\n")
    if lines > JUDGED_ENV_LINES:
        return f"{name} has {lines:,} lines, more than the {JUDGED_ENV_LINES:,} this tool judges"
    return None


def _parsed(path: Path, raw: bytes, base_env: Mapping[str, str] | None, model: Model,
            found: tuple[int | None, int | None, int]) -> EnvFile:
    """`raw` loaded as Hermes loads it; `found` is the file's (mode, owner uid, size)."""
    mode, uid, size = found
    if (too_big := beyond_bounds(path.name, raw)) is not None:
        return EnvFile(path, True, beyond_bounds=too_big, mode=mode, uid=uid, size=size)
    text, encoding, rewrites = model.decode_env(raw)
    bindings = []
    invalid: list[int] = []
    lines: dict[str, list[int]] = {}
    entries: dict[str, EnvEntry] = {}
    for binding in parse_stream(io.StringIO(text)):
        if binding.error:
            invalid.append(_first_line(binding))
            continue
        if binding.key is None:
            continue
        bindings.append(binding)
        lines.setdefault(binding.key, []).append(_first_line(binding))
        entries[binding.key] = EnvEntry(binding.key, binding.value, _first_line(binding), binding.original.string)
    first_key = bindings[0].key if bindings else None  # bindings hold only keyed lines
    bom_key = first_key[1:] if first_key is not None and first_key.startswith("\ufeff") else None

    # `hermes gateway run` loads .env twice (hermes_cli/main.py:654, then the
    # gateway.run import); the second pass resolves ${LATER} from the first one.
    pairs = [(b.key, b.value) for b in bindings]
    loaded = _interpolate(pairs, base_env or {})
    blocks: tuple[str | None, str | None] = (None, None)
    if nul := next((k for k, v in loaded.items() if v is not None and "\x00" in k + v), None):
        blocks = _blocks_on_nul(path.name, encoding, bindings, nul)
    first = _exported(loaded, [])
    stripped: list[str] = []
    values = _exported(_interpolate(pairs, {**(base_env or {}), **first}), stripped)
    return EnvFile(path, True, blocks_start=blocks[0], blocks_fix=blocks[1], values=MappingProxyType(values),
                   entries=MappingProxyType(entries),
                   duplicates=MappingProxyType({k: tuple(v) for k, v in lines.items() if len(v) > 1}),
                   invalid_lines=tuple(invalid), encoding=encoding, bom_key=bom_key, sanitizer_rewrites=rewrites,
                   stripped_credentials=tuple(stripped), simple_values=MappingProxyType(model.simple_env(raw)),
                   mode=mode, uid=uid, size=size)


def _blocks_on_nul(name: str, encoding: str, bindings: list[Binding], key: str) -> tuple[str, str]:
    """A NUL byte reached python-dotenv: 0.19's sanitizer (which strips NULs) left a UTF-32 file (or an
    undecodable one) alone, so it was read as latin-1, and `os.environ[key] = value` raises ValueError
    (embedded null byte) in the first `.env` load of `hermes gateway run`: a crash at start."""
    line = next((_first_line(b) for b in bindings if b.key == key), None)
    kind = {"utf-32": "UTF-32", "utf-16 (undecodable)": "broken UTF-16"}.get(encoding, "not UTF-8")
    return (f"{name} is {kind}, so Hermes loads it as latin-1 without its clean-up: the entry at "
                           f"line {line} reaches its environment with NUL bytes and Hermes crashes at start "
                           "(ValueError: embedded null byte)",
            f"convert it to UTF-8: iconv -f UTF-32 -t UTF-8 {name} > {name}.new && mv {name}.new {name}"
            if kind == "UTF-32" else f"remove the NUL bytes from {name} and save it as UTF-8")


def _exported(resolved: dict[str, str | None], stripped: list[str]) -> dict[str, str]:
    """What reaches os.environ: None dropped, NULs gone, credentials made ASCII."""
    values = {}
    for key, value in resolved.items():
        if value is None:
            continue
        value = value.replace("\x00", "")
        if key.endswith(_CREDENTIAL_SUFFIXES) and not value.isascii():
            value = value.encode("ascii", "ignore").decode("ascii")
            stripped.append(key)
        values[key] = value
    return values


def _interpolate(pairs: Iterable[tuple[str, str | None]], base_env: Mapping[str, str]) -> dict[str, str | None]:
    """python-dotenv's interpolation with override=True: earlier file values beat
    `base_env` (which stands in for the gateway's process environment)."""
    resolved: dict[str, str | None] = {}
    scope: dict[str, str | None] = dict(base_env)  # earlier file values (even None) shadow base_env
    for name, value in pairs:
        if value is not None and "${" in value:
            value = "".join(atom.resolve(scope) for atom in parse_variables(value))
        resolved[name] = scope[name] = value
    return resolved


def simple_parse(raw: bytes) -> dict[str, str]:
    """`hermes_cli.config.load_env`, the fallback of `get_env_value`: no interpolation,
    no inline comments, `export ` and one level of quotes stripped, last one wins."""
    values: dict[str, str] = {}
    text = raw.decode("utf-8-sig", errors="replace").replace("\x00", "")
    for line in io.StringIO(text, newline=None):
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        if line.startswith("export "):
            line = line[len("export "):]
        key, _, value = line.partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
        elif len(value) >= 2 and value[0] == value[-1] == "'":
            value = value[1:-1]
        values[key.strip()] = value
    return values


def _first_line(binding: Binding) -> int:
    """A binding's text starts with the blank lines before it; count past them."""
    text = binding.original.string
    lead = text[: len(text) - len(text.lstrip())]
    return binding.original.line + lead.count("\n") + lead.count("\r") - lead.count("\r\n")
