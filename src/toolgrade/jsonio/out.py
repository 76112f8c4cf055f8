"""JSON text for what toolgrade writes: always valid JSON, whatever numbers a run held.

Python's `json` writes a float it cannot represent as the bare tokens `NaN` or `Infinity`, which
no other JSON reader accepts. Such a float can only come from the input (a number too large for
a float, such as `1e999`) or from an agent the harness recorded; it is written as the string
`"Infinity"`, `"-Infinity"` or `"NaN"` instead, so every output line still parses.
"""

from __future__ import annotations

import json
import math
from typing import Any

_NON_FINITE = "Out of range float values are not JSON compliant"


def dumps(value: Any, **options: Any) -> str:
    """`json.dumps(value, **options)`, with non-finite floats written as strings."""
    try:
        return json.dumps(value, allow_nan=False, **options)
    except ValueError as exc:
        if not str(exc).startswith(_NON_FINITE):
            raise
    return json.dumps(finite(value), allow_nan=False, **options)


def finite(value: Any) -> Any:
    """A copy of `value` whose non-finite floats are strings; the rest is left as it is."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value
