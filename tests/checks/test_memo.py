"""Remembered per-call verdicts: exact keys, identity-bound entries, and the same results."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builders_arguments import REFUND_SCHEMA, case, grade, run
from toolgrade.checks import arguments, memo, schema_validity
from toolgrade.checks.memo import IdentityMemo, args_key
from toolgrade.models import Message, ToolCall

TOOLS = {"refund": REFUND_SCHEMA}
REF = {"order_id": "A123", "amount": {"approx": 25.0, "tol": 0.01}, "speed": "express"}


@pytest.fixture
def memo_off() -> Iterator[None]:
    """Grade every call afresh for the duration of a test."""
    memo.enabled = False
    try:
        yield
    finally:
        memo.enabled = True


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ({"n": 5}, {"n": 5.0}),
        ({"n": 1}, {"n": True}),
        ({"n": "5"}, {"n": 5}),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}),
        ({"x": None}, {}),
    ],
)
def test_args_key_tells_apart_what_grading_could_tell_apart(
    a: dict[str, Any], b: dict[str, Any]
) -> None:
    assert args_key(ToolCall(tool="t", args=a)) != args_key(ToolCall(tool="t", args=b))


def test_args_key_includes_the_tool() -> None:
    assert args_key(ToolCall(tool="a", args={})) != args_key(ToolCall(tool="b", args={}))


def test_unparseable_or_non_json_arguments_are_not_remembered() -> None:
    assert args_key(ToolCall(tool="t", raw_arguments="{oops")) is None
    assert args_key(ToolCall(tool="t", args={"when": object()})) is None


def test_args_key_is_none_when_memos_are_off(memo_off: None) -> None:
    assert args_key(ToolCall(tool="t", args={"a": 1})) is None


def test_identity_memo_is_bound_to_its_owner_object() -> None:
    cache: IdentityMemo[int] = IdentityMemo()
    owner, other = {"x": 1}, {"x": 1}
    cache.put(owner, "k", 7)
    assert cache.get(owner, "k") == 7
    assert cache.get(other, "k") is None  # an equal but different owner does not share
    assert cache.get(owner, None) is None
    assert (cache.hits, cache.misses) == (1, 1)


def test_identity_memo_stays_within_its_limit() -> None:
    cache: IdentityMemo[int] = IdentityMemo(limit=3)
    owner = object()
    for n in range(10):
        cache.put(owner, str(n), n)
    assert len(cache._entries) <= 3
    assert cache.get(owner, "9") == 9


def test_a_valid_call_is_validated_once_per_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    c = case([("refund", REF)], TOOLS)
    calls: list[Any] = []
    real = schema_validity._flat_undeclared

    def counting(plan: Any, args: Any) -> Any:
        calls.append(args)
        return real(plan, args)

    monkeypatch.setattr(schema_validity, "_flat_undeclared", counting)
    good = run(("refund", {"order_id": "A123", "amount": 25.0, "speed": "express"}))
    first, second = grade(c, good), grade(c, good)
    assert first == second and first.passed is True
    assert len(calls) == 1


def test_an_invalid_call_is_validated_every_time_with_its_own_step() -> None:
    c = case([("refund", REF)], TOOLS)
    bad = {"order_id": "A123", "amount": -1, "speed": "express"}
    early = grade(c, run(("refund", bad)))
    late = grade(c, run(Message(role="user", content="refund it"), ("refund", bad)))
    invalid = [f for r in (early, late) for f in r.failures if f.name == "out_of_range"]
    assert [f.step for f in invalid] == [0, 1]


_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 30),
    st.floats(-3, 30, allow_nan=False),
    st.sampled_from(["A123", "a123", "B9", "express", "standard", "slow", ""]),
)
_ARGS = st.dictionaries(st.sampled_from(["order_id", "amount", "speed", "extra"]), _VALUES)


@settings(max_examples=60, deadline=None)
@given(st.lists(_ARGS, min_size=1, max_size=4))
def test_remembered_verdicts_equal_fresh_ones(calls: list[dict[str, Any]]) -> None:
    c = case([("refund", REF), ("refund", {"order_id": "B9", "amount": 3})], TOOLS)
    r = run(*[("refund", a) for a in calls])
    warm = [grade(c, r), grade(c, r)]  # the second is served from the memos
    memo.enabled = False
    try:
        fresh = grade(c, r)
    finally:
        memo.enabled = True
    assert warm[0].model_dump() == fresh.model_dump() == warm[1].model_dump()


def test_settled_field_results_are_shared_between_runs() -> None:
    c = case([("refund", REF)], TOOLS)
    r = run(("refund", {"order_id": "A123", "amount": 25.0, "speed": "express"}))
    before = arguments._SETTLED.hits
    grade(c, r)
    grade(c, r)
    assert arguments._SETTLED.hits > before
