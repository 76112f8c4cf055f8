"""YAML loading that remembers the line of every key and list item."""

from __future__ import annotations

from typing import Any

import yaml

from toolgrade.loaders.locate import Path_


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


def load_yaml_with_lines(text: str) -> tuple[Any, dict[Path_, int]]:
    """Parse one YAML document; return the data and a map from key path to 1-based line.

    Raises `yaml.YAMLError` (with a problem mark) on malformed YAML.
    """
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, {}
        data = loader.construct_document(node)
    finally:
        loader.dispose()
    lines: dict[Path_, int] = {}
    _walk(node, (), lines)
    return data, lines
