"""YAML loading that remembers the line of every key and list item, within bounds.

The bounds are those of JSON inputs (`jsonio.bounds`) plus one of YAML's own: an alias repeats
the node it names, so a kilobyte of nested aliases (a "billion laughs") expands into billions of
nodes. The node graph is measured before anything is built or walked, and a document whose
aliases expand past `MAX_ALIAS_NODES` is refused at the anchor that does it. An integer with more
digits than Python converts, or a string that is not Unicode text (an escaped lone surrogate,
`"\\ud800"`), is refused at its line: no output could write either.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.constructor import ConstructorError

from toolgrade.errors import ToolgradeError
from toolgrade.jsonio.bounds import MAX_DEPTH, MAX_INT_DIGITS, MAX_STRING_CHARS, too_deep_reason
from toolgrade.loaders.locate import Path_

#: A key written twice in one mapping: its path, the line of the repeat, the line of the first.
Duplicate = tuple[Path_, int, int]

#: How many nodes aliases may add to a document by repeating the nodes they name: far past what
#: a suite's shared specs need (the helpdesk example adds none), far short of a memory problem.
MAX_ALIAS_NODES = 100_000

#: Bits past which an integer has more decimal digits than `MAX_INT_DIGITS` (log2(10) < 3.33).
_MAX_INT_BITS = int(MAX_INT_DIGITS * 3.33)


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader refusing integers and strings that no output could write."""

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        """An integer within `MAX_INT_DIGITS` digits (sexagesimal ones included)."""
        text = str(node.value)
        if sum(c.isdigit() for c in text) > MAX_INT_DIGITS:
            raise _problem(node, f"an integer of more than {MAX_INT_DIGITS} digits:"
                                 " write it as a string")
        value: int = super().construct_yaml_int(node)
        if value.bit_length() > _MAX_INT_BITS:
            raise _problem(node, f"an integer of more than {MAX_INT_DIGITS} digits")
        return value

    def construct_yaml_str(self, node: yaml.ScalarNode) -> str:
        """A string that is Unicode text (no lone surrogate) within `MAX_STRING_CHARS`."""
        value = self.construct_scalar(node)
        assert isinstance(value, str)
        if len(value) > MAX_STRING_CHARS:
            raise _problem(node, f"a string of {len(value):,} characters"
                                 f" (at most {MAX_STRING_CHARS:,})")
        if not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as exc:
                code = ord(value[exc.start])
                raise _problem(node, f"a string holds a lone surrogate (\\u{code:04x}):"
                                     " not Unicode text") from None
        return value


_BoundedLoader.add_constructor("tag:yaml.org,2002:int", _BoundedLoader.construct_yaml_int)
_BoundedLoader.add_constructor("tag:yaml.org,2002:str", _BoundedLoader.construct_yaml_str)


class YamlBoundsError(ToolgradeError, ConstructorError):
    """Well-formed YAML holding a value past the bounds; its problem mark is the value's place."""


def _problem(node: yaml.Node, reason: str) -> YamlBoundsError:
    """A YAML error at `node`'s line, worded as the loaders' other problems."""
    return YamlBoundsError(None, None, reason, node.start_mark)


def _alias_problem(root: yaml.Node) -> YamlBoundsError | None:
    """The error for a document whose aliases expand past `MAX_ALIAS_NODES`, that nests
    deeper than `MAX_DEPTH`, or whose alias names a node that holds it (a cycle), or None.

    Each node's expanded size and depth are computed once (memoised by identity, children
    first, without recursion), so measuring a bomb costs as much as reading it as written.
    """
    sizes: dict[int, tuple[int, int]] = {}  # id -> (expanded size, depth)
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if id(node) in sizes:
            continue
        children = _children(node)
        if not children_done:
            if id(node) in open_nodes:
                return _problem(node, "an alias names a node that holds it: the value would"
                                      " be infinite")
            open_nodes.add(id(node))
            stack.append((node, True))
            stack.extend((child, False) for child in children if id(child) not in sizes)
            continue
        open_nodes.discard(id(node))
        size = 1 + sum(sizes[id(child)][0] for child in children)
        depth = 1 + max((sizes[id(child)][1] for child in children), default=0)
        sizes[id(node)] = (size, depth)
        if size - len(sizes) > MAX_ALIAS_NODES:
            return _problem(node, f"aliases expand the document past {MAX_ALIAS_NODES:,} nodes"
                                  " (the node here repeats nodes that are themselves repeated):"
                                  " write the values out")
        if depth > MAX_DEPTH:
            return _problem(node, too_deep_reason())
    return None


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _walk(node: yaml.Node, path: Path_, lines: dict[Path_, int]) -> None:
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key: str | int = key_node.value
            lines[(*path, key)] = key_node.start_mark.line + 1
            _walk(value_node, (*path, key), lines)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, (*path, index), lines)


def _duplicates(node: yaml.Node, path: Path_, dups: list[Duplicate], seen: set[int]) -> None:
    """Keys written twice in one mapping, on the nodes as written: before construction, which
    flattens `<<:` merges into the mapping (a merged key a mapping overrides is no duplicate).
    An aliased node is visited once."""
    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, yaml.MappingNode):
        first: dict[str | int, int] = {}
        for key_node, value_node in node.value:
            key: str | int = key_node.value
            line = key_node.start_mark.line + 1
            if key in first and key_node.tag != "tag:yaml.org,2002:merge":
                dups.append(((*path, key), line, first[key]))
            first.setdefault(key, line)
            _duplicates(value_node, (*path, key), dups, seen)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _duplicates(item, (*path, index), dups, seen)


def load_yaml_with_lines(text: str) -> tuple[Any, dict[Path_, int], list[Duplicate]]:
    """Parse one YAML document; return the data, a map from key path to 1-based line, and the
    keys written twice in one mapping (YAML keeps the last silently; we report them).

    Raises `yaml.YAMLError` (with a problem mark) on malformed YAML or a value past the bounds.
    """
    loader = _BoundedLoader(text)
    dups: list[Duplicate] = []
    try:
        node = loader.get_single_node()
        if node is None:
            return None, {}, []
        too_many = _alias_problem(node)
        if too_many is not None:
            raise too_many
        _duplicates(node, (), dups, set())
        data = loader.construct_document(node)
    finally:
        loader.dispose()
    lines: dict[Path_, int] = {}
    _walk(node, (), lines)
    return data, lines, dups
