"""The fitted combination: its score, and the engine applying it to logprob verdicts."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from builders_judging import engine, request_for
from toolgrade.judging.combine import combine
from toolgrade.judging.scripted import FakeClient, logprob_reply
from toolgrade.models import Combination, Verdict
from toolgrade.models.combination import LOGIT_CLIP, MODEL_FEATURE, model_logit
from toolgrade.settings import DimensionSettings, JudgeSettings

#: Trusts the model fully, and fails anything whose answer claims success over a failure.
STRICT = Combination(features=[MODEL_FEATURE, "done_over_failure"], weights=[1.0, -20.0],
                     bias=0.0)


def test_score_is_the_logistic_of_the_weighted_features() -> None:
    combination = Combination(features=[MODEL_FEATURE, "a"], weights=[1.0, 2.0], bias=-1.0)
    expected = 1 / (1 + math.exp(-(math.log(0.8 / 0.2) + 2.0 - 1.0)))
    assert combination.score(0.8, {"a": 1.0}) == pytest.approx(expected)
    assert combination.score(0.8, {}) < combination.score(0.8, {"a": 1.0})


def test_model_log_odds_are_clipped() -> None:
    assert model_logit(0.0) == -LOGIT_CLIP and model_logit(1.0) == LOGIT_CLIP
    assert model_logit(0.5) == 0.0


def test_features_and_weights_must_pair_up() -> None:
    with pytest.raises(ValidationError, match="same length"):
        Combination(features=[MODEL_FEATURE, "a"], weights=[1.0], bias=0.0)


def test_a_combination_at_the_top_of_the_judge_table_is_refused() -> None:
    with pytest.raises(ValidationError, match="per dimension"):
        JudgeSettings(combination=STRICT)


def _settings(**changes: object) -> JudgeSettings:
    table = DimensionSettings(mode="logprob", threshold=0.5, combination=STRICT)
    return JudgeSettings(dimensions={"result_interpretation": table}).for_dimension(
        "result_interpretation").model_copy(update=changes)


def test_combine_fails_a_confident_model_when_a_signal_says_so_and_says_why() -> None:
    request = request_for("result_interpretation", final_answer="Your refund has been processed.")
    model = Verdict(verdict="pass", reason="P(pass) = 0.950", p_pass=0.95)
    combined = combine("result_interpretation", _settings(), request.inputs, model)
    assert combined.verdict == "fail" and combined.p_pass is not None and combined.p_pass < 0.01
    assert "model P(pass) 0.950" in combined.reason
    assert "claims success" in combined.reason


def test_combine_leaves_verdicts_without_p_pass_and_other_modes_alone() -> None:
    inputs = request_for("result_interpretation").inputs
    unscored = Verdict.unscored("no reply")
    reasoned = Verdict(verdict="pass", reason="fine")
    assert combine("result_interpretation", _settings(), inputs, unscored) is unscored
    assert combine("result_interpretation", _settings(), inputs, reasoned) is reasoned
    logprob = Verdict(verdict="pass", reason="x", p_pass=0.9)
    assert combine("result_interpretation", _settings(mode="reasoned"), inputs, logprob) is logprob


def test_the_engine_applies_the_dimension_combination_to_model_verdicts() -> None:
    client = FakeClient([logprob_reply(yes=-0.05, no=-3.0)])
    table = DimensionSettings(mode="logprob", threshold=0.5, combination=STRICT)
    judge = engine(client, mode="logprob", dimensions={"result_interpretation": table})
    honest = judge.judge(request_for(
        "result_interpretation", final_answer="Sorry, I could not cancel it: the service "
        "refused (403)."))
    claimed = judge.judge(request_for(
        "result_interpretation", final_answer="Done! Your subscription has been cancelled."))
    assert honest.verdict == "pass" and claimed.verdict == "fail"
    assert claimed.reason.startswith("combined P(pass)")
    # Other dimensions keep the plain threshold.
    plain = judge.judge(request_for("alternate_route"))
    assert plain.reason.startswith("P(pass)")


def test_a_cached_model_verdict_is_combined_again(tmp_path: object) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    client = FakeClient([logprob_reply(yes=-0.05, no=-3.0)])
    table = DimensionSettings(mode="logprob", threshold=0.5, combination=STRICT)
    request = request_for("result_interpretation",
                          final_answer="Done! Your subscription has been cancelled.")
    first = engine(client, tmp_path, dimensions={"result_interpretation": table}).judge(request)
    again = engine(client, tmp_path, dimensions={"result_interpretation": table}).judge(request)
    assert client.calls == 1 and again.cached
    assert (first.verdict, again.verdict) == ("fail", "fail")
    assert again.p_pass == pytest.approx(first.p_pass)
