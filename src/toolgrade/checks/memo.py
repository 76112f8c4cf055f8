"""Remembered verdicts of pure per-call functions, so identical calls are graded once.

Trials of one agent on one case repeat most of their calls exactly (the same tool with the same
arguments), and a suite reuses one tool catalogue. Whether a call is schema-valid, and how its
fields compare with a reference call that holds no judged field, depend only on the call's
arguments and on an object that lives as long as the suite (the tool's `ToolSpec`, the parsed
reference). Those verdicts are remembered here, keyed by that object's identity and the exact
JSON text of the arguments, in the order they were given: `5` and `5.0`, `1` and `true`, or two
orderings of one object never share an entry, so a remembered verdict is byte for byte the one
that would be computed again.

Each memo is bounded: when full it is emptied and refilled (a long-lived process grading many
suites stays small). `enabled` turns every memo off, for benchmarks that measure the cost of
grading each call afresh.
"""

from __future__ import annotations

import json
from typing import Any, Generic, TypeVar

from toolgrade.models import ToolCall

Value = TypeVar("Value")

#: Set False to grade every call afresh (benchmarks); verdicts are the same either way.
enabled = True

_ENCODER = json.JSONEncoder(check_circular=False, allow_nan=True)


def args_key(call: ToolCall) -> str | None:
    """The exact JSON text of a call's tool and arguments; None when it cannot be remembered
    (arguments that are not plain JSON values, or unparseable arguments)."""
    if not enabled or call.raw_arguments is not None:
        return None
    try:
        return call.tool + "\x00" + _ENCODER.encode(call.args)
    except (TypeError, ValueError):
        return None


class IdentityMemo(Generic[Value]):
    """Values by (owner object, arguments key). Each entry holds its owner, so the owner's
    identity cannot be reused by another object while the entry exists."""

    def __init__(self, limit: int = 65536) -> None:
        self._limit = limit
        self._entries: dict[tuple[int, str], tuple[Any, Value]] = {}
        self.hits = 0
        self.misses = 0

    def get(self, owner: object, key: str | None) -> Value | None:
        """The remembered value, or None (also when `key` is None)."""
        if key is None:
            return None
        hit = self._entries.get((id(owner), key))
        if hit is not None and hit[0] is owner:
            self.hits += 1
            return hit[1]
        self.misses += 1
        return None

    def put(self, owner: object, key: str | None, value: Value) -> None:
        """Remember `value` (nothing happens when `key` is None)."""
        if key is None:
            return
        if len(self._entries) >= self._limit:
            self._entries.clear()
        self._entries[id(owner), key] = (owner, value)

    def clear(self) -> None:
        """Forget every entry and reset the counters."""
        self._entries.clear()
        self.hits = self.misses = 0
