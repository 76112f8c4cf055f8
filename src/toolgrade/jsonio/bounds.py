"""The bounds every JSON input is read within: nesting depth, one string's size, integer digits.

A hostile or broken input must end in a clear problem, never in a crash, a hang or a machine out
of memory. Python's `json` stops at the interpreter's recursion limit (a `RecursionError`) and
at `sys.get_int_max_str_digits()` digits (a bare `ValueError`); `loads_bounded` turns both into
`BoundsError` with a reason a person can act on, and refuses what parsed but no later stage
could hold safely: nesting past `MAX_DEPTH`, one string past `MAX_STRING_CHARS`.

The checks cost nothing on ordinary input: each is made only when a cheap look at the text
(its length, its bracket count) says the bound could be reached.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from toolgrade.errors import ToolgradeError

#: The deepest nesting of arrays and objects a value may hold. Outputs nest a run's values a few
#: levels deeper, still far from the interpreter's recursion limit.
MAX_DEPTH = 256

#: The longest single string a value may hold (16 Mi characters): far past any tool argument or
#: message, short of what would take a grading machine's memory when copied into every output.
MAX_STRING_CHARS = 16 * 1024 * 1024

#: The most digits an integer may have: Python's own limit for converting one to or from text
#: (4300 by default), past which no output could write it.
MAX_INT_DIGITS = sys.get_int_max_str_digits() or 4300

_LONG_INTEGER = re.compile(rf"\d{{{MAX_INT_DIGITS + 1},}}")


class BoundsError(ToolgradeError, ValueError):
    """A value outside the bounds; `reason` says which, in words for the input's author."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def loads_bounded(text: str, **options: Any) -> Any:
    """`json.loads(text, **options)` within the bounds.

    Raises `json.JSONDecodeError` for malformed JSON (as `json.loads` does), `BoundsError` for a
    value past a bound, and lets any other `ValueError` of a hook (a duplicate key) through.
    """
    try:
        value = json.loads(text, **options)
    except RecursionError:
        raise BoundsError(too_deep_reason()) from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:
        if "integer string conversion" not in str(exc):
            raise
        raise BoundsError(long_integer_reason(text)) from None
    reason = bounds_problem(text, value)
    if reason is not None:
        raise BoundsError(reason)
    return value


def loads_or_none(text: str) -> Any:
    """The value of JSON held in a string, or None when it is not JSON or is out of bounds:
    for text that only may hold JSON (a tool's result), which stays text when it does not."""
    try:
        return loads_bounded(text)
    except ValueError:
        return None


def bounds_problem(text: str, value: Any) -> str | None:
    """Why `value`, parsed from `text`, is out of bounds, or None (the text is looked at first,
    so the value is walked only when it could be)."""
    if too_deep(text, value):
        return too_deep_reason()
    if len(text) > MAX_STRING_CHARS:
        longest = longest_string(value)
        if longest > MAX_STRING_CHARS:
            return f"a string of {longest:,} characters (at most {MAX_STRING_CHARS:,})"
    return None


def too_deep_reason() -> str:
    """The words for a value nested past `MAX_DEPTH`."""
    return f"nested deeper than {MAX_DEPTH} levels"


def long_integer_reason(text: str) -> str:
    """The words for an integer with more digits than Python converts, with where it starts."""
    found = _LONG_INTEGER.search(text)
    if found is None:
        return f"an integer of more than {MAX_INT_DIGITS} digits"
    digits, start = len(found.group()), found.start()
    line_start = text.rfind("\n", 0, start) + 1
    where = f"column {start - line_start + 1}"
    if line_start:
        where = f"line {text.count(chr(10), 0, start) + 1}, {where}"
    return (
        f"an integer of {digits:,} digits at {where} (at most {MAX_INT_DIGITS}):"
        " write it as a string"
    )


def too_deep(text: str, value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether `value`, parsed from or written as `text`, nests deeper than `limit`; the brackets
    of the text are counted first, so the walk is made only for a text that could be."""
    return text.count("[") + text.count("{") > limit and value_depth(value) > limit


def value_depth(value: Any) -> int:
    """How deeply arrays and objects nest in `value` (a scalar is 0), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, level = stack.pop()
        children = node.values() if isinstance(node, dict) else node
        if isinstance(node, dict | list):
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in children if isinstance(child, dict | list))
    return deepest


def longest_string(value: Any) -> int:
    """The length of the longest string in `value` (keys included), without recursion."""
    longest, stack = 0, [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            longest = max(longest, len(node))
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return longest
