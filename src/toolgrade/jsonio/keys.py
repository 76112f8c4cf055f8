"""JSON objects that name a key twice: refused, never read as the last one.

Python's `json` keeps the last value of a repeated key silently. In a suite that drops an
expectation without a word; in a judge's reply it hides which verdict the model meant. Both
readers pass `unique_keys` as the decoder's `object_pairs_hook`.
"""

from __future__ import annotations

from toolgrade.errors import ToolgradeError
from toolgrade.jsonio.values import JsonObject, JsonValue


class DuplicateKeyError(ToolgradeError, ValueError):
    """An object names `key` twice."""

    def __init__(self, key: str) -> None:
        super().__init__(f"duplicate key {key!r} (JSON readers would keep only the last)")
        self.key = key


def unique_keys(pairs: list[tuple[str, JsonValue]]) -> JsonObject:
    """The object of `pairs`; `DuplicateKeyError` when a key repeats."""
    value = dict(pairs)
    if len(value) < len(pairs):  # only then look for the key that repeats
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return value
