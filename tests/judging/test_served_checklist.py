"""A checklist judge on a served model through litellm, against the stand-in server on
127.0.0.1: one request per order with log-probabilities, k requests without them."""

from __future__ import annotations

import pytest

from builders_judging import request_for
from builders_served import KEY_ENV, served_engine, served_settings
from toolgrade.judging.checklist import load_checklist
from toolgrade.judging.standin import FaultPlan, StandInServer
from toolgrade.models import JudgeRequest, Verdict
from toolgrade.settings import DimensionSettings


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "stand-in-key")


def _settings(server: StandInServer, dimension: str, **changes):
    return served_settings(server, mode="logprob", timeout_s=changes.pop("timeout_s", 30.0),
                           dimensions={dimension: DimensionSettings(checklist=True)}, **changes)


def _judge(plan: FaultPlan, request: JudgeRequest,
           **changes) -> tuple[Verdict, dict, StandInServer]:
    """The verdict of `request` on a served checklist judge, its usage, and the server."""
    with (StandInServer(plan) as server,
          served_engine(_settings(server, request.dimension, **changes)) as judge):
        verdict = judge.judge(request)
        return verdict, dict(judge.usage()[request.dimension]), server


def test_one_request_reads_every_answer_from_the_log_probabilities() -> None:
    checklist = load_checklist("recovery_quality")
    verdict, usage, server = _judge(FaultPlan(p_yes=0.7), request_for("recovery_quality"))
    assert server.requests == 1
    assert verdict.answers == {q.feature: pytest.approx(0.7) for q in checklist.model_questions}
    assert usage["calls"] == 1 and usage["tokens"] > 0


def test_both_orders_cost_one_request_each() -> None:
    request = request_for("argument_equivalence", expected="Paris", actual="Lyon")
    verdict, _, server = _judge(FaultPlan(p_yes=0.9), request)
    assert server.requests == 2 and verdict.scored
    first, second = server.asked
    assert first.index("Paris") < first.index("Lyon") and second.index("Lyon") < second.index(
        "Paris")


def test_per_question_requests_cost_one_each() -> None:
    k = len(load_checklist("recovery_quality").model_questions)
    verdict, _, server = _judge(FaultPlan(p_yes=0.7), request_for("recovery_quality"),
                                checklist_requests="per_question")
    assert server.requests == k and verdict.scored
    assert list(verdict.answers.values()) == pytest.approx([0.7] * k)


def test_a_server_without_log_probabilities_gets_the_question_alone_then_unscored() -> None:
    first = load_checklist("recovery_quality").model_questions[0]
    verdict, _, server = _judge(FaultPlan(logprobs=False), request_for("recovery_quality"))
    # The batch, then the first question alone: with no log-probabilities there either, the
    # item is unscored there, naming the question, rather than asking the other k - 1.
    assert server.requests == 2
    assert verdict.verdict == "unscored"
    assert f"question {first.id}" in verdict.reason and "no log-probabilities" in verdict.reason


def test_a_timed_out_batch_is_retried_then_answered() -> None:
    plan = FaultPlan(rate=1.0, kinds=("timeout",), max_in_a_row=1, hang_s=5.0)
    verdict, usage, server = _judge(plan, request_for("recovery_quality"), timeout_s=1.0)
    assert server.faults == {"timeout": 1} and server.requests == 2
    assert verdict.scored and usage["calls"] == 2


def test_a_batch_that_always_times_out_is_unscored_without_k_more_requests() -> None:
    plan = FaultPlan(rate=1.0, kinds=("timeout",), max_in_a_row=10, hang_s=5.0)
    verdict, _, server = _judge(plan, request_for("recovery_quality"), timeout_s=0.5,
                                max_attempts=2)
    assert server.requests == 2  # two tries of the one batch request
    assert verdict.verdict == "unscored" and "model call failed" in verdict.reason
