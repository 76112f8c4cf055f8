"""The figures counted while grading equal their plain definitions over the calls listed, and a
case's reused pairing plan grades as a fresh one does."""

from __future__ import annotations

from statistics import fmean
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from builders_arguments import REFUND_SCHEMA, case, grade, run

TOOLS = {"refund": REFUND_SCHEMA, "lookup": {"type": "object", "properties": {"id": {}}}}
_REF_ARGS = st.sampled_from([
    {"order_id": "A1", "amount": 10},
    {"order_id": "A2", "amount": {"approx": 20, "tol": 1}, "reason": {"any": True}},
    {"id": "X"},
    {"id": {"absent": True}},
    {},
])
_CALL_ARGS = st.sampled_from([
    {"order_id": "A1", "amount": 10},
    {"order_id": "A2", "amount": 20.5, "reason": "broken"},
    {"order_id": "a2", "amount": -1},
    {"amount": 10, "colour": "red"},
    {"id": "X"},
    {"id": "Y", "extra": 1},
    {},
])
_TOOL = st.sampled_from(["refund", "lookup", "unknown"])


def _order(call: dict[str, Any]) -> tuple[int, int, int]:
    """Agent calls by step, then unpaired reference calls by reference index."""
    step, ref_index = call["step"], call["ref_index"]
    return (0, step, 0) if step is not None else (1, 0, ref_index or 0)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_TOOL, _REF_ARGS), min_size=1, max_size=3),
       st.lists(st.lists(st.tuples(_TOOL, _CALL_ARGS), max_size=4), min_size=1, max_size=3))
def test_counted_figures_are_their_definitions(refs: list[tuple[str, dict[str, Any]]],
                                               runs: list[list[tuple[str, Any]]]) -> None:
    graded = case(refs, TOOLS)
    for calls in runs:  # several runs of one case: its plan is reused
        result = grade(graded, run(*calls))
        figures: Any = result.figures
        listed = figures["calls"]
        paired = [c for c in listed if c["ref_index"] is not None and c["step"] is not None]
        accuracies = [c["field_accuracy"] for c in paired if c["field_accuracy"] is not None]
        assert listed == sorted(listed, key=_order)
        assert figures["field_accuracy"] == (fmean(accuracies) if accuracies else None)
        assert figures["invalid"] == sum(c["valid"] is False for c in listed)
        assert figures["wrong"] == sum(
            c["valid"] is not False and any(s in ("wrong", "missing") for s in c["fields"].values())
            for c in paired
        )
        fresh = grade(case(refs, TOOLS), run(*calls))  # a new case: a new plan
        assert result == fresh


def test_a_broken_schema_is_listed_once_per_tool() -> None:
    broken = {"type": "object", "properties": {"a": {"type": "no such type"}}}
    graded = case([("refund", {"order_id": "A1"})], {"refund": broken, "lookup": broken})
    result = grade(graded, run(("refund", {"order_id": "A1"}), ("lookup", {}),
                               ("refund", {"order_id": "A2"})))
    figures: Any = result.figures
    assert [e["tool"] for e in figures["schema_errors"]] == ["refund", "lookup"]
