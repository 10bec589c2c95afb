"""Read `config.yaml` as Hermes's gateway loader does (`yaml.safe_load`, UTF-8).

Keeps the composed node tree so a check can point at the line of any key
(`YamlFile.line_of(("platforms", "weixin", "extra", "dm_policy"))`).

Contract: never raises for file content.  A file that does not parse (or that
PyYAML's constructor fails on, whatever the exception) gives `YamlFile.error`
with a 1-based line and column when known; Hermes then logs one warning and
silently falls back to `.env`/gateway.json values, which checks must report.

Big files stay cheap (benchmarks/bench_inputs.py: 100k platform keys): the data is
built by SafeConstructor with shortcuts that return what it returns
(`_ShortcutConstructor`), and the alias-expansion walk visits collections only.  A judging session
(`ParsedYaml`: a doctor's repair, the wizard's previews) parses each version of the file once and copies the
data for every other read; `pickle` is imported lazily there, so `check` and the gate never load it.
"""

from __future__ import annotations

import stat
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from hermes_wizard.core.smallfile import read_as_stated
from hermes_wizard.core.values import Compared, Value, compared_class, value_class

if TYPE_CHECKING:
    from hermes_wizard.core.shapes import Parsed

# What one node costs to parse and build here: ~25 µs with the pure-Python parser Hermes uses, ~3 µs with
# libyaml (same grammar; the constructor is Python either way).  Beyond PURE_PYTHON_NODES (estimated:
# `estimated_nodes`) we switch to libyaml and say so; beyond JUDGED_YAML_NODES the file is more than this tool
# judges within the pre-start gate's second (benchmarks/bench_inputs.py, "bound:" rows): "cannot judge"
# (`beyond_bounds`), never a guess.  A real config.yaml has a few thousand nodes.
PURE_PYTHON_NODES = 20_000
JUDGED_YAML_NODES = 250_000
MAX_YAML_BYTES = 64 * 1024 * 1024
# Hermes walks config.yaml with every alias expanded (hermes_cli/config.py
# _expand_env_vars) at start-up; past this many nodes that walk never ends in practice.
MAX_EXPANDED_NODES = 10_000_000


@value_class
class YamlError(Value):
    """Why a YAML file could not be read or parsed, and where (1-based line and column, when known)."""

    message: str
    line: int | None = None
    column: int | None = None

    def where(self) -> str:
        return f"line {self.line}, column {self.column}" if self.line else "?"


@compared_class
class YamlFile(Compared):
    """A YAML file as read: its parsed data (or error), its size and mode, and what its aliases expand to."""

    path: Path
    exists: bool = False
    data: Any = None  # what safe_load returned (None for an empty file)
    error: YamlError | None = None  # unreadable or unparsable
    size: int = 0
    mode: int | None = None
    parsed_with_libyaml: bool = False
    beyond_bounds: str | None = None  # more nodes than this tool judges (JUDGED_YAML_NODES): not parsed
    expanded_nodes: int = 0  # node count with every alias expanded (capped)
    cycle_line: int | None = None  # 1-based line of a collection that contains itself through an alias
    _root: Any = field(default=None, init=False, repr=False, compare=False)  # the node tree: a cache, not the value
    # id(mapping node) -> {key text: (line, value node)}, built once per mapping
    _keys: Any = field(default=None, init=False, repr=False, compare=False)
    _duplicate: Any = field(default=None, init=False, repr=False, compare=False)  # [duplicate_key()] once asked

    def mapping(self) -> Parsed:
        """The top level when it is a mapping, else an empty dict."""
        return self.data if isinstance(self.data, dict) else {}

    def line_of(self, path: tuple[object, ...]) -> int | None:
        """1-based line of the key at `path` (or of the deepest existing parent)."""
        node, line = self._root, None
        for part in path:
            if not isinstance(node, yaml.MappingNode):
                break
            found = self._keys_of(node).get(str(part))
            if found is None:
                break
            line, node = found
        return line

    def duplicate_key(self) -> tuple[str, int] | None:
        """The first key written twice in one mapping, and the 1-based line of its second use, or None.  PyYAML
        keeps the last; ruamel (the main line's `hermes_yaml`) rejects the document.  Walked on demand: only a
        model that reads config.yaml with ruamel asks, so the gate of any other pays nothing."""
        if self._duplicate is None:
            self._duplicate = []
        if not self._duplicate:  # a list, so that every read of the same bytes shares the answer
            self._duplicate.append(self._first_duplicate())
        return self._duplicate[0]  # type: ignore[no-any-return]

    def _first_duplicate(self) -> tuple[str, int] | None:
        seen_nodes: set[int] = set()
        stack = [self._root] if self._root is not None else []
        while stack:
            node = stack.pop()
            if id(node) in seen_nodes or isinstance(node, yaml.ScalarNode):
                continue
            seen_nodes.add(id(node))
            if isinstance(node, yaml.MappingNode):
                keys: set[tuple[str, str]] = set()
                for key_node, value_node in node.value:
                    if isinstance(key_node, yaml.ScalarNode) and key_node.tag != "tag:yaml.org,2002:merge":
                        value = key_node.value.lower() if key_node.tag == _BOOL_TAG else key_node.value
                        if (key_node.tag, value) in keys:
                            return key_node.value, key_node.start_mark.line + 1
                        keys.add((key_node.tag, value))
                    stack.extend((key_node, value_node))
            else:
                stack.extend(node.value)
        return None

    def _keys_of(self, node: yaml.MappingNode) -> dict[str, tuple[int, yaml.Node]]:
        """The keys of one mapping node, indexed on first use: a check asking for the line
        of each of n keys then costs O(n), not O(n²).  The first of duplicate keys wins."""
        if self._keys is None:
            self._keys = {}
        index: dict[str, tuple[int, yaml.Node]] | None = self._keys.get(id(node))
        if index is None:
            index = {}
            for key_node, value_node in node.value:
                if isinstance(key_node, yaml.ScalarNode):
                    index.setdefault(key_node.value, (key_node.start_mark.line + 1, value_node))
            self._keys[id(node)] = index
        return index


_STR_TAG, _BOOL_TAG = "tag:yaml.org,2002:str", "tag:yaml.org,2002:bool"


class _ShortcutConstructor(yaml.constructor.SafeConstructor):
    """SafeConstructor, with shortcuts for the nodes most of a config is made of (500k of the 600k nodes with
    100k platform keys), each returning what the general path returns:

    * a string's or a boolean's value at once, as `construct_yaml_str` / `construct_yaml_bool` give it,
      without the bookkeeping every node gets (the memo of constructed nodes, which only aliases use,
      would hand back that same str or bool);
    * a mapping whose keys are all plain strings built in one pass: with no merge (`<<`) or value (`=`)
      key there is nothing to flatten, and a str key is always hashable."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        if node.__class__ is yaml.ScalarNode:
            if node.tag == _STR_TAG:
                return node.value
            if node.tag == _BOOL_TAG:
                return self.bool_values[node.value.lower()]
        return super().construct_object(node, deep)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        if node.__class__ is not yaml.MappingNode:
            return super().construct_mapping(node, deep)  # its error
        for key, _ in node.value:
            if key.__class__ is not yaml.ScalarNode or key.tag != _STR_TAG:
                return super().construct_mapping(node, deep)
        return {key.value: self.construct_object(value, deep=deep) for key, value in node.value}


class _SafeLoader(_ShortcutConstructor, yaml.SafeLoader):
    """yaml.SafeLoader, the loader of Hermes's `yaml.safe_load`."""


try:
    from yaml import CSafeLoader as _LibyamlSafeLoader
except ImportError:  # a PyYAML built without libyaml: _parse_into then never picks it
    _LibyamlSafeLoader = yaml.SafeLoader  # type: ignore[misc,assignment]


class _CSafeLoader(_ShortcutConstructor, _LibyamlSafeLoader):
    """libyaml's parser with the same constructor (a file of more than PURE_PYTHON_NODES)."""


class ParsedYaml:
    """The parses of config.yaml already made in one judging session (a doctor's repair and its candidates, a
    wizard's previews, the written home read back), by the file's bytes: each version of the file is parsed
    once.  Every read still gets data of its own (the loader may keep and change what it reads), unpickled from
    the first parse's; the node tree, which only line numbers are read from, is shared.

    Contract: `read_yaml_file(..., parsed=p)` returns what it would return without `p`, field for field."""

    __slots__ = ("_made",)

    def __init__(self) -> None:
        self._made: dict[bytes, tuple[YamlFile, bytes]] = {}  # raw bytes -> (first parse, its data pickled)

    def parse_into(self, result: YamlFile, raw: bytes, size: int) -> YamlFile:
        made = self._made.get(raw)
        if made is None:
            import pickle  # only a judging session keeps parses (the check path never loads it)

            first = _parse_into(result, raw, size)
            try:
                self._made[raw] = (first, pickle.dumps(first.data, pickle.HIGHEST_PROTOCOL))
            except (pickle.PicklingError, TypeError, RecursionError):  # data only the parse itself can make
                pass
            return first
        import pickle

        first, data = made
        result.data, result.error, result.beyond_bounds = pickle.loads(data), first.error, first.beyond_bounds
        result.parsed_with_libyaml, result.expanded_nodes, result.cycle_line = (
            first.parsed_with_libyaml, first.expanded_nodes, first.cycle_line)
        # the node tree and what it answers are shared: the same bytes give the same tree
        first._keys = first._keys if first._keys is not None else {}
        first._duplicate = first._duplicate if first._duplicate is not None else []
        result._root, result._keys, result._duplicate = first._root, first._keys, first._duplicate
        return result


def read_yaml_file(path: Path, content: bytes | None = None, parsed: ParsedYaml | None = None) -> YamlFile:
    """Read and parse `path` (or `content`, a planned version of it); `parsed`: the session's parses so far."""
    parse = parsed.parse_into if parsed is not None else _parse_into
    result = YamlFile(path=path)
    if content is not None:
        result.exists, result.size = True, len(content)
        return parse(result, content, result.size)
    try:
        st = path.stat()
    except FileNotFoundError:
        return result
    except OSError as exc:
        result.exists = True
        result.error = YamlError(f"cannot stat config.yaml: {exc.strerror or exc}")
        return result
    result.exists, result.size, result.mode = True, st.st_size, stat.S_IMODE(st.st_mode)
    if not stat.S_ISREG(st.st_mode):
        kind = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        result.error = YamlError(f"config.yaml is {kind}")
        return result
    if st.st_size > MAX_YAML_BYTES:
        result.error = YamlError(f"config.yaml is {st.st_size // (1024 * 1024)} MiB; refusing to parse it")
        return result
    try:
        raw = read_as_stated(path, st, MAX_YAML_BYTES)  # the file looked at, or nothing (a FIFO swapped in)
    except OSError as exc:
        result.error = YamlError(f"cannot read config.yaml: {exc.strerror or exc}")
        return result
    return parse(result, raw, st.st_size)


def estimated_nodes(raw: bytes) -> int:
    """At least as many nodes as composing `raw` makes (aliases unexpanded), counted in C.  Every node but
    the first is brought in by an indicator, with at most one more beside it: a mapping's `:` (its key and
    its value), a flow collection's `[`, `{` or `,` (an item; in a flow mapping, a key and its null value),
    `?` (a complex key and its value), a block sequence's `-` (an item, counted twice: built one to a line,
    items cost twice what a mapping's keys cost).  The same characters inside scalars only make the
    estimate larger."""
    pairs = raw.count(b":") + raw.count(b",") + raw.count(b"[") + raw.count(b"{") + raw.count(b"?") + raw.count(b"-")
    return 1 + 2 * pairs


def _parse_into(result: YamlFile, raw: bytes, size: int) -> YamlFile:
    nodes = estimated_nodes(raw)
    if nodes > JUDGED_YAML_NODES:
        result.beyond_bounds = (f"config.yaml has up to {nodes:,} YAML nodes, more than the {JUDGED_YAML_NODES:,} "
                                "this tool judges")
        return result
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        result.error = YamlError(f"config.yaml is not UTF-8 (byte {exc.start}): {exc.reason}")
        return result
    loader_class: type[_SafeLoader] | type[_CSafeLoader] = _SafeLoader
    if nodes > PURE_PYTHON_NODES and hasattr(yaml, "CSafeLoader"):
        loader_class, result.parsed_with_libyaml = _CSafeLoader, True
    loader = None
    try:
        # The reader checks every character as it is built: a control character
        # (\x07, \x1b, \x00...) raises here, and Hermes then ignores the whole file.
        loader = loader_class(text)
        root = loader.get_single_node()
        result._root = root
        if root is not None:
            result.expanded_nodes, inside_itself = _expanded_size(root)
            result.cycle_line = inside_itself.start_mark.line + 1 if inside_itself is not None else None
        result.data = loader.construct_document(root) if root is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = " ".join(str(p) for p in (exc.context, exc.problem) if p) or str(exc)
        result.error = YamlError(message, mark.line + 1 if mark else None, mark.column + 1 if mark else None)
    except yaml.reader.ReaderError as exc:
        result.error = _reader_error(text, exc)
    except Exception as exc:  # as Hermes's loader: `!!bool maybe` raises KeyError, `!!timestamp x` AttributeError,
        # `!!int x` ValueError, depth RecursionError; Hermes warns and ignores the whole file
        result.error = YamlError(f"{type(exc).__name__}: {exc}")
    finally:
        if loader is not None:
            loader.dispose()
    return result


def _reader_error(text: str, exc: yaml.reader.ReaderError) -> YamlError:
    """A character YAML does not allow anywhere, with its line and column (the
    reader reports only an offset into the text)."""
    position = exc.position if isinstance(exc.position, int) and 0 <= exc.position <= len(text) else 0
    line = text.count("\n", 0, position) + 1
    column = position - (text.rfind("\n", 0, position) + 1) + 1
    character = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "?")
    return YamlError(f"control character U+{character:04X} is not allowed in YAML", line, column)


def _expanded_size(root: yaml.Node | None) -> tuple[int, yaml.Node | None]:
    """(nodes in the document once aliases are expanded, capped; the first collection found inside
    itself, or None).  Aliases share node objects, so the sizes of collections are memoised by identity;
    a collection reached again while its own children are being counted (`a: &a [*a]`) is a cycle, and
    the walk stops there: expanded, it never ends.  Iterative, so depth cannot overflow the stack.

    A scalar counts 1 wherever it appears, so only collections are walked: a scalar costs one step of a
    list comprehension, not a loop turn (a config.yaml of 100k platform keys has 500k scalars).  Children
    are taken last first, the order the walk has always reported its first cycle in."""
    if root is None:
        return 0, None
    if isinstance(root, yaml.ScalarNode):
        return 1, None
    cap = MAX_EXPANDED_NODES * 10
    sizes: dict[int, int] = {}  # id(collection) -> its expanded size
    counting = {id(root)}  # collections whose children are being counted: the path from the root
    # one frame per collection on that path: [node, size so far, child collections (last first), next index]
    stack: list[list[Any]] = [_frame(root)]
    while stack:
        frame = stack[-1]
        collections = frame[2]
        if frame[3] < len(collections):
            child = collections[frame[3]]
            frame[3] += 1
            size = sizes.get(id(child))
            if size is not None:
                frame[1] += size
            elif id(child) in counting:
                return cap, child
            else:
                child_frame = _frame(child)
                if child_frame[2]:
                    counting.add(id(child))
                    stack.append(child_frame)
                else:  # only scalars below: sized at once (most of a big config's collections)
                    size = sizes[id(child)] = min(cap, child_frame[1])
                    frame[1] += size
            continue
        stack.pop()
        node = frame[0]
        counting.discard(id(node))
        size = sizes[id(node)] = min(cap, frame[1])
        if stack:
            stack[-1][1] += size
    return sizes[id(root)], None


def _frame(node: yaml.Node) -> list[Any]:
    """A walk frame for a collection: its own node and its scalar children counted, its child collections
    listed last first."""
    scalar = yaml.ScalarNode
    if node.__class__ is yaml.MappingNode:
        collections = [part for pair in reversed(node.value) for part in (pair[1], pair[0])
                       if part.__class__ is not scalar]
        return [node, 1 + 2 * len(node.value) - len(collections), collections, 0]
    collections = [child for child in reversed(node.value) if child.__class__ is not scalar]
    return [node, 1 + len(node.value) - len(collections), collections, 0]


def lookup(data: object, path: tuple[object, ...]) -> object:
    """The value at `path` in a parsed YAML document, or None where a step is missing or not a mapping:
    the one walk every reader of config.yaml uses."""
    node = data
    for part in path:
        node = node.get(part) if isinstance(node, dict) else None
        if node is None:
            return None
    return node
