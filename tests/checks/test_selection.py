"""Tests for the selection check: multiset counts, routes, substitutions, hard fails, judge."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builders_selection import (
    FakeJudge,
    failure_names,
    grade,
    record,
    run_of,
    sel_case,
)
from toolgrade.checks.base import GradeContext
from toolgrade.checks.selection import SelectionCheck
from toolgrade.checks.selection_figures import assign_nearest, reference_positions
from toolgrade.models import Case, Verdict

TOOLS = ["search", "lookup", "refund", "verify", "answer_faq"]
names_st = st.lists(st.sampled_from(TOOLS), max_size=7)


def _f1(tp: int, fp: int, fn: int) -> float:
    return float(Fraction(2 * tp, 2 * tp + fp + fn)) if tp + fp + fn else 1.0


# --- counting ---------------------------------------------------------------------------------


def test_hand_computed_precision_recall_f1() -> None:
    result = grade(sel_case(["lookup", "verify", "refund"]), ["lookup", "verify", "search", "x"])
    fig = result.figures
    assert (fig["tp"], fig["fp"], fig["fn"]) == (2, 2, 1)
    assert fig["precision"] == pytest.approx(0.5)
    assert fig["recall"] == pytest.approx(2 / 3)
    assert fig["f1"] == pytest.approx(4 / 7)
    assert result.score == pytest.approx(4 / 7)
    assert result.passed is False


def test_duplicates_count_two_expected_five_called() -> None:
    result = grade(sel_case(["search", "search"]), ["search"] * 5)
    fig = result.figures
    assert (fig["tp"], fig["fp"], fig["fn"]) == (2, 3, 0)
    assert fig["precision"] == pytest.approx(0.4)
    assert fig["recall"] == 1.0
    assert fig["per_tool"] == {"search": {"tp": 2, "fp": 3, "fn": 0}}
    assert failure_names(result) == ["extra_tool"] * 3
    # The first two calls are the expected ones; the repeats after them are the extras.
    assert [f.step for f in result.failures] == [2, 3, 4]


def test_missing_duplicate_is_one_missing_tool() -> None:
    result = grade(sel_case(["search", "search", "refund"]), ["search", "refund"])
    assert (result.figures["tp"], result.figures["fn"]) == (2, 1)
    assert failure_names(result) == ["missing_tool"]
    assert result.failures[0].step is None
    assert result.failures[0].evidence["tool"] == "search"


def test_agent_equal_to_reference_scores_one_in_any_order() -> None:
    case = sel_case(["lookup", "verify", "refund"], side_effect=["refund"])
    for order in itertools.permutations(["lookup", "verify", "refund"]):
        result = grade(case, list(order))
        assert result.score == 1.0
        assert result.passed is True
        assert result.failures == []
        assert result.figures["route"] == 0


def test_step_indices_point_at_steps_not_call_ordinals() -> None:
    case = sel_case(["lookup"], catalogue=[])
    result = SelectionCheck().grade(case, run_of(["lookup", "x"], chatter=True), GradeContext())
    assert [(f.name, f.step) for f in result.failures] == [("extra_tool", 3)]


def test_not_applicable_without_reference() -> None:
    case = Case(id="c1")
    result = SelectionCheck().grade(case, run_of(["a"]), GradeContext())
    assert result.applicable is False
    assert result.score is None and result.passed is None


def test_degenerate_no_calls_but_some_expected() -> None:
    fig = grade(sel_case(["a", "b"]), []).figures
    assert (fig["precision"], fig["recall"], fig["f1"]) == (1.0, 0.0, 0.0)


def test_degenerate_nothing_expected_nothing_called() -> None:
    result = grade(sel_case([]), [])
    assert (result.figures["precision"], result.figures["recall"], result.score) == (1, 1, 1)
    assert result.passed is True


# --- substitutions ----------------------------------------------------------------------------


def test_substitution_is_one_fp_one_fn_one_failure() -> None:
    result = grade(sel_case(["lookup", "refund"], catalogue=[]), ["search", "refund"])
    fig = result.figures
    assert (fig["tp"], fig["fp"], fig["fn"]) == (1, 1, 1)
    assert failure_names(result) == ["substitution"]
    sub = result.failures[0]
    assert sub.step == 0
    assert (sub.evidence["expected"], sub.evidence["actual"]) == ("lookup", "search")
    assert fig["substitutions"] == [{"expected": "lookup", "actual": "search"}]


def test_substitutions_pair_by_position() -> None:
    case = sel_case(["a", "b", "c", "d"], catalogue=[])
    forward = grade(case, ["x", "b", "c", "y"]).figures["substitutions"]
    assert sorted((s["expected"], s["actual"]) for s in forward) == [("a", "x"), ("d", "y")]
    backward = grade(case, ["y", "b", "c", "x"]).figures["substitutions"]
    assert sorted((s["expected"], s["actual"]) for s in backward) == [("a", "y"), ("d", "x")]


def test_unpaired_leftovers_stay_missing_or_extra() -> None:
    result = grade(sel_case(["a", "b"], catalogue=[]), ["x", "y", "z"])
    assert Counter(failure_names(result)) == Counter({"substitution": 2, "extra_tool": 1})
    result = grade(sel_case(["a", "b", "c"], catalogue=[]), ["x"])
    assert Counter(failure_names(result)) == Counter({"substitution": 1, "missing_tool": 2})


def test_surplus_repeat_of_an_expected_tool_is_not_a_substitution() -> None:
    # A retry loop on lookup instead of escalating: lookup was right, escalation was missed.
    case = sel_case(["lookup", "escalate"], catalogue=[])
    result = grade(case, ["lookup", "lookup", "lookup"])
    assert Counter(failure_names(result)) == Counter({"extra_tool": 2, "missing_tool": 1})
    assert result.figures["substitutions"] == []


def test_assignment_is_optimal_where_greedy_is_not() -> None:
    # Greedy (first missed takes its nearest extra) pairs 1.0->1.9 and 2.0->0.0, total 2.9;
    # the optimum is 1.0->0.0 and 2.0->1.9, total 1.1.
    assert assign_nearest([1.0, 2.0], [0.0, 1.9]) == [(0, 0), (1, 1)]


@given(
    st.lists(st.integers(0, 20), min_size=1, max_size=5),
    st.lists(st.integers(0, 20), min_size=1, max_size=5),
)
def test_assignment_minimises_total_distance(rows: list[int], cols: list[int]) -> None:
    pairs = assign_nearest([float(r) for r in rows], [float(c) for c in cols])
    assert len(pairs) == min(len(rows), len(cols))
    total = sum(abs(rows[r] - cols[c]) for r, c in pairs)
    k = len(pairs)
    if len(rows) <= len(cols):
        best = min(
            sum(abs(rows[i] - cols[j]) for i, j in enumerate(p))
            for p in itertools.permutations(range(len(cols)), k)
        )
    else:
        best = min(
            sum(abs(rows[i] - cols[j]) for j, i in enumerate(p))
            for p in itertools.permutations(range(len(rows)), k)
        )
    assert total == best


def test_reference_positions_span_the_run() -> None:
    assert reference_positions(3, 5) == [0.0, 2.0, 4.0]
    assert reference_positions(1, 5) == [2.0]
    assert reference_positions(2, 0) == [0.0, 0.0]


# --- routes -----------------------------------------------------------------------------------


def test_alternative_route_chosen_and_named() -> None:
    case = sel_case(["lookup", "refund"], alternatives=[["search", "refund"]])
    result = grade(case, ["refund", "search"])
    assert result.figures["route"] == 1
    assert result.score == 1.0 and result.passed is True


def test_best_partial_route_wins() -> None:
    case = sel_case(["lookup", "verify", "refund"], alternatives=[["search", "refund"]])
    result = grade(case, ["search"])
    assert result.figures["route"] == 1
    assert result.score == pytest.approx(2 / 3)
    assert failure_names(result) == ["missing_tool"]


def test_route_ties_go_to_first_listed() -> None:
    case = sel_case(["lookup", "refund"], alternatives=[["search", "refund"]])
    result = grade(case, ["search", "lookup", "refund"])
    assert result.figures["route"] == 0
    assert result.score == pytest.approx(0.8)


def test_route_ties_prefer_the_route_that_authorises_the_side_effect() -> None:
    case = sel_case(
        ["lookup", "verify"], alternatives=[["lookup", "refund"]], side_effect=["refund"]
    )
    result = grade(case, ["lookup", "refund", "verify"])
    assert result.figures["route"] == 1
    assert "unauthorized_side_effect" not in failure_names(result)
    assert result.score == pytest.approx(0.8)


# --- hard fails, unknown tools, no_tool -------------------------------------------------------


def test_forbidden_tool_is_a_hard_fail() -> None:
    case = sel_case(["lookup"], forbidden=["reset_password"])
    result = grade(case, ["lookup", "reset_password"])
    assert ("forbidden_tool", 1) in [(f.name, f.step) for f in result.failures]
    assert result.score == 0.0 and result.passed is False
    assert result.figures["f1"] == pytest.approx(2 / 3)  # the figures stay visible


def test_unauthorized_side_effect_is_a_hard_fail_reported_apart() -> None:
    case = sel_case(["lookup", "refund"], side_effect=["refund"])
    result = grade(case, ["lookup", "refund", "refund"])
    assert [(f.name, f.step) for f in result.failures] == [
        ("extra_tool", 2),
        ("unauthorized_side_effect", 2),
    ]
    assert result.figures["side_effect_extras"] == ["refund"]
    assert result.score == 0.0 and result.passed is False


def test_read_only_extra_is_not_a_hard_fail() -> None:
    case = sel_case(["lookup", "refund"], side_effect=["refund"], catalogue=["lookup", "refund"])
    result = grade(case, ["lookup", "lookup", "refund"])
    assert failure_names(result) == ["extra_tool"]
    assert result.figures["side_effect_extras"] == []
    assert result.score == pytest.approx(0.8)


def test_unknown_tool_when_catalogue_given() -> None:
    result = grade(sel_case(["lookup"], catalogue=["lookup"]), ["lookup", "lookup_orders"])
    assert [(f.name, f.step) for f in result.failures] == [
        ("extra_tool", 1),
        ("unknown_tool", 1),
    ]
    assert result.score == pytest.approx(2 / 3)
    assert result.passed is False


def test_no_unknown_tool_with_empty_catalogue() -> None:
    result = grade(sel_case(["lookup"], catalogue=[]), ["lookup", "lookup_orders"])
    assert "unknown_tool" not in failure_names(result)


def test_unknown_tool_fails_even_at_full_f1() -> None:
    result = grade(sel_case(["ghost"], catalogue=["lookup"]), ["ghost"])
    assert result.score == 1.0
    assert result.passed is False
    assert failure_names(result) == ["unknown_tool"]


def test_no_tool_case_without_calls_passes() -> None:
    result = grade(sel_case(no_tool=True, catalogue=["search"]), [])
    assert result.score == 1.0 and result.passed is True and result.failures == []


def test_no_tool_case_with_calls_fails() -> None:
    result = grade(sel_case(no_tool=True, catalogue=["search"]), ["search", "search"])
    assert [(f.name, f.step) for f in result.failures] == [
        ("unexpected_tool_use", 0),
        ("unexpected_tool_use", 1),
    ]
    assert result.score == 0.0 and result.passed is False
    assert (result.figures["precision"], result.figures["recall"]) == (0.0, 1.0)


# --- alternate-route judge --------------------------------------------------------------------


def test_judge_alternates_asks_the_judge_with_the_routes() -> None:
    # The verdict deciding the outcome is pinned in tests/checks/test_adjudication.py.
    judge = FakeJudge(Verdict(verdict="fail", reason="search is not a lookup"))
    case = sel_case(["lookup", "refund"], judge_alternates=True)
    plain = sel_case(["lookup", "refund"])
    judged = grade(case, ["search", "refund"], judge)
    assert judged.figures["judge_route"]["verdict"] == "fail"
    assert judged.figures["judge_route"]["reason"] == "search is not a lookup"
    baseline = grade(plain, ["search", "refund"], judge)
    assert (judged.score, judged.passed) == (baseline.score, baseline.passed)
    assert len(judge.requests) == 1
    request = judge.requests[0]
    assert request.dimension == "alternate_route"
    assert request.inputs == {
        "task": "refund my broken order",
        "expected_routes": [["lookup", "refund"]],
        "actual_route": ["search", "refund"],
        "tool_descriptions": {"lookup": "the lookup tool", "refund": "the refund tool"},
    }


def test_the_route_judge_is_told_which_tools_have_side_effects() -> None:
    judge = FakeJudge(Verdict(verdict="pass"))
    case = sel_case(["lookup", "refund"], judge_alternates=True, side_effect=["refund"])
    grade(case, ["search", "refund"], judge)
    described = judge.requests[0].inputs["tool_descriptions"]
    assert described == {"lookup": "the lookup tool", "refund": "the refund tool (side effect)"}


def test_judge_not_asked_when_a_route_matches() -> None:
    judge = FakeJudge(Verdict(verdict="fail"))
    case = sel_case(["lookup"], alternatives=[["search"]], judge_alternates=True)
    result = grade(case, ["search"], judge)
    assert judge.requests == []
    assert "judge_route" not in result.figures


def test_judge_unscored_without_a_judge() -> None:
    result = grade(sel_case(["lookup"], judge_alternates=True), ["search"])
    assert result.figures["judge_route"] == {"verdict": "unscored", "reason": "no judge configured"}


# --- properties -------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(names_st, names_st, st.lists(names_st, max_size=2), st.randoms(use_true_random=False))
def test_permuting_calls_changes_nothing(
    route: list[str], called: list[str], alternatives: list[list[str]], rnd: random.Random
) -> None:
    case = sel_case(route, alternatives=alternatives, side_effect=["refund"], catalogue=TOOLS[:4])
    shuffled = list(called)
    rnd.shuffle(shuffled)
    a, b = grade(case, called), grade(case, shuffled)
    keys = ["tp", "fp", "fn", "precision", "recall", "f1", "route", "per_tool"]
    assert {k: a.figures[k] for k in keys} == {k: b.figures[k] for k in keys}
    assert (a.score, a.passed) == (b.score, b.passed)
    assert Counter(failure_names(a)) == Counter(failure_names(b))
    assert Counter(a.figures["side_effect_extras"]) == Counter(b.figures["side_effect_extras"])


@settings(max_examples=150, deadline=None)
@given(names_st, names_st)
def test_figures_match_brute_force_and_failures_reconcile(
    route: list[str], called: list[str]
) -> None:
    result = grade(sel_case(route, catalogue=[]), called)
    remaining = list(route)
    tp = 0
    for name in called:
        if name in remaining:
            remaining.remove(name)
            tp += 1
    fp, fn = len(called) - tp, len(route) - tp
    fig = result.figures
    assert (fig["tp"], fig["fp"], fig["fn"]) == (tp, fp, fn)
    assert fig["precision"] == (tp / len(called) if called else 1.0)
    assert fig["recall"] == (tp / len(route) if route else 1.0)
    assert fig["f1"] == pytest.approx(_f1(tp, fp, fn))
    names = Counter(failure_names(result))
    assert names["extra_tool"] + names["substitution"] == fp
    assert names["missing_tool"] + names["substitution"] == fn
    foreign = sum(1 for name in called if name not in route)
    assert names["substitution"] == min(foreign, fn)
    assert result.passed is (fp == 0 and fn == 0)


@settings(max_examples=100, deadline=None)
@given(names_st, st.lists(names_st, max_size=3), st.integers(0, 3), st.randoms())
def test_any_listed_route_in_any_order_scores_one(
    route: list[str], alternatives: list[list[str]], pick: int, rnd: random.Random
) -> None:
    routes = [route, *alternatives]
    called = list(routes[pick % len(routes)])
    rnd.shuffle(called)
    result = grade(sel_case(route, alternatives=alternatives), called)
    assert result.score == 1.0 and result.passed is True


# --- accumulator ------------------------------------------------------------------------------


def _accumulate(*pairs: tuple[Case, list[str]]) -> dict[str, Any]:
    check = SelectionCheck()
    acc = check.accumulator()
    for case, called in pairs:
        run = run_of(called, case_id=case.id)
        acc.add(case, run, record(check.grade(case, run, GradeContext()), case.id))
    return acc.summary()


def test_accumulator_micro_figures_and_confusion() -> None:
    summary = _accumulate(
        (sel_case(["lookup", "refund"], side_effect=["refund"]), ["lookup", "refund"]),
        (sel_case(["lookup", "refund"], side_effect=["refund"]), ["search", "refund", "refund"]),
        (sel_case(["lookup", "verify"]), ["lookup"]),
        (Case(id="na"), ["anything"]),
    )
    # tp = 2 + 1 + 1, fp = 0 + 2 + 0, fn = 0 + 1 + 1
    assert summary["applicable"] == 3
    assert summary["precision"] == pytest.approx(4 / 6)
    assert summary["recall"] == pytest.approx(4 / 6)
    assert summary["f1"] == pytest.approx(_f1(4, 2, 2))
    assert summary["pass_rate"] == pytest.approx(1 / 3)
    assert summary["per_tool"]["lookup"] == {
        "tp": 2,
        "fp": 0,
        "fn": 1,
        "precision": 1.0,
        "recall": pytest.approx(2 / 3),
        "f1": pytest.approx(0.8),
    }
    assert summary["per_tool"]["refund"]["fp"] == 1
    assert summary["confusion"] == [
        {"expected": "lookup", "actual": "lookup", "count": 2},
        {"expected": "lookup", "actual": "search", "count": 1},
        {"expected": "refund", "actual": "refund", "count": 2},
        {"expected": "verify", "actual": "none", "count": 1},
        {"expected": "none", "actual": "refund", "count": 1},
    ]
    assert summary["side_effect_extras"] == {"refund": 1}


def test_accumulator_empty_reports_no_figures() -> None:
    summary = SelectionCheck().accumulator().summary()
    assert summary["applicable"] == 0
    assert summary["precision"] is None and summary["f1"] is None and summary["pass_rate"] is None
    assert summary["confusion"] == []


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(names_st, names_st), min_size=1, max_size=4))
def test_confusion_margins_match_per_tool_counts(runs: list[tuple[list[str], list[str]]]) -> None:
    summary = _accumulate(*[(sel_case(r, catalogue=[]), c) for r, c in runs])
    rows: Counter[str] = Counter()
    cols: Counter[str] = Counter()
    for cell in summary["confusion"]:
        assert cell["count"] > 0
        rows[cell["expected"]] += cell["count"]
        cols[cell["actual"]] += cell["count"]
    for name, row in summary["per_tool"].items():
        assert rows[name] == row["tp"] + row["fn"]
        assert cols[name] == row["tp"] + row["fp"]
