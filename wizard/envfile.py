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
import io
import stat
from dataclasses import dataclass, field
from pathlib import Path

from dotenv.parser import parse_stream
from dotenv.variables import parse_variables

# Hermes refuses nothing by size, but a multi-megabyte .env is never intended.
MAX_ENV_BYTES = 4 * 1024 * 1024
# Suffixes whose values Hermes strips of non-ASCII after loading (env_loader.py:19).
_CREDENTIAL_SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET", "_KEY")


@dataclass(frozen=True)
class EnvEntry:
    """One assignment as python-dotenv saw it (the last one wins for a key)."""

    key: str
    value: str | None  # None: a bare `KEY` line, which dotenv does not export
    line: int  # 1-based line number in the text dotenv parsed
    raw: str  # the original text of the assignment (may contain a secret)


@dataclass
class EnvFile:
    """The result of reading one `.env`."""

    path: Path
    exists: bool = False
    error: str | None = None  # why the file could not be read at all
    values: dict[str, str] = field(default_factory=dict)  # what reaches os.environ
    entries: dict[str, EnvEntry] = field(default_factory=dict)  # last binding per key
    duplicates: dict[str, list[int]] = field(default_factory=dict)  # key -> all lines
    invalid_lines: list[int] = field(default_factory=list)  # lines dotenv could not parse
    encoding: str = "utf-8"
    bom_key: str | None = None  # first key glued to a UTF-8 BOM (Hermes ignores it)
    sanitizer_rewrites: bool = False  # Hermes would rewrite this file at startup
    stripped_credentials: list[str] = field(default_factory=list)
    simple_values: dict[str, str] = field(default_factory=dict)  # Hermes's get_env_value fallback parse
    mode: int | None = None
    uid: int | None = None
    size: int = 0

    def line_of(self, key: str) -> int | None:
        entry = self.entries.get(key)
        return entry.line if entry else None


def _decode_like_hermes(raw: bytes) -> tuple[str, str, bool, str | None]:
    """Return (text dotenv parses, encoding label, sanitizer rewrites?, error)."""
    if raw.startswith(codecs.BOM_UTF32_LE) or raw.startswith(codecs.BOM_UTF32_BE):
        # Hermes leaves UTF-32 untouched and then fails to decode it as UTF-8,
        # falling back to latin-1: every key becomes garbage.
        return _text(raw, "latin-1"), "utf-32", False, None
    if raw.startswith(codecs.BOM_UTF16_LE) or raw.startswith(codecs.BOM_UTF16_BE):
        try:
            lines = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-16", newline=None).readlines()
        except UnicodeDecodeError:
            return _text(raw, "latin-1"), "utf-16 (undecodable)", False, None
        return "".join(_sanitize_lines(lines)), "utf-16", True, None

    sanitized_from = io.TextIOWrapper(
        io.BytesIO(raw), encoding="utf-8-sig", errors="replace", newline=None
    ).readlines()
    if sanitized_from and sanitized_from[0].startswith("\ufffd"):
        rewrite = False
    else:
        cleaned = _sanitize_lines(sanitized_from)
        rewrite = cleaned != sanitized_from
        if rewrite:
            # Hermes persists the cleaned text (with U+FFFD for bad bytes) and
            # then loads that.
            return "".join(cleaned), "utf-8", True, None
    try:
        return _text(raw, "utf-8"), "utf-8", rewrite, None
    except UnicodeDecodeError:
        return _text(raw, "latin-1"), "latin-1", rewrite, None


def _text(raw: bytes, encoding: str) -> str:
    """Decode as `open(path, encoding=...)` does: universal newlines, BOM kept."""
    return io.TextIOWrapper(io.BytesIO(raw), encoding=encoding, newline=None).read()


def _sanitize_lines(lines: list[str]) -> list[str]:
    """Hermes's line cleanup: NULs dropped, every line stripped, blank/comment kept.

    Hermes also splits lines holding two known `KEY=` assignments; that needs its
    list of several hundred variable names and only fires on already-corrupted
    files, so it is reported by a check rather than modelled here.
    """
    out = []
    for line in lines:
        line = line.replace("\x00", "")
        raw = line.rstrip("\r\n")
        stripped = raw.strip()
        out.append((raw if not stripped or stripped.startswith("#") else stripped) + "\n")
    return out


def read_env_file(path: Path, base_env: dict[str, str] | None = None) -> EnvFile:
    """Read `path` the way Hermes's `load_hermes_dotenv` would load it.

    `base_env` is the process environment the gateway would start with; `${VAR}`
    references fall back to it (the file's own earlier values win, override=True).
    """
    result = EnvFile(path=path)
    try:
        st = path.stat()
    except FileNotFoundError:
        return result
    except OSError as exc:  # symlink loop, permission on a parent, ...
        result.exists = True
        result.error = f"cannot stat {path.name}: {exc.strerror or exc}"
        return result
    result.exists = True
    result.mode, result.uid, result.size = stat.S_IMODE(st.st_mode), st.st_uid, st.st_size
    if not stat.S_ISREG(st.st_mode):
        kind = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        result.error = f"{path.name} is {kind}"
        return result
    if st.st_size > MAX_ENV_BYTES:
        result.error = f"{path.name} is {st.st_size // (1024 * 1024)} MiB; refusing to parse it"
        return result
    try:
        raw = path.read_bytes()
    except OSError as exc:
        result.error = f"cannot read {path.name}: {exc.strerror or exc}"
        return result

    text, result.encoding, result.sanitizer_rewrites, _ = _decode_like_hermes(raw)
    result.simple_values = _simple_parse(raw)
    bindings = []
    for binding in parse_stream(io.StringIO(text)):
        if binding.error:
            result.invalid_lines.append(binding.original.line)
            continue
        if binding.key is None:
            continue
        bindings.append(binding)
        result.duplicates.setdefault(binding.key, []).append(binding.original.line)
        result.entries[binding.key] = EnvEntry(
            binding.key, binding.value, binding.original.line, binding.original.string
        )
    result.duplicates = {k: v for k, v in result.duplicates.items() if len(v) > 1}
    if bindings and bindings[0].key.startswith("\ufeff"):
        result.bom_key = bindings[0].key[1:]

    # `hermes gateway run` loads .env twice (hermes_cli/main.py:654, then the
    # gateway.run import); the second pass resolves ${LATER} from the first one.
    pairs = [(b.key, b.value) for b in bindings]
    first = _exported(_interpolate(pairs, base_env or {}), [])
    result.values = _exported(_interpolate(pairs, {**(base_env or {}), **first}), result.stripped_credentials)
    return result


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


def _interpolate(pairs, base_env: dict[str, str]) -> dict[str, str | None]:
    """python-dotenv's interpolation with override=True: earlier file values beat
    `base_env` (which stands in for the gateway's process environment)."""
    resolved: dict[str, str | None] = {}
    for name, value in pairs:
        if value is None:
            resolved[name] = None
            continue
        scope = {**base_env, **resolved}
        resolved[name] = "".join(atom.resolve(scope) for atom in parse_variables(value))
    return resolved


def _simple_parse(raw: bytes) -> dict[str, str]:
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
