"""Suite figures of the arguments check (rates given selection passed, field P/R/F1), and
a conversation input as the judge sees it."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from builders_arguments import REFUND_SCHEMA, FakeJudge, case, grade, run
from toolgrade.checks.arguments import ArgumentsCheck
from toolgrade.checks.arguments.figures import FieldCounts, field_prf
from toolgrade.judging.prompts import serialise
from toolgrade.models import Aggregate, CheckResult, TrajectoryResult

TOOLS = {"refund": REFUND_SCHEMA}
REF = [("refund", {"order_id": "A123", "amount": 25})]


def _record(arguments: CheckResult, selection_passed: bool | None, agent: str = "a") -> Any:
    checks: dict[str, CheckResult] = {"arguments": arguments}
    if selection_passed is not None:
        checks["selection"] = CheckResult(
            check="selection", applicable=True, score=1.0, passed=selection_passed
        )
    aggregate = Aggregate(mode="binary", score=None, passed=False)
    return TrajectoryResult(case_id="c1", trial=0, agent=agent, checks=checks, aggregate=aggregate)


def test_given_selection_counts_only_runs_whose_selection_passed() -> None:
    acc = ArgumentsCheck().accumulator()
    good = run(("refund", {"order_id": "A123", "amount": 25}))
    half = run(("refund", {"order_id": "A123", "amount": 99}))
    misrouted = run(("lookup_order", {"order_id": "A123"}))  # wrong tool: nothing to pair
    c = case(REF, TOOLS)
    acc.add(c, good, _record(grade(c, good), selection_passed=True))
    acc.add(c, half, _record(grade(c, half), selection_passed=True))
    acc.add(c, misrouted, _record(grade(c, misrouted), selection_passed=False))
    acc.add(c, good, _record(grade(c, good), selection_passed=None))  # no selection reference
    summary = acc.summary()
    assert summary["given_selection"] == {
        "n": 2, "pass_rate": 0.5, "exact_rate": 0.5, "field_accuracy": 0.75}
    # The plain figures keep counting every run, the misrouted one too.
    assert summary["pass_rate"] == 0.5 and summary["field_accuracy"] == 5 / 8


def test_given_selection_of_nothing_states_n_zero() -> None:
    summary = ArgumentsCheck().accumulator().summary()
    assert summary["given_selection"] == {
        "n": 0, "pass_rate": None, "exact_rate": None, "field_accuracy": None}


def test_an_extra_field_lowers_precision_and_a_missing_one_recall() -> None:
    acc = ArgumentsCheck().accumulator()
    c = case([("refund", {"order_id": "A123", "amount": 25, "speed": "express"})], TOOLS)
    sent = run(("refund", {"order_id": "A123", "amount": 25, "reason": "late"}))
    result = grade(c, sent)
    assert result.figures["calls"][0]["extra_fields"] == ["reason"]
    acc.add(c, sent, _record(result, True))
    per_field = acc.summary()["per_field"]
    assert per_field["refund.reason"] == {
        "n": 0, "accuracy": None, "precision": 0.0, "recall": None, "f1": None}
    assert per_field["refund.speed"] == {
        "n": 1, "accuracy": 0.0, "precision": None, "recall": 0.0, "f1": None}
    assert per_field["refund.order_id"]["f1"] == 1.0


@given(st.integers(0, 50), st.integers(0, 50), st.integers(0, 50))
def test_field_prf_is_bounded_and_f1_is_the_harmonic_mean(tp: int, fp: int, fn: int) -> None:
    prf = field_prf(FieldCounts(tp=tp, fp=fp, fn=fn))
    for value in prf.values():
        assert value is None or 0.0 <= value <= 1.0
    p, r = prf["precision"], prf["recall"]
    if p is not None and r is not None and p + r:
        assert prf["f1"] == pytest.approx(2 * p * r / (p + r))
        assert min(p, r) <= prf["f1"] + 1e-12 and prf["f1"] <= max(p, r) + 1e-12


def test_a_conversation_input_reaches_the_judge_as_messages() -> None:
    turns = [{"role": "user", "content": "Refund A123"},
             {"role": "assistant", "content": "Why?"},
             {"role": "user", "content": "It arrived broken"}]
    c = case([("refund", {"order_id": "A123", "reason": {"semantic": "arrived damaged"}})], TOOLS)
    c = c.model_copy(update={"input": turns})
    judge = FakeJudge("pass")
    grade(c, run(("refund", {"order_id": "A123", "reason": "broken on arrival"})), judge)
    [request] = judge.requests
    assert request.inputs["task"] == turns
    assert '"role": "assistant"' in serialise(request.inputs["task"])  # each turn with its role
