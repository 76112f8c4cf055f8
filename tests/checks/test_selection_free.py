"""Free calls (`selection.allowed`, `allow_reads`) and route choice that prefers no hard fail."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from builders_selection import failure_names, grade, record, sel_case
from toolgrade.checks.base import GradeContext
from toolgrade.checks.selection import SelectionAccumulator, SelectionCheck
from toolgrade.models import (
    Case,
    CheckResult,
    SelectionExpectation,
    ToolCall,
    ToolResult,
    Trajectory,
)


def grade_outcomes(case: Case, calls: list[tuple[str, str]]) -> CheckResult:
    """Grade (tool, "ok"|"error") calls: each call's tool returned that status."""
    steps = [ToolCall(tool=t, args={"n": i}, result=ToolResult(status=s))  # type: ignore[arg-type]
             for i, (t, s) in enumerate(calls)]
    return SelectionCheck().grade(case, Trajectory(case_id=case.id, steps=list(steps)),
                                  GradeContext())


def test_allowed_tool_beyond_the_route_is_free_not_extra() -> None:
    case = sel_case(["refund"], allowed=["lookup"], catalogue=["lookup", "refund"])
    result = grade(case, ["lookup", "lookup", "refund"])
    assert result.passed is True and result.score == 1.0
    assert (result.figures["tp"], result.figures["fp"], result.figures["precision"]) == (1, 0, 1.0)
    assert result.figures["free_calls"] == 2
    assert result.figures["free_per_tool"] == {"lookup": 2}
    assert "lookup" not in result.figures["per_tool"]  # neither TP nor FP: no row


def test_allow_reads_frees_every_tool_without_side_effect() -> None:
    case = sel_case(["refund"], allow_reads=True, side_effect=["refund", "cancel"],
                    catalogue=["lookup", "search", "refund", "cancel"])
    result = grade(case, ["search", "lookup", "refund", "cancel"])
    assert result.figures["free_per_tool"] == {"lookup": 1, "search": 1}
    # a write is never free under allow_reads: still extra and a hard fail
    assert failure_names(result) == ["extra_tool", "unauthorized_side_effect"]
    assert result.score == 0.0


def test_a_route_may_still_require_a_free_tool() -> None:
    case = sel_case(["lookup", "refund"], allow_reads=True, side_effect=["refund"],
                    catalogue=["lookup", "refund"])
    missed = grade(case, ["refund"])
    assert failure_names(missed) == ["missing_tool"]
    repeated = grade(case, ["lookup", "lookup", "lookup", "refund"])
    assert repeated.passed is True
    assert (repeated.figures["tp"], repeated.figures["free_calls"]) == (2, 2)


def test_free_call_is_no_substitute_for_a_missed_tool() -> None:
    case = sel_case(["search"], allowed=["lookup"], catalogue=["search", "lookup"])
    result = grade(case, ["lookup"])
    assert failure_names(result) == ["missing_tool"]
    assert result.figures["substitutions"] == []


def test_side_effecting_tool_in_allowed_is_the_authors_choice() -> None:
    case = sel_case(["lookup"], allowed=["notify"], side_effect=["notify"])
    result = grade(case, ["lookup", "notify"])
    assert result.passed is True and result.figures["side_effect_extras"] == []


def test_expect_no_write_with_reads_allowed() -> None:
    case = sel_case([], allow_reads=True, side_effect=["refund"], catalogue=["lookup", "refund"])
    assert grade(case, ["lookup", "lookup"]).passed is True
    assert grade(case, []).passed is True
    assert "unauthorized_side_effect" in failure_names(grade(case, ["lookup", "refund"]))


def test_cases_without_the_keys_carry_no_free_figures() -> None:
    result = grade(sel_case(["lookup"]), ["lookup", "lookup"])
    assert "free_calls" not in result.figures and "free_per_tool" not in result.figures
    acc = SelectionAccumulator()
    acc.add(sel_case(["lookup"]), None, record(result))  # type: ignore[arg-type]
    assert "free_calls" not in acc.summary()


def test_summary_counts_free_calls_per_tool() -> None:
    case = sel_case(["refund"], allowed=["lookup", "search"])
    acc = SelectionAccumulator()
    for names in (["lookup", "refund"], ["lookup", "search", "refund"], ["refund"]):
        acc.add(case, None, record(grade(case, names)))  # type: ignore[arg-type]
    summary = acc.summary()
    assert summary["free_calls"] == {"lookup": 2, "search": 1}
    assert summary["precision"] == 1.0 and summary["fp"] == 0


def test_forbidden_tool_is_never_free() -> None:
    case = sel_case(["refund"], allow_reads=True, forbidden=["reset"],
                    catalogue=["refund", "reset"])
    result = grade(case, ["reset", "refund"])
    assert failure_names(result) == ["extra_tool", "forbidden_tool"]
    assert result.figures["free_calls"] == 0


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ({"tools": ["a"], "allowed": ["b"], "forbidden": ["b"]}, "both allowed and forbidden"),
        ({"no_tool": True, "allow_reads": True}, "write `tools: []`"),
        ({"no_tool": True, "allowed": ["a"]}, "write `tools: []`"),
        ({"tools": [], "allow_reads": "yes"}, "valid boolean"),
    ],
)
def test_inconsistent_free_call_keys_are_refused(data: dict[str, object], reason: str) -> None:
    with pytest.raises(ValidationError, match=re.escape(reason)):
        SelectionExpectation.model_validate(data)


# --- route choice: no hard fail first, then F1 ------------------------------------------------


def test_route_without_hard_fail_beats_a_higher_f1_route() -> None:
    # Route 0 lists the three reads the agent made but not the refund it issued (a hard fail,
    # F1 6/7); route 1 authorises the refund (F1 0.8, no hard fail). The hard fail must not win.
    case = sel_case(
        ["lookup", "verify", "search"],
        alternatives=[["lookup", "refund"]],
        side_effect=["refund"],
    )
    result = grade(case, ["lookup", "verify", "search", "refund"])
    assert result.figures["route"] == 1
    assert "unauthorized_side_effect" not in failure_names(result)
    assert result.score == pytest.approx(2 * 2 / (2 * 2 + 2 + 0))


def test_with_a_hard_fail_on_every_route_f1_decides() -> None:
    case = sel_case(["lookup"], alternatives=[["search", "lookup"]], side_effect=["refund"],
                    catalogue=["lookup", "search", "refund"])
    result = grade(case, ["search", "lookup", "refund"])
    assert result.figures["route"] == 1
    assert result.score == 0.0


@given(
    st.lists(st.sampled_from(["a", "b", "w"]), max_size=6),
    st.lists(st.lists(st.sampled_from(["a", "b", "w"]), max_size=4), min_size=1, max_size=3),
)
def test_chosen_route_has_a_hard_fail_only_when_every_route_has_one(
    called: list[str], routes: list[list[str]]
) -> None:
    case = sel_case(routes[0], alternatives=routes[1:], side_effect=["w"],
                    catalogue=["a", "b", "w"])
    result = grade(case, called)
    hard = "unauthorized_side_effect" in failure_names(result)
    any_clean = any(Counter(called)["w"] <= Counter(r)["w"] for r in routes)
    assert hard == (not any_clean)


@given(st.lists(st.sampled_from(["a", "b", "r", "w"]), max_size=8))
def test_free_calls_and_counted_calls_add_up(called: list[str]) -> None:
    case = sel_case(["a", "w"], allow_reads=True, side_effect=["w"],
                    catalogue=["a", "b", "r", "w"])
    fig = grade(case, called).figures
    assert fig["tp"] + fig["fp"] + fig["free_calls"] == len(called)
    assert fig["tp"] + fig["fn"] == 2


# --- allow_failed: a call whose tool returned an error changed nothing ------------------------


def test_failed_write_then_the_right_one_passes_with_allow_failed() -> None:
    case = sel_case(["refund"], side_effect=["refund"], allow_failed=True)
    result = grade_outcomes(case, [("refund", "error"), ("refund", "ok")])
    assert result.passed is True and result.figures["tp"] == 1
    assert result.figures["free_calls"] == 1 and result.figures["free_per_tool"] == {"refund": 1}
    without = grade_outcomes(sel_case(["refund"], side_effect=["refund"]),
                             [("refund", "error"), ("refund", "ok")])
    assert "unauthorized_side_effect" in failure_names(without)  # as before without the key


def test_a_failed_call_never_satisfies_the_route() -> None:
    case = sel_case(["refund"], side_effect=["refund"], allow_failed=True)
    result = grade_outcomes(case, [("refund", "error")])
    assert failure_names(result) == ["missing_tool"]
    assert result.figures["free_calls"] == 1


def test_failed_forbidden_call_is_still_flagged() -> None:
    case = sel_case(["refund"], forbidden=["reset"], allow_failed=True)
    result = grade_outcomes(case, [("reset", "error"), ("refund", "ok")])
    assert failure_names(result) == ["forbidden_tool"]
    assert result.passed is False
