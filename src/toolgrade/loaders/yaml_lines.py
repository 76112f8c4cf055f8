"""YAML loading that remembers the line of every key and list item."""

from __future__ import annotations

from typing import Any

import yaml

from toolgrade.loaders.locate import Path_

#: A key written twice in one mapping: its path, the line of the repeat, the line of the first.
Duplicate = tuple[Path_, int, int]


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

    Raises `yaml.YAMLError` (with a problem mark) on malformed YAML.
    """
    loader = yaml.SafeLoader(text)
    dups: list[Duplicate] = []
    try:
        node = loader.get_single_node()
        if node is None:
            return None, {}, []
        _duplicates(node, (), dups, set())
        data = loader.construct_document(node)
    finally:
        loader.dispose()
    lines: dict[Path_, int] = {}
    _walk(node, (), lines)
    return data, lines, dups
