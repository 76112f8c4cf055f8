"""A call's identity as a hashable value, for the repeat detectors (loops, redundant calls).

`ordering.call_key` names a call by its tool and the JSON of its arguments (sorted keys,
integral floats as ints). Serialising every repeated call's arguments cost more than the rest
of the repeat detection; `identity` builds a nested tuple instead that is equal for two calls
exactly when their `call_key`s are: bools are told from ints, strings from numbers, lists
from objects, every NaN equals every other (JSON writes each as `NaN`), and a value JSON would
write through `str` is its `str`.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any

from toolgrade.models import ToolCall

# Tags of the tuples built for non-string values: no string or number is a tuple, so a tagged
# tuple can only equal one built for the same kind of value.
_BOOL, _LIST, _DICT, _NAN = 0, 1, 2, 3

#: The exact types `_value` returns unchanged (not their subclasses: a bool is an int).
_AS_IS = frozenset({str, int})


def identity(call: ToolCall) -> Hashable:
    """`(tool, arguments)` as a hashable value, equal exactly when the `call_key`s are."""
    payload: Any = {"raw": call.raw_arguments} if call.raw_arguments is not None else call.args
    return (call.tool, _object(payload))  # the payload is an object: straight to its branch


def _value(value: Any) -> Hashable:
    """One JSON value as JSON equality would compare it after `ordering.repeats._canon`."""
    if isinstance(value, str):
        return str(value)
    if value is None:
        return None
    if value is True or value is False:
        return (_BOOL, value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if math.isnan(value):
            return (_NAN,)
        return int(value) if value.is_integer() else float(value)
    if isinstance(value, dict):
        return _object(value)
    if isinstance(value, list | tuple):
        return (_LIST, tuple(_value(v) for v in value))
    return str(value)  # what `default=str` would write


def _object(value: dict[Any, Any]) -> Hashable:
    """`_value` of a JSON object: its fields' values, sorted by key."""
    if all(type(k) is str and type(v) in _AS_IS for k, v in value.items()):
        # The usual arguments, flat strings and ints: each field is its own `_value`.
        items = tuple(value.items())
        return (_DICT, tuple(sorted(items)) if len(items) > 1 else items)
    fields = {str(k): _value(v) for k, v in value.items()}
    return (_DICT, tuple(sorted(fields.items())))


class _Unkeyed(Exception):
    """A value `exact_key` cannot stand for (a type JSON does not have)."""


def exact_key(value: Any) -> Hashable | None:
    """A hashable value equal for two JSON values exactly when they are the same value written
    the same way: same types (5 is not 5.0, True is not 1), same key order, -0.0 apart from 0.0.
    None for a value holding a type JSON does not have (then nothing is to be reused)."""
    try:
        return _exact(value)
    except _Unkeyed:
        return None


def _exact(value: Any) -> Hashable:
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return (kind, value)
    if kind is float:
        return (kind, value.hex())  # tells -0.0 from 0.0; every NaN writes alike
    if kind is dict:
        return (kind, tuple((k, _exact(v)) for k, v in value.items()))
    if kind is list:
        return (kind, tuple(_exact(v) for v in value))
    raise _Unkeyed
