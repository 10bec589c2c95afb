"""An answers file read into a tree of located values, refusing hostile YAML before it is built.

`read_tree(raw, name)` turns the bytes of an answers file into `Item`s: each holds a plain value (a
dict of str → Item, a list of Items, or a scalar: str, int, bool or None) and where it came from
("answers.yaml:7"), so every later complaint names the file and the line.  The flags of `setup`
build the same tree (with "--allow" and the like as the place), so both meet one validator.

Refused, with a located message and before anything is built: a file over MAX_BYTES, bytes that are
not UTF-8, more than one document, anchors and aliases (an alias bomb is all aliases; an answers
file never needs one), explicit tags, nesting deeper than MAX_DEPTH, a duplicated key (YAML keeps
the last silently; a declared configuration must not mean two things).  The event stream is
checked first, iteratively, so the composer never recurses into a hostile depth.

Contract: pure; `TreeError.problems` holds every complaint found, in file order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterable

    import yaml

import yaml

from hermes_wizard.core.values import Value, value_class

MAX_BYTES = 256 * 1024  # a fleet's answers are a few hundred bytes; this is a hundred times that
MAX_DEPTH = 8  # platforms → name → env → KEY → from_env is 5 deep


@value_class
class Item(Value):
    value: Any
    where: str  # "file:line", or the command-line flag it came from

    def kind(self) -> str:
        """The value's type as the user would name it (for "expected a list, got a string")."""
        if isinstance(self.value, dict):
            return "a mapping"
        if isinstance(self.value, list):
            return "a list"
        if isinstance(self.value, bool):
            return f"the boolean {'true' if self.value else 'false'}"
        if self.value is None:
            return "nothing (null)"
        return "a number" if isinstance(self.value, Number) else "a string"


class TreeError(ValueError):
    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def read_tree(raw: bytes, name: str) -> Item:
    """The answers file `name` (its bytes `raw`) as a tree of Items; TreeError when it cannot be."""
    if len(raw) > MAX_BYTES:
        raise TreeError([f"{name}: {len(raw)} bytes; an answers file is at most {MAX_BYTES} bytes"])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TreeError([f"{name}: not UTF-8 text (byte {exc.start})"]) from None
    try:
        problems = _hostile(yaml.parse(text, Loader=yaml.SafeLoader), name)
        if problems:
            raise TreeError(problems)
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{name}:{mark.line + 1}" if mark is not None else name
        raise TreeError([f"{where}: not valid YAML: {exc.problem or exc.context}"]) from None
    except yaml.YAMLError as exc:
        raise TreeError([f"{name}: not valid YAML: {exc}"]) from None
    if node is None:
        return Item({}, f"{name}:1")
    problems = []
    tree = _item(node, name, problems)
    if problems:
        raise TreeError(problems)
    return tree


def _hostile(events: Iterable[yaml.Event], name: str) -> list[str]:
    problems, depth, documents = [], 0, 0
    for event in events:
        where = f"{name}:{event.start_mark.line + 1}" if event.start_mark is not None else name  # the parser marks all
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            return [f"{where}: anchors and aliases (&name, *name) are not accepted in an answers file; "
                    "write each value out"]
        if (tag := getattr(event, "tag", None)) is not None:  # `!!str 1`, `!!python/...`: say it plainly instead
            problems.append(f"{where}: YAML tags such as {tag} are not accepted; quote a string instead")
        if isinstance(event, yaml.DocumentStartEvent):
            documents += 1
            if documents > 1:
                return problems + [f"{where}: more than one YAML document; an answers file is one"]
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                return problems + [f"{where}: nested {depth} levels deep; an answers file needs at most "
                                   f"{MAX_DEPTH}"]
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
    return problems


def _item(node: yaml.Node, name: str, problems: list[str]) -> Item:
    where = f"{name}:{node.start_mark.line + 1}"
    if isinstance(node, yaml.MappingNode):
        out: dict[str, Item] = {}
        for key_node, value_node in node.value:
            key = _item(key_node, name, problems)
            if not isinstance(key.value, str):
                problems.append(f"{key.where}: a key must be a name, not {key.kind()}")
                continue
            if key.value in out:
                problems.append(f"{key.where}: {key.value!r} is given twice (first at line "
                                f"{out[key.value].where.rsplit(':', 1)[-1]})")
                continue
            value = _item(value_node, name, problems)
            if isinstance(value_node, (yaml.MappingNode, yaml.SequenceNode)):
                value = Item(value.value, key.where)  # a block collection starts a line below its key: name the key's
            out[key.value] = value
        return Item(out, where)
    if isinstance(node, yaml.SequenceNode):
        return Item([_item(child, name, problems) for child in node.value], where)
    return Item(_scalar(node), where)


def _scalar(node: yaml.Node) -> bool | str | None:
    """The scalar as YAML 1.1 reads it, but numbers keep the text they were written as (an ID such as
    0123 or 1e5 is an ID, not an octal or a float)."""
    tag = node.tag.rsplit(":", 1)[-1]
    if tag == "bool":
        return node.value.lower() in ("true", "yes", "on", "y")
    if tag == "null":
        return None
    if tag in ("int", "float"):
        return Number(node.value)
    return str(node.value)  # a scalar node's value is its text


class Number(str):
    """A scalar YAML reads as a number, kept as written (`kind()` still says "a number")."""
