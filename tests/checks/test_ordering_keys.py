"""Call keys computed once per grade: equal exactly when the calls' `call_key`s are equal."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.checks.ordering import aligned_names, call_key, call_keys
from toolgrade.models import ToolCall

VALUES = st.sampled_from([1, 1.0, 2, True, "1", None, [1], [1.0], {"k": 1}, {"k": 1.0}])


@st.composite
def calls(draw: st.DrawFn) -> list[tuple[int, ToolCall]]:
    """A few calls over few tools and few argument values, so that repeats are common."""
    out = []
    for step in range(draw(st.integers(min_value=0, max_value=8))):
        tool = draw(st.sampled_from(["a", "b", "", "c\x00"]))
        if draw(st.integers(0, 9)) == 0:
            out.append((step, ToolCall(tool=tool, raw_arguments=draw(st.sampled_from(["x", "{"])))))
            continue
        args: dict[str, Any] = draw(
            st.dictionaries(st.sampled_from(["p", "q"]), VALUES, max_size=2)
        )
        out.append((step, ToolCall(tool=tool, args=args)))
    return out


@settings(max_examples=300, deadline=None)
@given(calls())
def test_keys_are_equal_exactly_when_call_keys_are(run: list[tuple[int, ToolCall]]) -> None:
    keys = call_keys(run)
    full = [call_key(c) for _, c in run]
    for i in range(len(run)):
        for j in range(len(run)):
            assert (keys[i] == keys[j]) == (full[i] == full[j])


def test_a_tool_called_once_is_never_serialised() -> None:
    once = ToolCall(tool="a", args={"x": 1})
    keys = call_keys([(0, once), (1, ToolCall(tool="b")), (2, ToolCall(tool="b"))])
    assert keys[0] != call_key(once)
    assert keys[1] == keys[2] == call_key(ToolCall(tool="b"))


@settings(max_examples=100, deadline=None)
@given(calls(), st.lists(st.sampled_from(["a", "b", "c"]), max_size=5))
def test_without_groups_the_aligned_names_are_the_call_order(
    run: list[tuple[int, ToolCall]], reference: list[str]
) -> None:
    assert aligned_names([c for _, c in run], reference) == [c.tool for _, c in run]
