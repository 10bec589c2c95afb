"""Strings from a home, made safe to show: no terminal escapes, no hidden text.

Nothing in a Hermes home is trusted, and the tool often runs as root in someone
else's terminal: an ESC in a `.env` key, an OSC 52 sequence in a session path or
a U+202E in a YAML value must never reach a terminal raw (OSC 52 writes the
clipboard; bidi overrides make text read differently than it is).

* `visible(s)` — one value, every dangerous character (C0 controls including TAB
  and newline, DEL, C1, bidi and invisible format characters, lone surrogates
  from undecodable bytes) written as a visible escape: `\\x1b`, `\\u202e`.
* `visible_lines(text)` — the same for composed output, keeping its line breaks.
* `json_text(payload)` — `json.dumps` whose output never carries such a
  character raw (json escapes C0 itself; DEL, C1, bidi and surrogates are
  escaped here as `\\uXXXX`, which a JSON parser reads back unchanged).
* `to_stderr(text)` — the one writer of standard error: every message of this tool's own reaches
  stderr through it, escaped like `visible_lines` (tests/unit/test_stderr_writer.py holds every
  other module to it).
* `guarded_output()` — for the duration of a headless command, sys.stdout and
  sys.stderr escape whatever dangerous character still reaches them (a backstop:
  renderers escape their fields themselves, so a value's newline shows as `\\n`).

Contract: pure functions of text; escaping is display-only (values are never
changed where they are decided on or written).  `json` is imported lazily, in
`json_text`: the pre-start gate loads this module and prints no JSON.
"""

from __future__ import annotations

import contextlib
import re
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any, TextIO

# What is escaped: C0 (TAB, LF and CR included), DEL and C1 (U+009B is a one-byte CSI), bidi controls and
# invisibles, lone surrogates (bytes that were not UTF-8, kept by surrogateescape), tag characters.
_RANGES = ((0x00, 0x1f), (0x7f, 0x9f), (0xad, 0xad), (0x61c, 0x61c), (0x180e, 0x180e), (0x200b, 0x200f),
           (0x2028, 0x202e), (0x2060, 0x2069), (0xfeff, 0xfeff), (0xfff9, 0xfffb), (0xd800, 0xdfff),
           (0xe0000, 0xe007f))
_SHORT = {0x09: "\\t", 0x0a: "\\n", 0x0d: "\\r"}


def _dangerous(code: int) -> bool:
    return any(low <= code <= high for low, high in _RANGES)


def _escape_code(code: int) -> str:
    if code in _SHORT:
        return _SHORT[code]
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


class _Escapes(dict[int, str]):
    """A `str.translate` table filled as characters are met: a dangerous one maps to its escape, any
    other to itself (a table of every dangerous code point up front costs more than a whole check)."""

    def __init__(self, keep_newline: bool) -> None:
        super().__init__()
        self._keep_newline = keep_newline

    def __missing__(self, code: int) -> str:
        self[code] = escaped = (_escape_code(code) if _dangerous(code) and not (self._keep_newline and code == 0x0a)
                                else chr(code))
        return escaped


_ALL, _LINES = _Escapes(keep_newline=False), _Escapes(keep_newline=True)


def visible(value: object) -> str:
    """`value` as text with every control, C1, bidi or invisible character escaped."""
    text = value if isinstance(value, str) else str(value)
    return text if text.isascii() and text.isprintable() else text.translate(_ALL)


def visible_lines(text: str) -> str:
    """Like `visible`, but the line breaks of composed output are kept."""
    return text if _printable_lines(text) else text.translate(_LINES)


def _printable_lines(text: str) -> bool:
    """No character to escape, known without a table lookup per character: every dangerous character
    (control, format, surrogate, line/paragraph separator, unassigned tag) is one `str.isprintable` rejects."""
    return text.replace("\n", "").isprintable()


def _json_escape(code: int) -> str:
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xd800 + (code >> 10):04x}\\u{0xdc00 + (code & 0x3ff):04x}"


def json_text(payload: object, indent: int | None = 2) -> str:
    """JSON for a terminal: every dangerous character inside a string escaped as \\uXXXX.

    The substitution is safe on the whole document: such characters can only occur
    inside string literals (JSON's own syntax is ASCII), where \\uXXXX is their
    escape.  Characters above U+FFFF are written as a UTF-16 surrogate pair."""
    import json  # lazily: only JSON output needs it (see the module doc)

    text = json.dumps(payload, indent=indent, ensure_ascii=False)
    if _printable_lines(text):
        return text
    escapes = {code: _json_escape(code) for code in set(map(ord, text)) if code != 0x0a and _dangerous(code)}
    return text.translate(escapes) if escapes else text  # json.dumps escapes C0 in strings: a raw LF is layout


MASK = "••••••"
MIN_SCRUBBED = 6  # shorter values are masked where they stand, not searched for everywhere
_HIDDEN: set[str] = set()  # secret values of the homes read so far by this command


def hide(values: Iterable[str]) -> None:
    """Secret values the guarded streams mask wherever they occur (`scrub`)."""
    _HIDDEN.update(values)


def policy_word(value: str | None) -> str | None:
    """A policy as shown: a plain word verbatim (what Hermes compares, e.g. "open"),
    anything else (a glued line Hermes did not split, a pasted token) only by size."""
    if value is None or re.fullmatch(r"[a-z0-9_*-]{0,24}", value):
        return value
    return f"<not a policy: {len(value)} characters>"


_SPOKEN_AS: list[str] = []  # how this tool is run here, when not `hermes-wizard` (the Hermes plugin: `hermes wizard`)
_OWN_COMMAND = r"(?<![\w/.-])hermes-wizard(?= (?:setup|doctor|check|explain|undo|secrets|demo|access|pairing)\b)"


def speak_as(command: str) -> None:
    """Name this tool `command` wherever what it prints tells the user to run it (`hermes wizard doctor`
    inside Hermes, where `hermes-wizard` is usually not on PATH).  Only a command a user types is renamed:
    paths (`/venv/bin/hermes-wizard check` in a drop-in), file names and error prefixes stay as they are."""
    _SPOKEN_AS[:] = [command]


def as_spoken(text: str) -> str:
    return re.sub(_OWN_COMMAND, _SPOKEN_AS[0], text) if _SPOKEN_AS and "hermes-wizard " in text else text


def to_stderr(text: str = "", *, end: str = "\n", flush: bool = False) -> None:
    """Write `text` and `end` to standard error, as `print(text, file=sys.stderr)` would, with every
    dangerous character escaped (line breaks kept): a message may carry a home's text, and the gate and
    the usage errors write outside `guarded_output`, whose stream also masks secrets.  Nothing is written
    when the stream is closed (`2>&-`); a stream that fails raises, as print's would."""
    stream = sys.stderr
    if stream is None:
        return
    stream.write(visible_lines(text) + end)
    if flush:
        stream.flush()


class OutputError(OSError):
    """Standard output or error cannot be written (closed, a full disk, a failing terminal): the command's
    words are lost, which is not a bug of this tool (wizard/faces/contract.py says so and exits 74)."""


class _GuardedStream:
    """A text stream that escapes dangerous characters (line breaks kept) and masks
    the secrets registered with `hide` before writing.  Failing to write raises OutputError
    (a reader that left still raises BrokenPipeError)."""

    def __init__(self, stream: TextIO | None) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._do(self._stream.write if self._stream is not None else None,
                 visible_lines(as_spoken(scrub(text, _HIDDEN) if _HIDDEN else text)))
        return len(text)

    def flush(self) -> None:
        if self._stream is not None:
            self._do(self._stream.flush)

    def _do(self, call: Callable[..., object] | None, *args: str) -> None:
        if call is None:  # started with the descriptor closed (`>&-`): Python made the stream None
            raise OutputError("the stream is closed")
        try:
            call(*args)
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as exc:  # ValueError: "I/O operation on closed file"
            raise OutputError(getattr(exc, "strerror", None) or str(exc)) from exc

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, fileno, encoding, buffer...
        return getattr(self._stream, name)


@contextlib.contextmanager
def guarded_output() -> Iterator[None]:
    """Route sys.stdout/sys.stderr through the escaping backstop (not for the TUI,
    whose drawing is escape sequences)."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _GuardedStream(saved[0]), _GuardedStream(saved[1])
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
        _HIDDEN.clear()


def scrub(text: str, values: Iterable[str]) -> str:
    """`text` with every occurrence (any case) of a secret value of MIN_SCRUBBED+ characters masked."""
    return scrubber(values)(text)


def scrubber(values: Iterable[str]) -> Callable[[str], str]:
    """`scrub` with these values, its pattern built once: for masking many strings (every string of
    a JSON report) with the same secrets."""
    pieces = sorted({piece for value in values for piece in [value, *value.split("\n")]
                     if len(piece.strip()) >= MIN_SCRUBBED}, key=len, reverse=True)
    if not pieces:
        return lambda text: text
    pattern = re.compile("|".join(re.escape(p) for p in pieces), re.I)
    return lambda text: pattern.sub(MASK, text) if text else text
