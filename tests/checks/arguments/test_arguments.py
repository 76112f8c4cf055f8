"""The arguments check: failures, optimal pairing, semantic judging, figures and the summary."""

from __future__ import annotations

from typing import Any

import pytest

from builders_arguments import REFUND_SCHEMA, FakeJudge, ForbiddenJudge, case, grade, names, run
from toolgrade.checks.arguments import ArgumentsCheck, call_agreement
from toolgrade.checks.arguments.comparators import parse_args
from toolgrade.models import JUDGE_INPUTS, Aggregate, Message, ToolCall, TrajectoryResult

TOOLS = {"refund": REFUND_SCHEMA}
REF = {"order_id": "A123", "amount": {"approx": 25.0, "tol": 0.01}}


def refund_case(args: dict[str, Any] = REF, **kw: Any) -> Any:
    """One expected refund call against the refund schema."""
    return case([("refund", args)], TOOLS, **kw)


# --- applicability and the happy path -------------------------------------------------------


def test_not_applicable_without_reference() -> None:
    result = grade(case(None, TOOLS), run(("refund", {"order_id": "A123", "amount": 25})))
    assert (result.applicable, result.passed, result.score) == (False, None, None)


def test_exact_valid_call_passes() -> None:
    result = grade(
        refund_case(), run(Message(role="user"), ("refund", {"order_id": "A123", "amount": 25.0}))
    )
    assert (result.passed, result.score, result.failures) == (True, 1.0, [])
    assert result.figures["calls"] == [
        {
            "tool": "refund",
            "step": 1,
            "ref_index": 0,
            "exact": True,
            "valid": True,
            "field_accuracy": 1.0,
            "fields": {"order_id": "match", "amount": "match"},
        }
    ]
    assert (result.figures["invalid"], result.figures["wrong"]) == (0, 0)


# --- each failure name on a minimal case -----------------------------------------------------


@pytest.mark.parametrize(
    ("args", "name", "field"),
    [
        ({"order_id": "A123"}, "missing_required", "amount"),
        ({"order_id": "A123", "amount": "25"}, "type_mismatch", "amount"),
        ({"order_id": "A123", "amount": 25, "speed": "overnight"}, "out_of_range", "speed"),
        ({"order_id": "A123", "amount": 25, "coupon": "X"}, "hallucinated_param", "coupon"),
        ({"order_id": "B999", "amount": 25}, "wrong_value", "order_id"),
    ],
)
def test_each_failure_name(args: dict[str, Any], name: str, field: str) -> None:
    result = grade(refund_case(), run(("refund", args)))
    assert name in names(result)
    failure = next(f.to_json() for f in result.failures if f.name == name)
    assert (failure["field"], failure["step"], failure["tool"]) == (field, 0, "refund")
    assert result.passed is False


def test_wrong_value_carries_expected_and_actual() -> None:
    result = grade(refund_case(), run(("refund", {"order_id": "A123", "amount": 30})))
    assert names(result) == ["wrong_value"]
    failure = result.failures[0].to_json()
    assert failure["expected"] == {"approx": 25.0, "tol": 0.01}
    assert failure["actual"] == 30
    assert result.score == 0.5
    assert (result.figures["invalid"], result.figures["wrong"]) == (0, 1)


def test_missing_expected_arg_when_a_field_the_reference_needs_is_left_out() -> None:
    c = refund_case({**REF, "reason": {"casefold": "damaged"}})
    result = grade(c, run(("refund", {"order_id": "A123", "amount": 25})))
    assert names(result) == ["missing_expected_arg"]
    assert result.failures[0].evidence["field"] == "reason"
    assert result.figures["calls"][0]["fields"]["reason"] == "missing"
    assert result.score == pytest.approx(2 / 3)


def test_unparseable_arguments_are_invalid_and_fields_missing() -> None:
    call = ToolCall(tool="refund", raw_arguments="{order_id: A123", args={})
    result = grade(refund_case(), run(call))
    assert names(result)[0] == "unparseable_arguments"
    assert set(names(result)[1:]) == {"missing_expected_arg"}
    assert (result.figures["invalid"], result.figures["calls"][0]["valid"]) == (1, False)


def test_absent_field_that_is_present_is_wrong_value() -> None:
    c = refund_case({**REF, "speed": {"absent": True}})
    assert grade(c, run(("refund", {"order_id": "A123", "amount": 25}))).passed is True
    result = grade(c, run(("refund", {"order_id": "A123", "amount": 25, "speed": "express"})))
    assert names(result) == ["wrong_value"]
    assert result.failures[0].evidence["field"] == "speed"


def test_one_of_with_absent_accepts_omission_in_a_call() -> None:
    c = refund_case({**REF, "speed": {"one_of": ["standard", {"absent": True}]}})
    assert grade(c, run(("refund", {"order_id": "A123", "amount": 25}))).passed is True
    assert (
        grade(c, run(("refund", {"order_id": "A123", "amount": 25, "speed": "express"}))).passed
        is False
    )


def test_unpaired_reference_call_is_missing_expected_arg_per_field() -> None:
    c = case(
        [("refund", REF), ("refund", {"order_id": "B7", "amount": 5, "speed": {"absent": True}})],
        TOOLS,
    )
    result = grade(c, run(("refund", {"order_id": "A123", "amount": 25})))
    assert names(result) == ["missing_expected_arg", "missing_expected_arg"]
    assert {f.evidence["field"] for f in result.failures} == {"order_id", "amount"}
    assert all(f.step is None and f.evidence["ref_index"] == 1 for f in result.failures)
    assert result.score == 0.5  # the paired call is perfect, the unpaired one counts 0
    assert result.figures["field_accuracy"] == 1.0  # mean over paired calls only
    assert result.figures["calls"][-1]["step"] is None
    assert result.passed is False


def test_valid_but_wrong_and_invalid_are_counted_apart() -> None:
    c = case([("refund", REF), ("refund", {"order_id": "B7", "amount": 5})], TOOLS)
    r = run(
        ("refund", {"order_id": "A123", "amount": -25}), ("refund", {"order_id": "B7", "amount": 6})
    )
    figures = grade(c, r).figures
    assert (figures["invalid"], figures["wrong"]) == (1, 1)
    assert [call["valid"] for call in figures["calls"]] == [False, True]


def test_extra_calls_are_validated_but_not_graded() -> None:
    c = refund_case()
    r = run(
        ("refund", {"order_id": "A123", "amount": 25}),
        ("refund", {"order_id": 7, "amount": 1}),
        ("ping", {}),
    )
    result = grade(c, r)
    assert names(result) == ["type_mismatch"]  # from the extra call; no wrong_value
    assert result.failures[0].evidence["ref_index"] is None
    assert result.passed is True  # every paired call is valid and exact
    extra = result.figures["calls"][1]
    assert (extra["ref_index"], extra["exact"], extra["valid"]) == (None, None, False)
    assert result.figures["calls"][2]["valid"] is None  # 'ping' is not in the catalogue


def test_broken_catalogue_schema_is_listed_not_fatal() -> None:
    c = case([("lookup", {"id": "A1"})], {"lookup": {"type": "dict", "properties": {}}})
    result = grade(c, run(("lookup", {"id": "A1"})))
    assert result.passed is True
    assert result.figures["schema_errors"][0]["tool"] == "lookup"


# --- pairing ---------------------------------------------------------------------------------


def test_calls_in_swapped_order_pair_correctly() -> None:
    c = case(
        [
            ("refund", {"order_id": "A1", "amount": 10}),
            ("refund", {"order_id": "B2", "amount": 20}),
        ],
        TOOLS,
    )
    r = run(
        ("refund", {"order_id": "B2", "amount": 20}), ("refund", {"order_id": "A1", "amount": 10})
    )
    result = grade(c, r)
    assert (result.passed, result.score, result.failures) == (True, 1.0, [])
    assert [(call["step"], call["ref_index"]) for call in result.figures["calls"]] == [
        (0, 1),
        (1, 0),
    ]


def test_greedy_would_mis_pair_optimal_does_not() -> None:
    # Both agent calls partly match reference 0; only one of them can satisfy reference 1.
    ref0 = {"origin": "PAR", "dest": "NYC"}
    ref1 = {"origin": "PAR", "dest": "NYC", "cabin": "business"}
    call_a = {"origin": "PAR", "dest": "NYC", "cabin": "business"}
    call_b = {"origin": "PAR", "dest": "BOS", "cabin": "economy"}
    c = case([("search", ref0), ("search", ref1)])
    result = grade(c, run(("search", call_a), ("search", call_b)))
    pairing = {call["ref_index"]: call["step"] for call in result.figures["calls"]}
    assert pairing == {0: 1, 1: 0}
    optimal = call_agreement(parse_args(ref0), call_b) + call_agreement(parse_args(ref1), call_a)
    # Greedy takes the best call for reference 0 first (call_a), leaving call_b to reference 1.
    greedy = call_agreement(parse_args(ref0), call_a) + call_agreement(parse_args(ref1), call_b)
    assert call_agreement(parse_args(ref0), call_a) > call_agreement(parse_args(ref0), call_b)
    assert greedy < optimal
    assert result.score == pytest.approx((1 / 2 + 3 / 3) / 2)


def test_partial_nested_agreement_never_outweighs_an_exactly_right_call() -> None:
    # The first call is exactly reference 1. Pairing it with reference 0 instead agrees on
    # `x` and on 2 of 3 keys of `o`, and the second call then agrees on 1 of 3 keys of
    # reference 1's `o`: summed partial credit ties the exact pair, and the positional
    # tie-break used to win, reporting the exact call wrong (score 0.25 instead of 0.5).
    ref0 = {"o": {"a": 2, "b": 1, "c": 1}, "x": 1}
    ref1 = {"o": {"a": 1, "b": 1, "c": 1}, "x": 1}
    c = case([("ev", ref0), ("ev", ref1)])
    result = grade(c, run(("ev", ref1), ("ev", {"o": {"a": 1, "b": 2, "c": 2}, "x": 2})))
    pairing = {call["ref_index"]: call["step"] for call in result.figures["calls"]}
    assert pairing == {1: 0, 0: 1}
    assert result.score == pytest.approx(0.5)
    assert [call["exact"] for call in result.figures["calls"]] == [True, False]


def test_each_tool_pairs_only_with_its_own_calls() -> None:
    c = case([("lookup", {"id": "A1"}), ("refund", {"order_id": "A1", "amount": 5})])
    r = run(("refund", {"order_id": "A1", "amount": 5}), ("lookup", {"id": "A1"}))
    assert grade(c, r).passed is True


def test_empty_reference_list_is_applicable_and_passes() -> None:
    result = grade(case([], TOOLS), run(("refund", {"order_id": "A1", "amount": 5})))
    assert (result.applicable, result.passed, result.score) == (True, True, 1.0)


# --- semantic fields -------------------------------------------------------------------------


SEMANTIC = {
    "order_id": "A123",
    "reason": {"semantic": "the item arrived damaged", "rubric": "meaning"},
}


def test_semantic_shortcut_never_calls_the_judge() -> None:
    r = run(("refund", {"order_id": "A123", "reason": "The item  arrived DAMAGED"}))
    result = grade(case([("refund", SEMANTIC)]), r, ForbiddenJudge())
    assert (result.passed, result.figures["unscored_fields"]) == (True, [])


def test_semantic_judge_pass_and_fail() -> None:
    r = run(("refund", {"order_id": "A123", "reason": "box was crushed in transit"}))
    judge = FakeJudge("pass")
    assert grade(case([("refund", SEMANTIC)]), r, judge).passed is True
    (request,) = judge.requests
    assert request.dimension == "argument_equivalence"
    assert tuple(request.inputs) == JUDGE_INPUTS["argument_equivalence"]
    assert request.inputs["field"] == "reason"
    assert request.inputs["expected"] == "the item arrived damaged"
    assert request.inputs["actual"] == "box was crushed in transit"
    assert request.inputs["rubric"] == "meaning"
    assert request.inputs["task"] == "refund order A123"
    failed = grade(case([("refund", SEMANTIC)]), r, FakeJudge("fail", "not the same"))
    assert (failed.passed, names(failed)) == (False, ["wrong_value"])
    assert "not the same" in failed.failures[0].evidence["reason"]


@pytest.mark.parametrize("judge", [None, FakeJudge("unscored")])
def test_semantic_without_a_verdict_is_unscored_not_passed(judge: Any) -> None:
    r = run(("refund", {"order_id": "A123", "reason": "box was crushed in transit"}))
    result = grade(case([("refund", SEMANTIC)]), r, judge)
    assert result.passed is False
    assert result.failures == []
    assert result.figures["calls"][0]["fields"]["reason"] == "unscored"
    assert result.figures["calls"][0]["exact"] is False
    assert result.figures["field_accuracy"] == 1.0  # unscored is left out of the denominator
    assert [u["field"] for u in result.figures["unscored_fields"]] == ["reason"]
    assert result.figures["wrong"] == 0


def test_pairing_does_not_call_the_judge() -> None:
    refs = [
        ("note", {"id": 1, "text": {"semantic": "call back tomorrow"}}),
        ("note", {"id": 2, "text": {"semantic": "refund sent"}}),
    ]
    r = run(
        ("note", {"id": 2, "text": "money returned"}),
        ("note", {"id": 1, "text": "ring them on the next day"}),
    )
    judge = FakeJudge("pass")
    result = grade(case(refs), r, judge)
    assert result.passed is True
    assert len(judge.requests) == 2  # one per final pair, none while pairing
    assert {req.inputs["actual"] for req in judge.requests} == {
        "money returned",
        "ring them on the next day",
    }


# --- the suite summary -----------------------------------------------------------------------


def _record(result: Any, case_id: str) -> TrajectoryResult:
    aggregate = Aggregate(mode="binary", score=result.score, passed=bool(result.passed))
    return TrajectoryResult(
        case_id=case_id, trial=0, agent=None, checks={"arguments": result}, aggregate=aggregate
    )


def test_a_constantly_failing_enum_field_stands_out_in_per_field_accuracy() -> None:
    check = ArgumentsCheck()
    acc = check.accumulator()
    ref = {"order_id": "A123", "amount": 25, "speed": "express"}
    for i in range(5):
        c = case([("refund", ref)], TOOLS, case_id=f"c{i}")
        r = run(
            ("refund", {"order_id": "A123", "amount": 25, "speed": "standard"}), case_id=f"c{i}"
        )
        acc.add(c, r, _record(grade(c, r), c.id))
    good = case([("refund", {"order_id": "A123"})], TOOLS, case_id="g")
    good_run = run(("refund", {"order_id": "A123", "amount": -1}), case_id="g")
    acc.add(good, good_run, _record(grade(good, good_run), "g"))
    acc.add(case(None), run(), _record(grade(case(None), run()), "n"))
    summary = acc.summary()
    # Field P/R (issue 25): the wrong enum lowers both; the good run's `amount`, which its
    # reference does not name, lowers that field's precision only.
    assert summary["per_field"] == {
        "refund.amount": {"n": 5, "accuracy": 1.0, "precision": 5 / 6, "recall": 1.0,
                          "f1": pytest.approx(10 / 11)},
        "refund.order_id": {"n": 6, "accuracy": 1.0, "precision": 1.0, "recall": 1.0, "f1": 1.0},
        "refund.speed": {"n": 5, "accuracy": 0.0, "precision": 0.0, "recall": 0.0, "f1": 0.0},
    }
    assert (summary["field_precision"], summary["field_recall"]) == (11 / 17, 11 / 16)
    assert (
        min(summary["per_field"], key=lambda k: summary["per_field"][k]["accuracy"])
        == "refund.speed"
    )
    assert summary["applicable"] == 6
    assert summary["pass_rate"] == 0.0
    assert summary["exact_rate"] == pytest.approx(1 / 6)
    assert summary["field_accuracy"] == pytest.approx(11 / 16)
    assert (summary["invalid"], summary["wrong"], summary["unscored"]) == (1, 5, 0)


def test_summary_of_nothing() -> None:
    summary = ArgumentsCheck().accumulator().summary()
    assert summary["pass_rate"] is None
    assert summary["per_field"] == {}
    assert summary["exact_rate"] is None
