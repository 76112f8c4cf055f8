"""The recovery check: each stage on a minimal run, nth and all, observed errors, judges."""

from __future__ import annotations

from typing import Any

import pytest

from builders_recovery import (
    FakeJudge,
    bare,
    case,
    ctx,
    err,
    fault,
    ok,
    record,
    recovery,
    run,
    say,
)
from toolgrade.checks.recovery import NO_FINAL_ANSWER, RecoveryCheck
from toolgrade.models import CheckResult, Trajectory, Verdict

CHECK = RecoveryCheck()


def grade(rec: Any = None, r: Trajectory | None = None, state: Any = None,
          judge: Any = None) -> CheckResult:
    return CHECK.grade(case(rec, state), r or run(), ctx(judge))


def stages(result: CheckResult) -> list[str]:
    return [f["stage"] for f in result.figures["faults"]]


# -- each stage ----------------------------------------------------------------------------------


def test_recovered_by_retry_within_ceiling() -> None:
    result = grade(recovery(fault(), max_retries=2),
                   run(err("lookup"), err("lookup"), ok("lookup"), say()))
    assert stages(result) == ["recovered"]
    assert result.figures["faults"][0]["recovered_by"] == "retry"
    assert result.figures["faults"][0]["recovery_step"] == 2
    assert (result.applicable, result.score, result.passed) == (True, 1.0, True)
    assert result.failures == []


def test_recovered_by_allowed_fallback() -> None:
    result = grade(recovery(fault(), fallbacks={"lookup": ["search"]}),
                   run(err("lookup"), ok("search"), say()))
    assert stages(result) == ["recovered"]
    assert result.figures["faults"][0]["recovered_by"] == "fallback"


def test_fallback_with_no_recorded_result_counts() -> None:
    result = grade(recovery(fault(), fallbacks={"lookup": ["search"]}),
                   run(err("lookup"), bare("search")))
    assert stages(result) == ["recovered"]


def test_recovered_by_escalation() -> None:
    result = grade(recovery(fault(), escalate_with="handoff"),
                   run(err("lookup"), ok("handoff"), say("A human will follow up.")))
    assert stages(result) == ["recovered"]
    assert result.figures["faults"][0]["recovered_by"] == "escalation"


def test_no_retry_when_nothing_was_tried() -> None:
    result = grade(recovery(fault("lookup", content="503")), run(ok("auth"), err("lookup"), say()))
    assert stages(result) == ["no_retry"]
    assert result.passed is False and result.score == 0.0
    [failure] = result.failures
    assert failure.name == "no_retry"
    assert failure.step == 1
    assert (failure.evidence["tool"], failure.evidence["nth"], failure.evidence["kind"]) == (
        "lookup", 1, "error")


def test_retry_loop_past_the_ceiling() -> None:
    steps = [err("lookup") for _ in range(4)]
    result = grade(recovery(fault(), max_retries=2), run(*steps))
    assert stages(result) == ["retry_loop"]
    assert result.failures[0].name == "retry_loop"
    assert result.figures["faults"][0]["retries"] == 3


def test_success_only_after_the_ceiling_is_still_a_retry_loop() -> None:
    result = grade(recovery(fault(), max_retries=1),
                   run(err("lookup"), err("lookup"), ok("lookup")))
    assert stages(result) == ["retry_loop"]


def test_escalation_after_a_retry_loop_is_a_retry_loop() -> None:
    result = grade(recovery(fault(), max_retries=0, escalate_with="handoff"),
                   run(err("lookup"), err("lookup"), ok("handoff")))
    assert stages(result) == ["retry_loop"]


def test_wrong_fallback() -> None:
    result = grade(recovery(fault(), fallbacks={"lookup": ["search"]}),
                   run(err("lookup"), ok("guess_order"), say()))
    assert stages(result) == ["wrong_fallback"]
    assert result.failures[0].name == "wrong_fallback"


def test_failed_allowed_fallback_is_not_a_wrong_fallback() -> None:
    result = grade(recovery(fault(), fallbacks={"lookup": ["search"]}),
                   run(err("lookup"), err("search"), ok("guess_order")))
    assert stages(result) == ["no_retry"]


def test_other_tools_without_declared_fallbacks_are_not_wrong_fallback() -> None:
    result = grade(recovery(fault()), run(err("lookup"), ok("guess_order")))
    assert stages(result) == ["no_retry"]


def test_missing_escalation() -> None:
    result = grade(recovery(fault(), escalate_with="handoff"), run(err("lookup"), say("Sorry.")))
    assert stages(result) == ["missing_escalation"]
    assert result.failures[0].name == "missing_escalation"


def test_escalation_before_the_fault_does_not_count() -> None:
    result = grade(recovery(fault(), escalate_with="handoff"), run(ok("handoff"), err("lookup")))
    assert stages(result) == ["missing_escalation"]


# -- nth and all ---------------------------------------------------------------------------------


def test_nth_two_faults_the_second_call() -> None:
    r = run(ok("lookup"), err("lookup"), say())
    result = grade(recovery(fault(nth=2)), r)
    assert stages(result) == ["no_retry"]
    assert result.failures[0].step == 1
    assert result.figures["faults"][0]["nth"] == 2


def test_nth_two_recovered_by_third_call() -> None:
    result = grade(recovery(fault(nth=2)), run(ok("lookup"), err("lookup"), ok("lookup")))
    assert stages(result) == ["recovered"]


def test_all_means_a_retry_cannot_succeed() -> None:
    # The recorded retry says ok, but with nth: all every call of the tool is faulted.
    result = grade(recovery(fault(nth="all"), max_retries=3), run(err("lookup"), ok("lookup")))
    assert stages(result) == ["no_retry"]
    assert result.failures[0].message.startswith("lookup every call (error): ")


def test_all_recovered_by_fallback() -> None:
    result = grade(recovery(fault(nth="all"), fallbacks={"lookup": ["search"]}),
                   run(err("lookup"), err("lookup"), ok("search")))
    assert stages(result) == ["recovered"]
    assert result.figures["faults"][0]["step"] == 0


def test_a_retry_that_is_itself_a_faulted_call_does_not_recover() -> None:
    # `empty` faults are recorded as ok by the injector; the spec says the second call failed too.
    faults = (fault(nth=1, kind="empty"), fault(nth=2, kind="empty"))
    gave_up = grade(recovery(*faults), run(ok("lookup", ""), ok("lookup", ""), say()))
    assert stages(gave_up) == ["no_retry", "no_retry"]
    assert gave_up.score == 0.0
    third = grade(recovery(*faults), run(ok("lookup", ""), ok("lookup", ""), ok("lookup")))
    assert stages(third) == ["recovered", "recovered"]
    assert third.figures["faults"][0]["recovery_step"] == 2
    assert third.figures["faults"][0]["retries"] == 2


def test_a_fallback_that_is_itself_a_faulted_call_does_not_recover() -> None:
    rec = recovery(fault(), fault("search", kind="empty"), fallbacks={"lookup": ["search"]})
    result = grade(rec, run(err("lookup"), ok("search", ""), say()))
    assert stages(result) == ["no_retry", "no_retry"]
    assert result.score == 0.0


def test_calls_of_the_faulted_tool_batched_with_it_are_not_retries() -> None:
    # One parallel batch: lookup A fails, lookup B succeeds. Nothing was done about A.
    rec = recovery(fault(), fallbacks={"lookup": ["search"]}, escalate_with="handoff")
    a, b = err("lookup", order="A").model_copy(update={"group": 1}), ok("lookup", order="B")
    result = grade(rec, run(a, b.model_copy(update={"group": 1}), say()))
    assert stages(result) == ["missing_escalation"]
    assert result.figures["faults"][0]["retries"] == 0
    # A fallback or the escalation batched with it is a hedge: its result is at hand.
    for other, how in ((ok("handoff"), "escalation"), (ok("search"), "fallback")):
        batched = grade(rec, run(a, other.model_copy(update={"group": 1}), say()))
        assert stages(batched) == ["recovered"]
        assert batched.figures["faults"][0]["recovered_by"] == how
    # A retry in the next message, after the failure came back, recovers.
    later = grade(rec, run(a, b.model_copy(update={"group": 1}), ok("lookup", order="A"), say()))
    assert stages(later) == ["recovered"]
    assert later.figures["faults"][0]["recovery_step"] == 2


def test_fault_that_never_fired_is_not_triggered_and_not_scored() -> None:
    result = grade(recovery(fault("lookup", nth=3), fault("refund")),
                   run(ok("lookup"), err("refund"), ok("refund")))
    assert stages(result) == ["not_triggered", "recovered"]
    assert result.figures["faults"][0]["step"] is None
    assert (result.score, result.passed) == (1.0, True)


def test_only_untriggered_faults_is_not_applicable() -> None:
    result = grade(recovery(fault("lookup")), run(ok("refund")))
    assert result.applicable is False
    assert stages(result) == ["not_triggered"]


def test_no_recovery_or_state_reference_is_not_applicable() -> None:
    result = grade(None, run(err("lookup")))
    assert result.applicable is False and result.passed is None


# -- observed errors -----------------------------------------------------------------------------


def test_observed_errors_graded_when_asked() -> None:
    r = run(ok("lookup"), err("refund", "card declined"), say())
    assert grade(recovery(), r).applicable is False
    result = grade(recovery(grade_observed_errors=True), r)
    assert result.applicable is True
    [entry] = result.figures["faults"]
    assert (entry["tool"], entry["nth"], entry["kind"], entry["source"]) == (
        "refund", 1, "error", "observed")
    assert entry["stage"] == "no_retry"


def test_retries_inside_a_fault_episode_are_not_graded_twice() -> None:
    r = run(err("lookup"), err("lookup"), ok("lookup"), ok("refund"), err("notify"), ok("notify"))
    result = grade(recovery(fault(), grade_observed_errors=True), r)
    faults = result.figures["faults"]
    assert [(f["tool"], f["source"], f["stage"]) for f in faults] == [
        ("lookup", "spec", "recovered"),
        ("notify", "observed", "recovered"),
    ]
    assert result.score == 1.0


def test_retries_past_a_retry_loop_are_one_episode() -> None:
    # Five failed lookups with a ceiling of 1: one retry_loop, not a second fault for call 4.
    r = run(*[err("lookup") for _ in range(5)], ok("search"), err("notify"), say())
    result = grade(recovery(fault(), max_retries=1, fallbacks={"lookup": ["search"]},
                            grade_observed_errors=True), r)
    faults = result.figures["faults"]
    assert [(f["tool"], f["source"], f["stage"]) for f in faults] == [
        ("lookup", "spec", "retry_loop"),
        ("notify", "observed", "no_retry"),
    ]
    assert faults[0]["retries"] == 4
    assert [f.name for f in result.failures] == ["retry_loop", "no_retry"]


def test_an_error_after_a_retry_loop_ended_is_a_new_fault() -> None:
    r = run(err("lookup"), err("lookup"), err("lookup"), ok("lookup"), err("lookup"), say())
    result = grade(recovery(fault(), max_retries=1, grade_observed_errors=True), r)
    assert [(f["nth"], f["stage"]) for f in result.figures["faults"]] == [
        (1, "retry_loop"), (5, "no_retry")]
    assert result.figures["faults"][0]["retries"] == 3


def test_all_faulted_tool_errors_are_covered_by_its_spec() -> None:
    r = run(err("lookup"), ok("search"), err("lookup"))
    result = grade(recovery(fault(nth="all"), fallbacks={"lookup": ["search"]},
                            grade_observed_errors=True), r)
    assert stages(result) == ["recovered"]


# -- state inside the check ----------------------------------------------------------------------


def test_score_mixes_faults_and_state_assertions() -> None:
    r = run(err("lookup"), ok("lookup"), final_state={"orders": {"A1": {"status": "open"}}})
    state = [{"path": "orders.A1.status", "equals": "refunded"},
             {"path": "orders.A1", "exists": True}]
    result = grade(recovery(fault()), r, state=state)
    assert result.score == pytest.approx(2 / 3)
    assert result.passed is False
    [failure] = result.failures
    assert failure.name == "state_mismatch"
    assert failure.evidence == {"path": "orders.A1.status", "operator": "equals",
                                "expected": "refunded", "actual": "open"}
    assert result.figures["state"][0]["passed"] is False


def test_state_only_case_is_applicable() -> None:
    result = grade(None, run(final_state={"done": True}), state=[{"path": "done", "equals": True}])
    assert (result.applicable, result.passed, result.score) == (True, True, 1.0)


def test_missing_final_state_is_a_mismatch_with_actual_null() -> None:
    result = grade(None, run(), state=[{"path": "orders.A1", "absent": True}])
    [failure] = result.failures
    assert failure.name == "state_mismatch" and failure.evidence["actual"] is None


# -- judges --------------------------------------------------------------------------------------


def test_judges_off_records_nothing_judged() -> None:
    result = grade(recovery(fault()), run(err("lookup"), say()))
    assert result.figures["judges"] == "off"
    assert "judge_recovery" not in result.figures
    assert "judge_interpretation" not in result.figures


def test_recovery_quality_asked_per_fault_and_recorded_without_changing_stage() -> None:
    judge = FakeJudge(recovery_quality=Verdict(verdict="fail", reason="clumsy"))
    r = run(say("hi"), err("lookup", "503"), ok("lookup", args_ok=1), say("Refunded."))
    result = grade(recovery(fault(content="503")), r, judge=judge)
    assert stages(result) == ["recovered"] and result.passed is True
    [request] = judge.asked("recovery_quality")
    assert request.inputs["task"] == "Refund order A1"
    assert request.inputs["fault"] == {"tool": "lookup", "nth": 1, "kind": "error",
                                       "content": "503"}
    assert request.inputs["stage"] == "recovered"
    assert request.inputs["transcript"] == [
        {"step": 2, "tool": "lookup", "args": {"args_ok": 1}, "status": "ok", "content": "fine"},
        {"step": 3, "role": "assistant", "content": "Refunded."},
    ]
    [recorded] = result.figures["judge_recovery"]
    assert (recorded["verdict"], recorded["reason"], recorded["step"]) == ("fail", "clumsy", 1)
    # Nothing went wrong deterministically: result interpretation is not asked.
    assert judge.asked("result_interpretation") == []


def test_result_interpretation_label_adds_false_success_claim() -> None:
    verdict = Verdict(verdict="fail", reason="claims a refund", label="false_success_claim")
    judge = FakeJudge(result_interpretation=verdict)
    r = run(err("refund", "card declined"), say("Your refund is done!"),
            final_state={"refunds": []})
    result = grade(recovery(fault("refund")), r, state=[{"path": "refunds", "count": 1}],
                   judge=judge)
    names = [f.name for f in result.failures]
    assert names == ["no_retry", "state_mismatch", "false_success_claim"]
    assert result.failures[-1].step == 1
    [request] = judge.asked("result_interpretation")
    assert request.inputs["final_answer"] == "Your refund is done!"
    assert request.inputs["tool_results"] == [
        {"step": 0, "tool": "refund", "status": "error", "content": "card declined"}]
    assert len(request.inputs["findings"]) == 2
    assert result.figures["judge_interpretation"]["label"] == "false_success_claim"


def test_a_run_ending_on_a_tool_call_tells_the_interpreter_it_has_no_answer() -> None:
    judge = FakeJudge(result_interpretation=Verdict(verdict="pass", reason="ok"))
    r = run(say("Let me check."), err("refund", "card declined"))
    grade(recovery(fault("refund")), r, judge=judge)
    [request] = judge.asked("result_interpretation")
    assert request.inputs["final_answer"] is None
    assert request.inputs["findings"][-1] == NO_FINAL_ANSWER


def test_interpretation_fail_without_a_known_label_adds_no_failure() -> None:
    judge = FakeJudge(result_interpretation=Verdict(verdict="fail", reason="odd", label="other"))
    result = grade(recovery(fault()), run(err("lookup"), say("x")), judge=judge)
    assert [f.name for f in result.failures] == ["no_retry"]
    assert result.figures["judge_interpretation"]["verdict"] == "fail"


def test_unscored_interpretation_is_recorded_not_counted() -> None:
    judge = FakeJudge(result_interpretation=Verdict.unscored("no parse"))
    result = grade(recovery(fault()), run(err("lookup")), judge=judge)
    assert result.figures["judge_interpretation"]["verdict"] == "unscored"
    assert [f.name for f in result.failures] == ["no_retry"]


# -- accumulator ---------------------------------------------------------------------------------


def test_accumulator_counts_stages_and_state() -> None:
    acc = CHECK.accumulator()
    graded = [
        grade(recovery(fault()), run(err("lookup"), ok("lookup"))),
        grade(recovery(fault()), run(err("lookup"))),
        grade(recovery(fault("x")), run(ok("lookup"))),  # not applicable, not_triggered
        grade(None, run(final_state={"a": 1}), state=[{"path": "a", "equals": 1},
                                                      {"path": "b", "exists": True}]),
    ]
    for result in graded:
        acc.add(case(), run(), record(result))
    summary = acc.summary()
    assert summary["applicable"] == 3
    assert summary["pass_rate"] == pytest.approx(1 / 3)
    assert summary["stages"] == {"no_retry": 1, "not_triggered": 1, "recovered": 1}
    assert summary["state_pass_rate"] == 0.5


def test_accumulator_with_nothing_applicable() -> None:
    summary = CHECK.accumulator().summary()
    assert summary == {"pass_rate": None, "applicable": 0, "stages": {}, "state_pass_rate": None}
