"""Ordering shortcuts agree with what they replace.

Call keys computed once per grade are equal exactly when the calls' `call_key`s are; group-free
runs align to their call order; `matching_events` selects the events a per-event predicate accepts.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.checks.ordering import aligned_names, call_identities, call_key, call_keys
from toolgrade.checks.ordering.points import Event, matching_events
from toolgrade.models import ANSWER, OrderingExpectation, ToolCall

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


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b", "c", ANSWER]), st.sampled_from([None, 1, "m2"])),
        max_size=6,
    ),
    st.sampled_from(["a", "b", ANSWER, "@reads", "@none"]),
)
def test_matching_selects_what_the_predicate_accepts(raw: list[tuple[str, Any]], side: str) -> None:
    ordering = OrderingExpectation(groups={"reads": ["a", "c"], "none": []})
    events = [
        Event(i, name, group, is_answer=name == ANSWER) for i, (name, group) in enumerate(raw)
    ]
    expected = [e for e in events if _accepts(side, ordering, e)]
    assert matching_events(side, events, ordering) == expected


def _accepts(side: str, ordering: OrderingExpectation, event: Event) -> bool:
    """The per-event reading of a constraint side, written out plainly as the oracle."""
    if side == ANSWER:
        return event.is_answer
    if side.startswith("@"):
        return not event.is_answer and event.name in ordering.groups[side[1:]]
    return not event.is_answer and event.name == side


def test_an_unknown_group_is_an_error() -> None:
    ordering = OrderingExpectation()
    with pytest.raises(ValueError, match="unknown ordering group '@x'"):
        matching_events("@x", [Event(0, "a")], ordering)


#: Values JSON equality treats in ways Python equality does not (NaN, -0.0, bools, strings that
#: read like other values), nested, and an object that only `default=str` can write.
WIDE = st.recursive(
    st.sampled_from([1, 1.0, -0.0, 0, 0.5, True, False, None, "1", "true", "null", "NaN",
                     float("nan"), float("inf"), 10**20, 1e20, "x"]),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(
        st.sampled_from(["p", "q"]), inner, max_size=2),
    max_leaves=4,
)


@st.composite
def wide_calls(draw: st.DrawFn) -> list[tuple[int, ToolCall]]:
    """Calls of one tool, so that every key is an identity, with awkward argument values."""
    out = []
    for step in range(draw(st.integers(min_value=2, max_value=6))):
        if draw(st.integers(0, 5)) == 0:
            raw = draw(st.sampled_from(["x", "{"]))
            out.append((step, ToolCall(tool="t", raw_arguments=raw)))
            continue
        args = draw(st.dictionaries(st.sampled_from(["p", "raw"]), WIDE, max_size=2))
        out.append((step, ToolCall(tool="t", args=args)))
    return out


@settings(max_examples=400, deadline=None)
@given(wide_calls())
def test_identities_are_equal_exactly_when_call_keys_are(run: list[tuple[int, ToolCall]]) -> None:
    keys = call_identities(run)
    full = [call_key(c) for _, c in run]
    for i in range(len(run)):
        for j in range(len(run)):
            assert (keys[i] == keys[j]) == (full[i] == full[j]), (run[i][1], run[j][1])


def test_raw_arguments_and_a_raw_field_share_a_key() -> None:
    # call_key writes both as {"raw": "x"}; the identity must not tell them apart either.
    raw, field = ToolCall(tool="t", raw_arguments="x"), ToolCall(tool="t", args={"raw": "x"})
    assert call_key(raw) == call_key(field)
    keys = call_identities([(0, raw), (1, field)])
    assert keys[0] == keys[1]


@settings(max_examples=300, deadline=None)
@given(calls())
def test_identities_agree_with_call_keys_across_tools(run: list[tuple[int, ToolCall]]) -> None:
    keys, identities = call_keys(run), call_identities(run)
    for i in range(len(run)):
        for j in range(len(run)):
            assert (keys[i] == keys[j]) == (identities[i] == identities[j])
