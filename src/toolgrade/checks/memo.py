"""A bounded memo keyed on an object's identity, for what a check derives from a frozen case.

A case and its reference calls are frozen and graded once per run, so what a check derives from
them (parsed comparators, folded text, per-case plans) can be kept per object. It lives beside
the checks, not inside one of them, so that every check may use it without importing another.

Keys are `id(obj)`; each entry holds its object, so the id stays its own while the entry lives.
Past `limit` entries the memo starts afresh.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class IdentityMemo(Generic[K, V]):
    """`memo(obj, make)`: `make(obj)` computed once per object (by identity)."""

    def __init__(self, limit: int = 8192) -> None:
        self._entries: dict[int, tuple[K, V]] = {}
        self._limit = limit

    def __call__(self, obj: K, make: Callable[[K], V]) -> V:
        """The value made for `obj`, made now if it was not yet."""
        hit = self._entries.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        value = make(obj)
        if len(self._entries) >= self._limit:
            self._entries.clear()
        self._entries[id(obj)] = (obj, value)
        return value
