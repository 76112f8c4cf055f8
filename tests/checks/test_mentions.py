"""What the agent must say: `expected.answer.mentions`, graded by the recovery check."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from builders_recovery import FakeJudge, ctx, err, fault, ok, record, recovery, run, say
from toolgrade.checks.mentions import check_mentions, comparable
from toolgrade.checks.recovery import RecoveryAccumulator, RecoveryCheck
from toolgrade.models import (
    AnswerExpectation,
    Case,
    CheckResult,
    Expected,
    Message,
    Trajectory,
    Verdict,
)

CHECK = RecoveryCheck()


def case_with(*mentions: str, rec: object = None) -> Case:
    return Case(id="c1", input="How much is my refund?",
                expected=Expected(recovery=rec, answer=AnswerExpectation(mentions=list(mentions))))


def grade(c: Case, r: Trajectory, judge: object = None) -> CheckResult:
    return CHECK.grade(c, r, ctx(judge))


def test_a_mention_in_any_assistant_message_is_met() -> None:
    r = run(say("Your refund of $1,628.50 is on its way."), ok("lookup"), say("Anything else?"))
    result = grade(case_with("1628.50"), r)
    assert (result.applicable, result.score, result.passed) == (True, 1.0, True)
    assert result.figures["mentions"] == [{"mention": "1628.50", "passed": True, "step": 0}]


def test_case_is_ignored_and_commas_on_both_sides() -> None:
    r = run(say("The ORDER #W123 total is 1,234 dollars"))
    assert [m.passed for m in check_mentions(["order #w123", "1,234", "1234 DOLLARS"], r)] == [
        True, True, True]
    assert comparable("A,b, C") == "ab c"


def test_a_mention_never_said_is_missing_mention() -> None:
    r = run(say("I have processed your request."))
    result = grade(case_with("refunded", "46.55"), run(say("Refunded 46.5 dollars.")))
    assert result.passed is False
    assert result.score == 0.5
    assert [(f.name, f.evidence) for f in result.failures] == [
        ("missing_mention", {"mention": "46.55"})]
    assert grade(case_with("x-9"), r).failures[0].step is None


def test_only_the_agent_speaking_counts() -> None:
    r = run(Message(role="user", content="My refund is 46.55?"),
            ok("lookup", content="refund 46.55"), say("Done."))
    assert grade(case_with("46.55"), r).passed is False


def test_content_blocks_are_read_for_their_text() -> None:
    r = run(Message(role="assistant", content=[{"type": "text", "text": "Total: 12"}]))
    assert grade(case_with("total: 12"), r).passed is True


def test_mentions_share_the_score_with_faults() -> None:
    rec = recovery(fault("lookup"), max_retries=1)
    r = run(err("lookup"), ok("lookup"), say("The total is 10."))
    result = grade(case_with("10", "eleven", rec=rec), r)
    assert result.score == pytest.approx(2 / 3)
    assert [f.name for f in result.failures] == ["missing_mention"]


def test_no_mentions_leaves_the_check_not_applicable() -> None:
    c = Case(id="c1", input="x", expected=Expected(answer=AnswerExpectation(mentions=[])))
    assert grade(c, run(say())).applicable is False
    with pytest.raises(ValidationError):
        AnswerExpectation.model_validate({"mentions": [""]})
    with pytest.raises(ValidationError):
        Expected.model_validate({"answer": {"mention": ["x"]}})


def test_the_interpretation_judge_is_told_what_was_not_said() -> None:
    judge = FakeJudge(result_interpretation=Verdict(verdict="pass", reason="ok"))
    grade(case_with("46.55"), run(say("Done.")), judge)
    [request] = judge.asked("result_interpretation")
    assert request.inputs["findings"] == ["the agent never said '46.55'"]


def test_summary_reports_the_mention_pass_rate_only_when_mentions_exist() -> None:
    acc = RecoveryAccumulator()
    c = case_with("a", "b")
    acc.add(c, run(), record(grade(c, run(say("a")))))
    assert acc.summary()["mention_pass_rate"] == 0.5
    assert "mention_pass_rate" not in RecoveryAccumulator().summary()
