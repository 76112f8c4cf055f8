"""The ordering check: before pairs, groups, the answer, parallel groups, modes, repeats."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from builders_ordering import answer, call, ordering_case, record, run, tools_run, user
from toolgrade.checks.base import GradeContext
from toolgrade.checks.ordering import (
    OrderingCheck,
    aligned_names,
    call_key,
    lcs_length,
    validate_ordering,
)
from toolgrade.models import (
    Case,
    CheckResult,
    FaultSpec,
    RecoveryExpectation,
    ToolCall,
    ToolResult,
    Trajectory,
)

CTX = GradeContext()
GROUPS = {"retrieval": ["lookup_order", "search_orders"]}


def grade(case: Case, trajectory: Trajectory) -> CheckResult:
    """Grade with a fresh check."""
    return OrderingCheck().grade(case, trajectory, CTX)


def names(result: CheckResult) -> list[str]:
    """The failure names, in reported order."""
    return [f.name for f in result.failures]


def only(result: CheckResult, name: str) -> Any:
    """The one failure of that name."""
    found = [f for f in result.failures if f.name == name]
    assert len(found) == 1, result.failures
    return found[0]


# --- applicability and scoring -------------------------------------------------------------


def test_not_applicable_without_ordering_reference() -> None:
    result = grade(Case(id="c1"), tools_run("a"))
    assert not result.applicable
    assert result.passed is None and result.score is None


def test_no_constraints_scores_one_without_loop() -> None:
    result = grade(ordering_case(), tools_run("a", "b"))
    assert result.applicable and result.passed and result.score == 1.0
    assert result.figures == {"constraints_total": 0, "constraints_held": 0, "n_calls": 2}


def test_no_constraints_scores_zero_with_loop() -> None:
    same = call("a", {"x": 1})
    result = grade(ordering_case(), run(same, same, same))
    assert result.score == 0.0 and result.passed is False
    assert names(result) == ["loop"]


def test_score_is_share_of_constraints_held() -> None:
    case = ordering_case(
        before=[["verify_identity", "refund"], ["lookup_order", "refund"]],
        max_calls={"lookup_order": 1},
        mode="any_order",
        sequence=["lookup_order", "refund"],
    )
    # refund before verify_identity breaks one pair and the any_order multiset; budget holds.
    result = grade(case, tools_run("lookup_order", "refund", "verify_identity"))
    assert result.figures["constraints_total"] == 4
    assert result.figures["constraints_held"] == 2
    assert result.score == 0.5
    assert result.passed is False


# --- before pairs ----------------------------------------------------------------------------


def test_refund_before_identity_check_names_both_steps() -> None:
    case = ordering_case(before=[["verify_identity", "refund"]])
    result = grade(case, tools_run("lookup_order", "refund", "verify_identity"))
    assert result.passed is False and result.score == 0.0
    failure = only(result, "order_violation")
    assert failure.step == 1
    assert failure.evidence["constraint"] == ["verify_identity", "refund"]
    assert failure.evidence["b_step"] == 1
    assert failure.evidence["a_steps"] == [2]
    assert "step 1" in failure.message and "[2]" in failure.message


def test_independent_calls_in_any_order_pass() -> None:
    case = ordering_case(before=[["verify_identity", "refund"]])
    first = grade(case, tools_run("lookup_order", "verify_identity", "refund"))
    second = grade(case, tools_run("verify_identity", "lookup_order", "refund"))
    assert first.passed and second.passed
    assert first.score == second.score == 1.0


def test_every_b_call_must_follow_an_a_call() -> None:
    # The first refund is fine, the second as well: some identity check precedes each.
    case = ordering_case(before=[["verify_identity", "refund"]])
    ok = grade(case, tools_run("verify_identity", "refund", "refund"))
    assert ok.passed
    # A refund before the first identity check is a violation even if another comes later.
    bad = grade(case, tools_run("refund", "verify_identity", "refund"))
    failure = only(bad, "order_violation")
    assert failure.evidence["offending_steps"] == [0]


def test_b_never_called_holds_vacuously() -> None:
    case = ordering_case(before=[["verify_identity", "refund"]])
    assert grade(case, tools_run("lookup_order")).passed


def test_b_called_but_a_never_is_violated() -> None:
    case = ordering_case(before=[["verify_identity", "refund"]])
    failure = only(grade(case, tools_run("refund")), "order_violation")
    assert failure.evidence["a_steps"] == []
    assert "never" in failure.message


def test_group_side_matches_any_of_its_tools() -> None:
    case = ordering_case(groups=GROUPS, before=[["@retrieval", "refund"]])
    assert grade(case, tools_run("search_orders", "refund")).passed
    assert grade(case, tools_run("lookup_order", "refund")).passed
    bad = grade(case, tools_run("refund", "search_orders"))
    assert only(bad, "order_violation").evidence["a_steps"] == [1]


def test_group_on_b_side_checks_each_member() -> None:
    case = ordering_case(groups=GROUPS, before=[["verify_identity", "@retrieval"]])
    ok = grade(case, tools_run("verify_identity", "lookup_order", "search_orders"))
    assert ok.passed
    worse = grade(case, tools_run("search_orders", "verify_identity"))
    failure = only(worse, "order_violation")
    assert failure.evidence["b_tool"] == "search_orders" and failure.step == 0


def test_retrieval_before_answer() -> None:
    case = ordering_case(groups=GROUPS, before=[["@retrieval", "answer"]])
    good = run(user(), call("lookup_order", {"id": "A1"}), answer())
    assert grade(case, good).passed
    bad = run(user(), call("search_kb"), answer("Your order is fine."))
    failure = only(grade(case, bad), "order_violation")
    assert failure.step == 2  # the answer's step
    assert failure.evidence["b_tool"] == "answer"
    assert failure.evidence["a_steps"] == []
    # Issue 25: a reply followed by a call and nothing after it is no final answer (the run
    # ended on a tool call), so this pair has no answer to guard and holds.
    ended = run(user(), answer("Your order is fine."), call("lookup_order", {"id": "A1"}))
    assert grade(case, ended).passed
    assert grade(case, ended).figures["final_answer_step"] is None


def test_answer_never_given_b_side_holds() -> None:
    case = ordering_case(groups=GROUPS, before=[["@retrieval", "answer"]])
    assert grade(case, run(user(), call("refund"))).passed


def test_answer_on_a_side_without_answer_is_violated_when_b_occurs() -> None:
    case = ordering_case(before=[["answer", "close_ticket"]])
    result = grade(case, run(user(), call("close_ticket")))
    assert only(result, "order_violation").evidence["a_steps"] == []
    # Issue 25: the final answer follows the last call, so a reply before close_ticket is a
    # preamble, not the answer: `answer` can never precede a call that occurs.
    before_call = grade(case, run(user(), answer(), call("close_ticket")))
    assert only(before_call, "order_violation").evidence["a_steps"] == []
    assert grade(case, run(user())).passed  # neither occurs


def test_answer_is_the_last_assistant_message() -> None:
    # An earlier assistant message is not the final reply; the last one is.
    case = ordering_case(before=[["lookup_order", "answer"]])
    steps = run(answer("Let me check."), call("lookup_order"), answer("Found it."))
    assert grade(case, steps).passed


# --- parallel groups -------------------------------------------------------------------------


def test_same_parallel_group_does_not_order_a_before_b() -> None:
    case = ordering_case(before=[["verify_identity", "refund"]])
    together = run(call("verify_identity", group=1), call("refund", group=1))
    failure = only(grade(case, together), "order_violation")
    assert failure.evidence["a_steps"] == [0] and failure.evidence["b_step"] == 1


def test_a_in_an_earlier_group_precedes_b() -> None:
    case = ordering_case(before=[["verify_identity", "refund"]])
    steps = run(
        call("verify_identity", group=1),
        call("lookup_order", group=1),
        call("refund", group=2),
        call("notify", group=2),
    )
    assert grade(case, steps).passed


def test_b_listed_first_in_a_later_group_still_follows_a() -> None:
    case = ordering_case(before=[["verify_identity", "refund"]])
    steps = run(call("verify_identity"), call("refund", group="g"), call("notify", group="g"))
    assert grade(case, steps).passed


# --- whole-sequence modes --------------------------------------------------------------------


def test_exact_mode_passes_on_equal_sequence_and_fails_otherwise() -> None:
    case = ordering_case(mode="exact", sequence=["a", "b", "c"])
    assert grade(case, tools_run("a", "b", "c")).score == 1.0
    result = grade(case, tools_run("a", "c", "b"))
    assert result.score == 0.0 and result.passed is False
    failure = only(result, "order_violation")
    assert failure.evidence["mode"] == "exact"
    assert failure.step == 1  # first divergence


def test_exact_mode_defaults_to_selection_tools() -> None:
    case = ordering_case(mode="exact", selection=["lookup_order", "refund"])
    assert grade(case, tools_run("lookup_order", "refund")).passed
    assert not grade(case, tools_run("refund", "lookup_order")).passed


def test_mode_without_any_reference_is_not_a_constraint() -> None:
    case = ordering_case(mode="exact")
    result = grade(case, tools_run("a"))
    assert result.figures["constraints_total"] == 0 and result.passed
    assert validate_ordering(case) == [
        "mode: 'exact' needs `sequence` or expected.selection.tools to compare with"
    ]


def test_exact_mode_is_lenient_within_a_parallel_group() -> None:
    case = ordering_case(mode="exact", sequence=["a", "b", "c", "d"])
    steps = run(call("a"), call("c", group=1), call("b", group=1), call("d"))
    assert grade(case, steps).passed
    # Leniency stays inside a group: ungrouped swaps still fail.
    assert not grade(case, tools_run("a", "c", "b", "d")).passed


def test_exact_mode_failure_names_the_differing_call_inside_a_group() -> None:
    # a, then one batch recorded as [x, b]: aligned to the reference it reads a b x, so the
    # first difference is x (recorded at step 1), not b (step 2, which is where it belongs).
    case = ordering_case(mode="exact", sequence=["a", "b", "c"])
    result = grade(case, run(call("a"), call("x", group=1), call("b", group=1)))
    failure = only(result, "order_violation")
    assert failure.evidence["actual"] == ["a", "b", "x"]
    assert failure.step == 1


def test_in_order_lcs_precision_and_recall_hand_computed() -> None:
    # reference a b c d; actual a x c b d. LCS = a c d (or a b d) = 3.
    # precision = 3/5 = 0.6, recall = 3/4 = 0.75; b is out of order so recall < 1: fails.
    case = ordering_case(mode="in_order", sequence=["a", "b", "c", "d"])
    result = grade(case, tools_run("a", "x", "c", "b", "d"))
    assert result.figures["lcs_precision"] == pytest.approx(0.6)
    assert result.figures["lcs_recall"] == pytest.approx(0.75)
    failure = only(result, "order_violation")
    assert failure.evidence["mode"] == "in_order"
    assert failure.evidence["lcs_recall"] == pytest.approx(0.75)


def test_in_order_allows_extra_calls() -> None:
    # reference a b c in order inside a x b y c: LCS 3, precision 3/5, recall 1: holds.
    case = ordering_case(mode="in_order", sequence=["a", "b", "c"])
    result = grade(case, tools_run("a", "x", "b", "y", "c"))
    assert result.passed
    assert result.figures["lcs_precision"] == pytest.approx(0.6)
    assert result.figures["lcs_recall"] == 1.0


def test_in_order_is_lenient_within_a_parallel_group() -> None:
    case = ordering_case(mode="in_order", sequence=["a", "b", "c"])
    steps = run(call("a"), call("c", group=7), call("x", group=7), call("b", group=7))
    result = grade(case, steps)
    assert result.passed
    assert result.figures["lcs_precision"] == pytest.approx(0.75)


def test_any_order_is_multiset_equality() -> None:
    case = ordering_case(mode="any_order", sequence=["a", "b", "b"])
    assert grade(case, tools_run("b", "a", "b")).passed
    result = grade(case, tools_run("b", "a", "c"))
    failure = only(result, "order_violation")
    assert failure.evidence["missing"] == {"b": 1}
    assert failure.evidence["extra"] == {"c": 1}


def test_lcs_length_known_values() -> None:
    assert lcs_length(list("ABCBDAB"), list("BDCABA")) == 4
    assert lcs_length([], ["a"]) == 0
    assert lcs_length(["a", "b"], ["a", "b"]) == 2


@given(
    st.lists(st.sampled_from("abcd"), max_size=8),
    st.lists(st.sampled_from("abcd"), max_size=8),
)
def test_lcs_is_symmetric_and_bounded(x: list[str], y: list[str]) -> None:
    n = lcs_length(x, y)
    assert n == lcs_length(y, x)
    assert 0 <= n <= min(len(x), len(y))
    assert lcs_length(x, x) == len(x)


@given(st.permutations(["a", "b", "c", "d", "e"]))
def test_alignment_recovers_reference_from_one_shuffled_group(order: list[str]) -> None:
    reference = ["a", "b", "c", "d", "e"]
    calls = [ToolCall(tool=t, group=1) for t in order]
    assert aligned_names(calls, reference) == reference


# --- loops and redundant calls ----------------------------------------------------------------


def test_loop_reported_once_per_run_and_not_as_redundant() -> None:
    same = call("search", {"q": "x"})
    result = grade(ordering_case(), run(call("a"), same, same, same, same, call("b")))
    assert names(result) == ["loop"]
    failure = only(result, "loop")
    assert failure.evidence == {"tool": "search", "count": 4, "first_step": 1, "last_step": 4}
    assert failure.step == 1
    assert result.passed is False


def test_two_identical_calls_are_not_a_loop_but_redundant() -> None:
    same = call("search", {"q": "x"})
    result = grade(ordering_case(), run(same, same))
    assert names(result) == ["redundant_call"]
    failure = only(result, "redundant_call")
    assert failure.step == 1 and failure.evidence["previous_step"] == 0
    # redundant_call is reported but does not fail the check.
    assert result.passed is True and result.score == 1.0


def test_two_separate_loops_are_two_failures() -> None:
    x, y = call("s", {"q": 1}), call("s", {"q": 2})
    result = grade(ordering_case(), run(x, x, x, y, y, y))
    loops = [f for f in result.failures if f.name == "loop"]
    assert [(f.evidence["first_step"], f.evidence["last_step"]) for f in loops] == [(0, 2), (3, 5)]
    assert "redundant_call" not in names(result)


def test_loop_threshold_is_configurable() -> None:
    same = call("s", {"q": 1})
    three = run(same, same, same)
    assert "loop" not in names(grade(ordering_case(loop_threshold=4), three))
    assert "loop" in names(grade(ordering_case(loop_threshold=2), run(same, same)))


def test_different_arguments_are_not_identical() -> None:
    result = grade(ordering_case(), run(call("s", {"q": 1}), call("s", {"q": 2}), call("s")))
    assert result.failures == []


def test_integral_float_arguments_are_identical() -> None:
    assert call_key(call("s", {"n": 5})) == call_key(call("s", {"n": 5.0}))
    assert call_key(call("s", {"n": True})) != call_key(call("s", {"n": 1}))
    assert call_key(call("s", {"a": 1, "b": 2})) == call_key(call("s", {"b": 2, "a": 1}))


def test_repeat_after_an_error_is_a_retry_not_redundant_nor_loop() -> None:
    failing = call("lookup", {"id": 1}, status="error")
    result = grade(ordering_case(), run(failing, failing, call("lookup", {"id": 1})))
    assert result.failures == []


def test_repeat_of_a_call_with_no_result_is_not_redundant() -> None:
    pending = call("lookup", {"id": 1}, status=None)
    assert grade(ordering_case(), run(pending, pending)).failures == []


def test_redundant_call_after_ok_even_if_not_adjacent() -> None:
    first = call("lookup", {"id": 1})
    result = grade(ordering_case(), run(first, call("other"), first))
    failure = only(result, "redundant_call")
    assert failure.step == 2 and failure.evidence["previous_step"] == 0


def test_identical_calls_in_one_parallel_group_are_not_redundant() -> None:
    twin = call("lookup", {"id": 1}, group=3)
    assert grade(ordering_case(), run(twin, twin)).failures == []


# --- budgets ---------------------------------------------------------------------------------


def test_over_budget_reports_first_call_past_the_limit() -> None:
    case = ordering_case(max_calls={"lookup_order": 2})
    calls = [call("lookup_order", {"id": i}) for i in range(4)]
    result = grade(case, run(*calls))
    failure = only(result, "over_budget")
    assert failure.step == 2
    assert failure.evidence == {"tool": "lookup_order", "count": 4, "limit": 2}
    assert result.passed is False and result.score == 0.0


def test_a_single_call_over_a_budget_of_zero_reads_once() -> None:
    failure = only(grade(ordering_case(max_calls={"refund": 0}), run(call("refund", {}))),
                   "over_budget")
    assert failure.message == "refund called once, more than its budget of 0"


def test_within_budget_holds() -> None:
    case = ordering_case(max_calls={"lookup_order": 2, "refund": 0})
    result = grade(case, tools_run("lookup_order", "lookup_order"))
    assert result.passed and result.figures["constraints_held"] == 2


def test_group_budget_counts_all_members() -> None:
    case = ordering_case(groups=GROUPS, max_calls={"@retrieval": 1})
    failure = only(grade(case, tools_run("lookup_order", "search_orders")), "over_budget")
    assert failure.step == 1 and failure.evidence["count"] == 2


# --- validation ------------------------------------------------------------------------------


def test_validate_reports_unknown_groups_and_self_pairs() -> None:
    case = ordering_case(
        groups={"retrieval": ["search"], "empty": []},
        before=[["@retrival", "answer"], ["refund", "refund"]],
        max_calls={"@nope": 1, "answer": 1},
    )
    problems = validate_ordering(case)
    assert any("before[0]" in p and "'@retrival'" in p for p in problems)
    assert any("before[1]" in p and "never hold" in p for p in problems)
    assert any("groups.empty" in p for p in problems)
    assert any("max_calls.@nope" in p for p in problems)
    assert any("max_calls.answer" in p for p in problems)
    assert len(problems) == 5


def test_validate_accepts_a_good_case_and_a_case_without_ordering() -> None:
    good = ordering_case(groups=GROUPS, before=[["@retrieval", "answer"]], max_calls={"x": 1})
    assert validate_ordering(good) == []
    assert validate_ordering(Case(id="c")) == []


def test_grading_an_unknown_group_raises_value_error() -> None:
    case = ordering_case(before=[["@ghost", "refund"]])
    with pytest.raises(ValueError, match="ghost"):
        grade(case, tools_run("refund"))


# --- accumulator -----------------------------------------------------------------------------


def test_accumulator_summary_counts_failures_and_pass_rate() -> None:
    check = OrderingCheck()
    acc = check.accumulator()
    case = ordering_case(before=[["a", "b"]])
    good, bad = tools_run("a", "b"), tools_run("b", "a", "b")
    for trajectory in (good, bad):
        result = check.grade(case, trajectory, CTX)
        rec = record(case, trajectory, passed={"ordering": bool(result.passed)})
        rec = rec.model_copy(update={"checks": {"ordering": result}})
        acc.add(case, trajectory, rec)
    summary = acc.summary()
    assert summary["pass_rate"] == 0.5 and summary["applicable"] == 2
    assert summary["failures"] == {"order_violation": 1}
    # Only the passing run (2 calls) is pooled: C = 2/2.
    assert summary["efficiency"] == {"c1": 1.0}
    assert summary["efficiency_n"] == {"c1": 1}


def test_a_run_ending_on_a_tool_call_has_no_final_answer() -> None:
    # "Let me check." then a call and nothing after it: the preamble is not the answer.
    case = ordering_case(before=[["lookup_order", "answer"]])
    ended = grade(case, run(user(), answer("Let me check."), call("lookup_order")))
    assert ended.figures["final_answer_step"] is None
    replied = grade(case, run(user(), call("lookup_order"), answer("Found it.")))
    assert replied.figures["final_answer_step"] == 2


def test_a_preamble_before_the_first_call_is_not_the_answer() -> None:
    # The answer must follow the call; a preamble that was taken as the answer would put
    # `answer` before `lookup_order` and report a violation.
    case = ordering_case(before=[["answer", "lookup_order"]])
    result = grade(case, run(user(), answer("Let me check."), call("lookup_order")))
    assert only(result, "order_violation").evidence["a_steps"] == []


# --- retries of injected faults (issue 25, 5a) -------------------------------------------------


def _faulted_case(kind: str) -> Case:
    recovery = RecoveryExpectation(faults=[FaultSpec(tool="search_kb", nth=1, kind=kind)])
    base = ordering_case(before=[["search_kb", "answer"]])
    return base.model_copy(update={"expected": base.expected.model_copy(
        update={"recovery": recovery})})


@pytest.mark.parametrize("kind", ["empty", "malformed"])
def test_retries_of_a_declared_ok_status_fault_are_not_a_loop(kind: str) -> None:
    # The faulted call is recorded as ok; its two retries are what recovery counts, not a loop
    # of three identical calls, and the first retry does not repeat a call that returned ok.
    q = {"query": "returns"}
    steps = run(user(), call("search_kb", q), call("search_kb", q), call("search_kb", q),
                answer())
    result = grade(_faulted_case(kind), steps)
    assert names(result) == ["redundant_call"]  # the third repeats the second, which was ok
    assert only(result, "redundant_call").evidence["previous_step"] == 2
    # Without the fault declared, the same run is a loop.
    assert names(grade(ordering_case(before=[["search_kb", "answer"]]), steps)) == ["loop"]


def test_a_call_the_run_marks_as_an_injected_fault_is_retried_not_looped() -> None:
    q = {"query": "returns"}
    marked = ToolCall(tool="search_kb", args=q, result=ToolResult(status="ok", content="",
                                                                  fault="empty"))
    steps = run(user(), marked, call("search_kb", q), call("search_kb", q), answer())
    result = grade(ordering_case(before=[["search_kb", "answer"]]), steps)
    assert "loop" not in names(result)
