"""Edit one value in `config.yaml` text, changing nothing else.

Block-style documents (what Hermes and people write) are edited surgically: the
value's exact span, found from the parser's marks, is replaced, or a missing key
is inserted as one new line at the indentation of its siblings.  Comments, order,
quotes, anchors and blank lines are untouched byte for byte.  Flow-style
containers (`{a: 1}`) fall back to ruamel.yaml's round-trip mode.

Every result is checked by re-reading it with PyYAML's `safe_load` (what Hermes
uses): the edited key must read back as exactly the intended value and every
other value must be unchanged.  Strings PyYAML would read as something else
(`yes`, `on`, `12:30`, `0755`, ...) are single-quoted.

Contract: pure text → text; raises `YamlEditError` rather than return a document
that does not read back as intended.  ruamel.yaml is imported lazily, only for a
flow-style document: importing wizard/ never loads it (tests/unit/test_import_hygiene.py).
"""

from __future__ import annotations

import copy
import functools
import io
from typing import TYPE_CHECKING, Any, ParamSpec

import yaml

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Concatenate

_EditArgs = ParamSpec("_EditArgs")  # what an edit takes after the text


class YamlEditError(ValueError):
    """The edit cannot be made safely."""


def render_scalar(value: Any, quote: str = "") -> str:
    """YAML text for `value` that PyYAML reads back as exactly `value`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, list):
        return _flow_list(value)
    if isinstance(value, int):
        return str(value)
    if not isinstance(value, str):
        raise YamlEditError(f"cannot write a {type(value).__name__} value")
    if any(ch in value for ch in "\n\r\x00"):
        raise YamlEditError("values cannot contain line breaks")
    single = "'" + value.replace("'", "''") + "'"
    if quote == "'":
        return single
    if quote == '"':
        return yaml.safe_dump(value, default_style='"', width=10**9).strip().removesuffix("...").strip()
    if value and value == value.strip() and _reads_back(value):
        return value
    return single


def _flow_list(items: list[Any]) -> str:
    return "[" + ", ".join(render_scalar(item) for item in items) + "]"


def _reads_back(text: str) -> bool:
    try:
        return bool(yaml.safe_load(f"k: {text}\n") == {"k": text})
    except yaml.YAMLError:
        return False


def _refuses_cycles(edit: Callable[Concatenate[str, _EditArgs], str]) -> Callable[Concatenate[str, _EditArgs], str]:
    """A config.yaml holding an alias inside its own anchor (`a: &a [*a]`) parses into a structure that
    contains itself: comparing or copying it recurses without end. Such a file is refused, never a crash."""
    @functools.wraps(edit)
    def guarded(text: str, /, *args: _EditArgs.args, **kwargs: _EditArgs.kwargs) -> str:
        try:
            return edit(text, *args, **kwargs)
        except RecursionError:
            raise YamlEditError("config.yaml holds an alias inside its own anchor (or nests too deeply) to be "
                                "edited safely; edit it by hand") from None
    return guarded


@_refuses_cycles
def set_value(text: str, path: tuple[str, ...], value: Any) -> str:
    """Return `text` with the scalar at `path` set to `value` (keys created as needed)."""
    expected = _expected(text, path, value)
    try:
        edited = _surgical(text, path, value)
    except _NeedsRoundTrip:
        edited = None
    if edited is None or not _reads_as(edited, expected):
        edited = _round_trip(text, path, value)
        if not _reads_as(edited, expected):
            shared = " (its value is shared through a YAML anchor)" if "&" in text and "*" in text else ""
            raise YamlEditError(f"editing {'.'.join(path)} would change other values{shared}; edit config.yaml "
                                "by hand")
    return edited


@_refuses_cycles
def remove_value(text: str, path: tuple[str, ...]) -> str:
    """Return `text` without the key at `path` and its value (unchanged when it is not there): the entry's
    lines are cut from a block mapping; a flow mapping, or a mapping left empty, goes through the round trip."""
    expected = copy.deepcopy(_load(text))
    node = expected
    for part in path[:-1]:
        node = node.get(part) if isinstance(node, dict) else None
    if not isinstance(node, dict) or path[-1] not in node:
        return text
    del node[path[-1]]
    try:
        edited = _cut(text, path)
    except _NeedsRoundTrip:
        edited = None
    if edited is None or not _reads_as(edited, expected):
        edited = _round_trip(text, path, _REMOVED)
        if not _reads_as(edited, expected):
            raise YamlEditError(f"removing {'.'.join(path)} would change other values; edit config.yaml by hand")
    return edited


def _cut(text: str, path: tuple[str, ...]) -> str:
    """`text` without the lines of the entry at `path` (its key on a line of its own, in a block mapping)."""
    node = yaml.compose(text, Loader=yaml.SafeLoader)
    key_node = None
    for part in path:
        if not isinstance(node, yaml.MappingNode) or node.flow_style:
            raise _NeedsRoundTrip()
        key_node, node = next(((k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == part),
                              (None, None))
        if key_node is None:
            raise _NeedsRoundTrip()
    assert key_node is not None and node is not None
    start, column = key_node.start_mark.index, key_node.start_mark.column
    line_start = start - column
    if text[line_start:start].strip():
        raise _NeedsRoundTrip()  # the key shares its line with something else
    end = _end_of_entries(text, start, column)
    if isinstance(node, yaml.ScalarNode):  # a block scalar's lines may look like comments: its own end counts
        newline = text.find("\n", max(node.end_mark.index - 1, start))
        end = max(end, len(text) if newline < 0 else newline + 1)
    return text[:line_start] + text[end:]


@_refuses_cycles
def append_value(text: str, path: tuple[str, ...], item: Any) -> str:
    """Return `text` with `item` added to the list at `path` (a flow list `[item]` where there is none;
    unchanged when the item is already there).  A value there that is not a list raises YamlEditError."""
    data = _load(text)
    node: Any = data if isinstance(data, dict) else {}
    for part in path:
        node = node.get(part) if isinstance(node, dict) else None
    if node is None:
        return set_value(text, path, [item])
    if not isinstance(node, list):
        raise YamlEditError(f"{'.'.join(path)} in config.yaml is not a list; edit it by hand")
    if item in node:
        return text
    expected = _expected(text, path, [*node, item])
    try:
        edited = _append_in_place(text, path, item)
    except _NeedsRoundTrip:
        edited = None
    if edited is None or not _reads_as(edited, expected):
        edited = _round_trip(text, path, item, append=True)
        if not _reads_as(edited, expected):
            raise YamlEditError(f"adding {item!r} to {'.'.join(path)} would change other values; edit config.yaml "
                                "by hand")
    return edited


def _append_in_place(text: str, path: tuple[str, ...], item: Any) -> str:
    """One new `- item` line after a block list's last item (its dash's column), or the flow list rewritten."""
    node = yaml.compose(text, Loader=yaml.SafeLoader)
    for part in path:
        if not isinstance(node, yaml.MappingNode):
            raise _NeedsRoundTrip()
        node = next((v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == part), None)
    if not isinstance(node, yaml.SequenceNode) or not node.value:
        raise _NeedsRoundTrip()
    if node.flow_style:
        items = [yaml.safe_load(text[v.start_mark.index:v.end_mark.index]) for v in node.value]
        return text[:node.start_mark.index] + _flow_list([*items, item]) + text[node.end_mark.index:]
    first = node.value[0]
    dash = text.rfind("-", 0, first.start_mark.index)
    line_start = text.rfind("\n", 0, dash) + 1
    if dash < 0 or text[line_start:dash].strip():
        raise _NeedsRoundTrip()
    newline = "\r\n" if "\r\n" in text else "\n"
    end = text.find("\n", node.value[-1].end_mark.index)
    at = len(text) if end < 0 else end + 1
    prefix = newline if at == len(text) and not text.endswith("\n") else ""
    return text[:at] + prefix + " " * (dash - line_start) + "- " + render_scalar(item) + newline + text[at:]


def _reads_as(text: str, expected: Any) -> bool:
    try:
        return bool(yaml.safe_load(text) == expected)
    except yaml.YAMLError:  # the edit broke the document (e.g. dropped an anchor an alias needs)
        return False


class _NeedsRoundTrip(Exception):
    pass


def _load(text: str) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise YamlEditError(f"config.yaml does not parse: {exc}") from None


def _expected(text: str, path: tuple[str, ...], value: Any) -> Any:
    data = copy.deepcopy(_load(text))
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise YamlEditError("config.yaml's top level is not a mapping")
    node = data
    for part in path[:-1]:
        child = node.get(part)
        if child is None:
            child = node[part] = {}
        if not isinstance(child, dict):
            raise YamlEditError(f"{part} in config.yaml is not a mapping")
        node = child
    node[path[-1]] = value
    return data


def _surgical(text: str, path: tuple[str, ...], value: Any) -> str:
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    if root is None:
        if text.strip():
            raise _NeedsRoundTrip()
        prefix = text if not text or text.endswith("\n") else text + "\n"
        return prefix + _block(path, value, 0, 2)
    node, parent_indent = root, None
    for depth, part in enumerate(path):
        if not isinstance(node, yaml.MappingNode):
            raise _NeedsRoundTrip()
        match = next(((k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == part), None)
        if match is None:
            return _insert(text, node, path[depth:], value, parent_indent)
        key_node, value_node = match
        parent_indent = key_node.start_mark.column
        if depth == len(path) - 1:
            if not isinstance(value_node, yaml.ScalarNode):
                raise _NeedsRoundTrip()
            start, end = value_node.start_mark.index, value_node.end_mark.index
            if start < key_node.end_mark.index:  # `key: *name`: an alias of a value defined earlier
                start, end = _alias_span(text, key_node.end_mark.index)
            elif text.startswith("&", start):  # `key: &name value`: keep the anchor, replace the value
                start = _after_anchor(text, start)
            rendered = render_scalar(value, value_node.style if value_node.style in ("'", '"') else "")
            if start == end:  # `key:` with nothing after it
                return text[:start] + " " + rendered + text[start:]
            return text[:start] + rendered + text[end:]
        node = value_node
    raise _NeedsRoundTrip()


def _alias_span(text: str, after_key: int) -> tuple[int, int]:
    """The span of the `*name` token that follows a key (its `:` and spaces skipped)."""
    at = after_key
    while at < len(text) and text[at] in " \t:":
        at += 1
    if not text.startswith("*", at):
        raise _NeedsRoundTrip()
    end = at + 1
    while end < len(text) and not text[end].isspace() and text[end] not in ",[]{}":
        end += 1
    return at, end


def _after_anchor(text: str, start: int) -> int:
    end = start
    while end < len(text) and not text[end].isspace():
        end += 1
    while end < len(text) and text[end] in " \t":
        end += 1
    return end


def _insert(text: str, mapping: yaml.MappingNode, rest: tuple[str, ...], value: Any, parent_indent: int | None) -> str:
    if not mapping.value or mapping.flow_style:
        raise _NeedsRoundTrip()
    first_key = mapping.value[0][0]
    column = first_key.start_mark.column
    step = column - parent_indent if parent_indent is not None and column > parent_indent else 2
    line_start = first_key.start_mark.index - column
    if text[line_start:first_key.start_mark.index].strip():
        raise _NeedsRoundTrip()  # the mapping does not start on its own line
    newline = "\r\n" if "\r\n" in text else "\n"
    # After the mapping's last entry, so keys appear in the order they were planned and a new top-level
    # block follows the keys already there (Hermes's own `_config_version` stays where Hermes put it).
    at = _end_of_entries(text, mapping.value[-1][0].start_mark.index, column)
    if at == len(text) and not text.endswith("\n"):
        text += newline
        at = len(text)
    return text[:at] + _block(rest, value, column, step, newline) + text[at:]


def _end_of_entries(text: str, last_key: int, column: int) -> int:
    """Where the line after a mapping's last entry starts: past its value's deeper lines (and a sequence
    written at the key's own column), before any blank or comment lines that follow them.  A value whose
    lines this misjudges (a block scalar ending in a `#` line) fails set_value's read-back check, and the
    edit falls back to the round trip."""
    at = text.find("\n", last_key)
    end = after = len(text) if at < 0 else at + 1
    while after < len(text):
        newline = text.find("\n", after)
        next_line = len(text) if newline < 0 else newline + 1
        line = text[after:next_line]
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            indent = len(line) - len(line.lstrip(" \t"))
            if indent < column or (indent == column and not stripped.startswith("- ") and stripped != "-"):
                break
            end = next_line
        after = next_line
    return end


def _block(path: tuple[str, ...], value: Any, column: int, step: int, newline: str = "\n") -> str:
    lines = []
    for depth, part in enumerate(path):
        pad = " " * (column + depth * step)
        key = render_scalar(part)
        lines.append(f"{pad}{key}:" + (f" {render_scalar(value)}" if depth == len(path) - 1 else ""))
    return newline.join(lines) + newline


_REMOVED = object()  # _round_trip's value that deletes the key


def _round_trip(text: str, path: tuple[str, ...], value: Any, append: bool = False) -> str:
    from ruamel.yaml import YAML  # only flow-style documents need it
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.scalarstring import SingleQuotedScalarString

    rt = YAML(typ="rt")
    rt.preserve_quotes = True
    rt.width = 4096
    data = rt.load(text) or CommentedMap()
    node = data
    for part in path[:-1]:
        if node.get(part) is None:
            node[part] = CommentedMap()
        node = node[part]
    if isinstance(value, str) and render_scalar(value) != value:
        value = SingleQuotedScalarString(value)
    if value is _REMOVED:
        del node[path[-1]]
    elif append:
        node[path[-1]].append(value)  # the list object itself: its comments stay
    else:
        node[path[-1]] = value
    out = io.StringIO()
    rt.dump(data, out)
    return out.getvalue()
