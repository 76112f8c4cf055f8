"""Judges and people that decide: selection's adjudicated routes and recovery's judge_quality."""

from __future__ import annotations

from typing import Literal

import pytest

from builders_recovery import FakeJudge as RecoveryJudge
from builders_recovery import case as recovery_case
from builders_recovery import ctx, err, fault, ok, recovery, run, say
from builders_selection import FakeJudge, failure_names, run_of, sel_case
from toolgrade.checks.base import GradeContext
from toolgrade.checks.recovery import RecoveryCheck
from toolgrade.checks.selection import SelectionCheck
from toolgrade.models import Case, CheckResult, HumanDecisions, RouteDecision, Trajectory, Verdict

Said = Literal["pass", "fail", "unscored"]


def judged(case: Case, names: list[str], verdict: Said, *, decisions: HumanDecisions | None = None
           ) -> tuple[CheckResult, FakeJudge]:
    judge = FakeJudge(Verdict(verdict=verdict, reason=f"judge says {verdict}"))
    context = GradeContext(judge=judge, decisions=decisions or HumanDecisions())
    return SelectionCheck().grade(case, run_of(names), context), judge


AMBIGUOUS = sel_case(["lookup", "refund"], judge_alternates=True, catalogue=["lookup", "search",
                                                                             "refund", "wipe"],
                     forbidden=["wipe"], side_effect=["refund"])


def test_judge_pass_passes_selection_keeping_the_measured_f1() -> None:
    result, _ = judged(AMBIGUOUS, ["search", "refund"], "pass")
    assert (result.passed, result.score, result.failures) == (True, 1.0, [])
    figures = result.figures
    assert figures["f1"] == pytest.approx(0.5)
    assert figures["adjudicated"] == "pass" and figures["adjudicated_by"] == "judge"
    assert figures["adjudication_reason"] == "judge says pass"
    assert figures["adjudicated_route"] == ["refund", "search"]
    assert figures["unadjudicated"] == {"score": pytest.approx(0.5), "passed": False}
    assert [f["name"] for f in figures["overridden_failures"]] == ["substitution"]


@pytest.mark.parametrize("verdict", ["fail", "unscored"])
def test_judge_fail_or_unscored_keeps_selection_failed(verdict: Said) -> None:
    result, _ = judged(AMBIGUOUS, ["search", "refund"], verdict)
    assert result.passed is False and result.score == pytest.approx(0.5)
    assert failure_names(result) == ["substitution"]
    assert result.figures["adjudicated"] == verdict
    assert "unadjudicated" not in result.figures


@pytest.mark.parametrize(
    ("names", "hard"),
    [
        (["lookup", "refund", "wipe"], "forbidden_tool"),
        (["lookup", "refund", "refund"], "unauthorized_side_effect"),
        (["lookup", "refund", "teleport"], "unknown_tool"),
    ],
)
def test_a_hard_fail_is_never_overridden(names: list[str], hard: str) -> None:
    human = HumanDecisions([RouteDecision(case_id="c1", route=names, decision="accept")])
    result, judge = judged(AMBIGUOUS, names, "pass", decisions=human)
    assert result.passed is False
    assert hard in failure_names(result)
    assert "adjudicated" not in result.figures
    assert result.figures["adjudication_blocked_by"] == [hard]
    # Still asked, as before judges decided: the verdict stays visible, advisory.
    assert result.figures["judge_route"]["verdict"] == "pass" and len(judge.requests) == 1


@pytest.mark.parametrize(("decision", "passed"), [("accept", True), ("reject", False)])
def test_a_human_decision_beats_the_judge(decision: Literal["accept", "reject"], passed: bool
                                          ) -> None:
    human = HumanDecisions([
        RouteDecision(case_id="c1", route=["refund", "search"], decision=decision,
                      reason="ok by policy", by="ana"),
    ])
    judge_says: Said = "fail" if passed else "pass"
    result, judge = judged(AMBIGUOUS, ["search", "refund"], judge_says, decisions=human)
    assert result.passed is passed
    assert judge.requests == []  # the person decided: no model call
    assert result.figures["adjudicated_by"] == "human"
    assert result.figures["adjudicated"] == ("pass" if passed else "fail")
    assert result.figures["adjudication_reason"] == "ok by policy"
    assert "judge_route" not in result.figures


def test_a_human_decision_is_per_case_and_route() -> None:
    other = HumanDecisions([
        RouteDecision(case_id="c2", route=["search", "refund"], decision="accept"),
        RouteDecision(case_id="c1", route=["search"], decision="accept"),
    ])
    result, judge = judged(AMBIGUOUS, ["search", "refund"], "fail", decisions=other)
    assert result.passed is False and result.figures["adjudicated_by"] == "judge"
    assert len(judge.requests) == 1


def test_the_latest_decision_on_a_route_wins() -> None:
    decisions = HumanDecisions([
        RouteDecision(case_id="c1", route=["search", "refund"], decision="accept"),
        RouteDecision(case_id="c1", route=["refund", "search"], decision="reject"),
    ])
    assert len(decisions) == 1
    found = decisions.get("c1", ["search", "refund"])
    assert found is not None and found.decision == "reject"


def test_without_judge_alternates_decisions_are_not_consulted() -> None:
    plain = sel_case(["lookup", "refund"], catalogue=["lookup", "search", "refund"])
    human = HumanDecisions([RouteDecision(case_id="c1", route=["search", "refund"],
                                          decision="accept")])
    result, judge = judged(plain, ["search", "refund"], "pass", decisions=human)
    assert result.passed is False and judge.requests == []
    assert "adjudicated" not in result.figures


def test_no_judge_configured_is_unscored_and_never_passes() -> None:
    result = SelectionCheck().grade(AMBIGUOUS, run_of(["search", "refund"]), GradeContext())
    assert result.passed is False and result.figures["adjudicated"] == "unscored"


# -- recovery: judge_quality --------------------------------------------------------------------

RECOVERED = run(err("lookup", "503"), ok("lookup"), say("Refunded."))


def grade_recovery(judge_quality: bool, verdict: Said, trajectory: Trajectory = RECOVERED
                   ) -> CheckResult:
    judge = RecoveryJudge(recovery_quality=Verdict(verdict=verdict, reason="clumsy retry"))
    rec = recovery(fault(), judge_quality=judge_quality)
    return RecoveryCheck().grade(recovery_case(rec), trajectory, ctx(judge))


def test_quality_fail_fails_recovery_with_poor_recovery_at_the_step() -> None:
    result = grade_recovery(True, "fail")
    assert result.passed is False and result.score == 1.0
    [failure] = result.failures
    assert (failure.name, failure.step, failure.message) == ("poor_recovery", 0, "clumsy retry")
    assert failure.evidence == {"tool": "lookup", "nth": 1, "judge": "recovery_quality"}
    assert result.figures["faults"][0]["stage"] == "recovered"  # the stage is kept
    assert result.figures["adjudicated"] == "fail"
    assert result.figures["unadjudicated"] == {"score": 1.0, "passed": True}


def test_quality_fail_is_advisory_without_judge_quality() -> None:
    result = grade_recovery(False, "fail")
    assert result.passed is True and result.failures == []
    assert "adjudicated" not in result.figures


def test_quality_pass_never_overrides_a_deterministic_failure() -> None:
    gave_up = run(err("lookup", "503"), say("Sorry."))
    result = grade_recovery(True, "pass", gave_up)
    assert result.passed is False and failure_names(result)[0] == "no_retry"
    assert result.figures["adjudicated"] == "pass"
    assert "unadjudicated" not in result.figures


def test_quality_unscored_leaves_the_deterministic_outcome() -> None:
    result = grade_recovery(True, "unscored")
    assert result.passed is True and result.figures["adjudicated"] == "unscored"


FREE_READS = sel_case(["lookup", "refund"], judge_alternates=True, allowed=["search", "profile"],
                      side_effect=["refund"])


def test_free_calls_are_not_part_of_the_route_decided_on() -> None:
    # With free calls, an extra lookup beside the route is neither extra nor missing: the same
    # departure (no `lookup`) with or without it is one route, decided once.
    bare, _ = judged(FREE_READS, ["search", "refund"], "fail")
    more, judge = judged(FREE_READS, ["profile", "search", "refund", "search"], "fail")
    assert bare.figures["adjudicated_route"] == more.figures["adjudicated_route"] == ["refund"]
    # The judge still sees everything the agent called.
    assert judge.requests[0].inputs["actual_route"] == ["profile", "search", "refund", "search"]
    human = HumanDecisions([RouteDecision(case_id="c1", route=["refund"], decision="accept")])
    accepted, _ = judged(FREE_READS, ["profile", "search", "refund"], "fail", decisions=human)
    assert accepted.passed is True and accepted.figures["adjudicated_by"] == "human"


def test_a_free_tool_the_route_lists_stays_in_the_route_decided_on() -> None:
    case = sel_case(["search", "lookup", "refund"], judge_alternates=True, allowed=["search"],
                    side_effect=["refund"])
    result, _ = judged(case, ["search", "search", "refund"], "fail")
    assert result.figures["adjudicated_route"] == ["refund", "search"]
