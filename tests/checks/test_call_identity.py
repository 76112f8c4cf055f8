"""The flat-arguments shortcut of `call_identity` is the recursive identity."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.checks import call_identity
from toolgrade.checks.ordering import call_key
from toolgrade.models import ToolCall

#: Flat values, the shortcut's (str, int) and the ones it must leave to the recursion.
FLAT = st.sampled_from([0, 1, -1, 10**20, "", "1", "x", True, False, None, 1.0, 0.5, [1]])


def _recursive(value: dict[str, Any]) -> Any:
    """The identity of an object field by field, as `_value` builds it without the shortcut."""
    fields = {str(k): call_identity._value(v) for k, v in value.items()}
    return (call_identity._DICT, tuple(sorted(fields.items())))


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.sampled_from(["p", "q", "r"]), FLAT, max_size=3))
def test_flat_arguments_take_the_shortcut_to_the_same_identity(args: dict[str, Any]) -> None:
    assert call_identity._value(args) == _recursive(args)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["p", "q"]), FLAT, max_size=2),
       st.dictionaries(st.sampled_from(["p", "q"]), FLAT, max_size=2))
def test_flat_identities_are_equal_exactly_when_call_keys_are(
    x: dict[str, Any], y: dict[str, Any]
) -> None:
    a, b = ToolCall(tool="t", args=x), ToolCall(tool="t", args=y)
    assert (call_identity.identity(a) == call_identity.identity(b)) == (call_key(a) == call_key(b))
