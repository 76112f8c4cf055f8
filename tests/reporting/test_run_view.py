"""The run view: each failure on the step it points at, side-by-side values, faults, groups."""

from __future__ import annotations

from typing import Any

from builders_reporting import check, failure, record
from toolgrade.models import Message, ToolCall, ToolResult, Trajectory
from toolgrade.reporting.run_view import build_run_view, run_anchor, shown, step_anchor


def _run() -> Trajectory:
    return Trajectory(case_id="refund-01", agent="bot", steps=[
        Message(role="user", content="refund A1"),
        ToolCall(tool="lookup_order", args={"order_id": "A1"},
                 result=ToolResult(status="error", content="503")),
        ToolCall(tool="lookup_order", args={"order_id": "A1"}, group=7,
                 result=ToolResult(content={"total": 25})),
        ToolCall(tool="verify_identity", args={"email": "a@b.c"}, group=7),
        ToolCall(tool="refund", args={"order_id": "A1", "amount": "25"},
                 result=ToolResult(content="ok")),
        Message(role="assistant", content="Refunded."),
    ])


def _record() -> dict[str, Any]:
    wrong = {**failure("wrong_value", 4, "refund.amount: not a number"),
             "expected": {"approx": 25.0, "tol": 0.01}, "actual": "25"}
    schema = {**failure("type_mismatch", 4, "refund.amount: '25' is not a number"),
              "value": "25", "constraint": "type", "limit": "number"}
    line = record(
        "refund-01", passed=False,
        selection=check(passed=False, score=0.5, failures=[
            failure("missing_tool", None, "expected escalate, never called"),
            failure("extra_tool", 99, "a step the run does not have")]),
        arguments=check(passed=False, score=0.5, failures=[wrong, schema],
                        unscored_fields=[{"tool": "refund", "step": 4, "field": "reason",
                                          "reason": "no judge configured"}]),
        recovery=check(faults=[{"tool": "lookup_order", "nth": 1, "kind": "error",
                                "stage": "recovered", "step": 1, "recovered_by": "retry",
                                "recovery_step": 2}]),
    )
    line["judges"] = {"recovery_quality": [{"verdict": "pass", "reason": "retried once"}]}
    return line


def test_failures_are_pinned_to_their_steps_and_the_rest_to_the_run() -> None:
    view = build_run_view(_record(), _run())
    steps = {s.index: s for b in view.blocks for s in b.steps}
    assert [p.name for p in steps[4].failures] == ["wrong_value", "type_mismatch"]
    # No step, or a step the run does not have: on the run itself, never lost.
    assert [p.name for p in view.run_failures] == ["missing_tool", "extra_tool"]
    assert view.n_failures == 4 and view.n_steps == 6
    assert view.failed_checks == ("selection", "arguments")
    assert view.failure_names == ("extra_tool", "missing_tool", "type_mismatch", "wrong_value")


def test_expected_and_actual_are_shown_for_wrong_values_and_schema_failures() -> None:
    view = build_run_view(_record(), _run())
    wrong, schema = next(s for b in view.blocks for s in b.steps if s.index == 4).failures
    assert (wrong.expected, wrong.actual) == ('{"approx": 25.0, "tol": 0.01}', "25")
    assert (schema.expected, schema.actual) == ("type: number", "25")
    assert view.run_failures[0].expected is None  # a missing tool has no values to compare


def test_faults_groups_scores_and_judges() -> None:
    view = build_run_view(_record(), _run())
    assert [(b.group, [s.index for s in b.steps]) for b in view.blocks] == [
        (None, [0]), (None, [1]), ("7", [2, 3]), (None, [4]), (None, [5])]
    fault = view.blocks[1].steps[0].fault
    assert fault == "injected fault: error (lookup_order call 1) -> recovered by retry at step 2"
    assert [(c.check, c.score, c.outcome) for c in view.checks] == [
        ("selection", "0.500", "FAIL"), ("arguments", "0.500", "FAIL"),
        ("ordering", "\N{EN DASH}", "n/a"), ("recovery", "1.000", "pass")]
    assert [(j.check, j.name, j.message) for j in view.judges] == [
        ("recovery_quality", "pass", "retried once")]
    step4 = view.blocks[3].steps[0]
    assert [(j.name, j.message) for j in step4.judges] == [
        ("unscored", "refund.reason: no judge configured")]
    assert (step4.args, step4.status, step4.result) == ('{"order_id": "A1", "amount": "25"}',
                                                        "ok", "ok")
    assert view.blocks[2].steps[1].status is None  # no result recorded


def test_anchors_tell_runs_apart_whatever_their_ids_hold() -> None:
    a, b = run_anchor("a/b", "c", 0), run_anchor("a", "b/c", 0)
    assert a != b and a != run_anchor("a/b", "c", 1) and a != run_anchor("a/b", None, 0)
    assert step_anchor(a, 3) == f"{a}-s3" and step_anchor(a, None) == f"{a}-run"
    assert all(ch.isalnum() or ch in "-_" for ch in a)


def test_shown_text_is_one_clipped_line_without_control_characters() -> None:
    assert shown("a\nb\x1b[31m") == "a b [31m"
    assert len(shown("x" * 5000)) == 2000 and shown("x" * 5000).endswith("…")
    assert shown({"k": [1, None]}) == '{"k": [1, null]}'


def _adjudicated(**figures: Any) -> dict[str, Any]:
    return record("refund-01", selection=check(adjudicated_route=["refund", "search_orders"],
                                               **figures))


def test_a_person_s_decision_and_an_adjudicated_pass_are_shown_apart() -> None:
    human = build_run_view(_adjudicated(adjudicated="pass", adjudicated_by="human",
                                        adjudication_reason="fine by email"), _run())
    assert [(p.check, p.name, p.message) for p in human.adjudications] == [
        ("selection", "adjudicated pass",
         "route refund, search_orders: decided pass by a person: fine by email")]
    rejected = build_run_view(_adjudicated(adjudicated="fail", adjudicated_by="human"), _run())
    assert [p.message for p in rejected.adjudications] == [
        "route refund, search_orders: decided fail by a person"]
    judged = build_run_view(_adjudicated(adjudicated="pass", adjudicated_by="judge",
                                         adjudication_reason="ok"), _run())
    assert [p.message for p in judged.adjudications] == [
        "route refund, search_orders: decided pass by the judge: ok"]


def test_a_judge_fail_that_changed_nothing_adds_no_decision_line() -> None:
    # The judge log already shows it; the check stays failed as measured.
    view = build_run_view(_adjudicated(adjudicated="fail", adjudicated_by="judge"), _run())
    assert view.adjudications == ()


def test_an_unparsed_call_shows_the_models_text() -> None:
    run = Trajectory(case_id="c", steps=[
        ToolCall(tool="(unparsed)", raw_arguments="Sure! It is 120.")])
    unparsed = {**failure("unparseable_call", 0, "not calls"), "value": "Sure! It is 120."}
    view = build_run_view(record("c", passed=False, arguments=check(
        passed=False, failures=[unparsed])), run)
    step = view.blocks[0].steps[0]
    assert step.args == "Sure! It is 120."
    assert (step.failures[0].expected, step.failures[0].actual) == (
        "tool calls in a known form", "Sure! It is 120.")
