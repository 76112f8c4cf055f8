"""One walker over nested JSON values: every scalar with its path and its nearest key.

Tool results and arguments nest objects in lists in objects, and agents' tools often return
JSON inside a JSON string (`"content": "{\"status\": \"ok\"}"`). `leaves(value, decode=True)`
reads such a string as the value it encodes, so what a check or a judge signal looks for is
found however many times the result was encoded; `decode=False` keeps every string as written.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from toolgrade.jsonio.bounds import loads_or_none


@dataclass(frozen=True)
class Leaf:
    """One scalar of a nested value: `path` (`items[0].sku`), the nearest enclosing object
    `key` ("" at the top or in a top-level list) and the `value` (str, number, bool or None)."""

    path: str
    key: str
    value: Any


def decoded(text: str) -> Any:
    """The JSON value `text` holds when it holds an object or a list, else `text` itself.

    A string that merely parses as a scalar ("12", "true") stays the string it is: it was
    written as text.
    """
    stripped = text.lstrip()
    if not stripped or stripped[0] not in "[{":
        return text
    value = loads_or_none(text)  # bounded: a hostile string stays text, never a deep walk
    return value if isinstance(value, dict | list) else text


def leaves(value: Any, *, decode: bool = False, path: str = "",
           key: str = "") -> Iterator[Leaf]:
    """Every scalar inside `value`, depth first, in document order."""
    if decode and isinstance(value, str):
        inner = decoded(value)
        if inner is not value:
            yield from leaves(inner, decode=True, path=path, key=key)
            return
    if isinstance(value, Mapping):
        for k, item in value.items():
            name = str(k)
            yield from leaves(item, decode=decode, path=f"{path}.{name}" if path else name,
                              key=name)
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from leaves(item, decode=decode, path=f"{path}[{i}]", key=key)
    else:
        yield Leaf(path, key, value)


def keys_and_scalars(value: Any, *, decode: bool = False) -> Iterator[str]:
    """Every object key and every non-null scalar as text, in document order: the words a
    text scan of a JSON value should see."""
    if decode and isinstance(value, str):
        inner = decoded(value)
        if inner is not value:
            yield from keys_and_scalars(inner, decode=True)
            return
    if isinstance(value, Mapping):
        for k, item in value.items():
            yield str(k)
            yield from keys_and_scalars(item, decode=decode)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from keys_and_scalars(item, decode=decode)
    elif value is not None:
        yield value if isinstance(value, str) else str(value)
