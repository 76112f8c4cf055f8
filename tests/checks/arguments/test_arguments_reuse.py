"""Grading reuses the field comparisons made while pairing, unless a judge could change them."""

from __future__ import annotations

from typing import Any

import pytest

from builders_arguments import REFUND_SCHEMA, FakeJudge, case, grade, run
from toolgrade.checks.arguments import check as arguments
from toolgrade.checks.arguments.pairing import compare

TOOLS = {"refund": REFUND_SCHEMA}
CALL = {"order_id": "A123", "amount": 25.0, "reason": "it broke"}


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every top-level field comparison the arguments check makes, as (field, ask given)."""
    seen: list[Any] = []

    def counting(cmp: Any, present: bool, value: Any, path: str, ask: Any) -> Any:
        seen.append((path, ask is not None))
        return compare(cmp, present, value, path, ask)

    monkeypatch.setattr(arguments, "compare", counting)
    return seen


def test_deterministic_fields_are_compared_once(counted: list[Any]) -> None:
    ref = {"order_id": "A123", "amount": {"approx": 25.0, "tol": 0.01}, "reason": {"any": True}}
    result = grade(case([("refund", ref)], TOOLS), run(("refund", CALL)))
    assert result.passed is True
    assert sorted(counted) == [("amount", False), ("order_id", False), ("reason", False)]


def test_a_semantic_field_is_compared_again_with_the_judge(counted: list[Any]) -> None:
    ref = {"order_id": "A123", "reason": {"semantic": "the item was damaged"}}
    judge = FakeJudge("pass")
    result = grade(case([("refund", ref)], TOOLS), run(("refund", CALL)), judge)
    assert result.passed is True and len(judge.requests) == 1
    assert sorted(counted) == [
        ("order_id", False),
        ("order_id", True),
        ("reason", False),
        ("reason", True),
    ]


def test_semantic_inside_one_of_also_asks_the_judge(counted: list[Any]) -> None:
    ref = {"reason": {"one_of": ["x", {"semantic": "the item was damaged"}]}}
    judge = FakeJudge("fail")
    result = grade(case([("refund", ref)], TOOLS), run(("refund", CALL)), judge)
    assert len(judge.requests) == 1 and result.passed is False
    assert [ask for _, ask in counted] == [False, True]


def test_reused_and_recomputed_results_agree_on_several_pairs() -> None:
    ref_a = {"order_id": "A1", "amount": 10}
    ref_b = {"order_id": "B2", "amount": {"approx": 20, "tol": 1}}
    calls = [
        ("refund", {"order_id": "B2", "amount": 20.5}),
        ("refund", {"order_id": "A1", "amount": 11}),
    ]
    result = grade(case([("refund", ref_a), ("refund", ref_b)], TOOLS), run(*calls))
    fields = [(c["ref_index"], c["fields"]) for c in result.figures["calls"]]
    assert fields == [
        (1, {"order_id": "match", "amount": "match"}),
        (0, {"order_id": "match", "amount": "wrong"}),
    ]
