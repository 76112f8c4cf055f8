"""The abstention band at run time: a verdict inside it is unscored (uncertain), never a pass."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from builders_judging import engine, request_for
from toolgrade.judging.scripted import FakeClient, logprob_reply
from toolgrade.models import JUDGE_DIMENSIONS
from toolgrade.models.adjudication import unscored_kind
from toolgrade.settings import DimensionSettings

BAND = (0.2, 0.8)


def _reply_at(p_pass: float) -> FakeClient:
    # Two tokens whose normalised probabilities give exactly P(pass) = p_pass.
    return FakeClient([logprob_reply(yes=math.log(p_pass), no=math.log(1.0 - p_pass))])


@settings(max_examples=25, deadline=None)
@given(st.floats(0.21, 0.79), st.sampled_from(JUDGE_DIMENSIONS))
def test_a_judge_always_inside_the_band_never_yields_a_pass(p_pass, dimension) -> None:
    table = DimensionSettings(mode="logprob", threshold=0.5, band=BAND)
    judge = engine(_reply_at(p_pass), mode="logprob", dimensions={dimension: table},
                   presettle=None)
    verdict = judge.judge(request_for(dimension))
    assert verdict.verdict == "unscored"
    assert unscored_kind(verdict.reason) == "uncertain"
    assert "inside the calibrated band [0.200, 0.800]" in verdict.reason
    assert judge.usage()[dimension]["unscored"] == 1


def test_undecided_items_share_one_reason_so_reports_group_them() -> None:
    table = DimensionSettings(mode="logprob", threshold=0.5, band=BAND)
    verdicts = [
        engine(_reply_at(p), mode="logprob", presettle=None,
               dimensions={"argument_equivalence": table}).judge(
            request_for("argument_equivalence"))
        for p in (0.3, 0.6)
    ]
    assert verdicts[0].reason == verdicts[1].reason
    assert [round(v.p_pass or 0.0, 2) for v in verdicts] == [0.3, 0.6]


def test_outside_the_band_the_cut_decides() -> None:
    table = DimensionSettings(mode="logprob", threshold=0.5, band=BAND)
    high = engine(_reply_at(0.95), mode="logprob", presettle=None,
                  dimensions={"alternate_route": table}).judge(request_for("alternate_route"))
    low = engine(_reply_at(0.05), mode="logprob", presettle=None,
                 dimensions={"alternate_route": table}).judge(request_for("alternate_route"))
    assert (high.verdict, low.verdict) == ("pass", "fail")


def test_a_band_over_every_p_pass_asks_no_model() -> None:
    client = _reply_at(0.99)
    table = DimensionSettings(mode="logprob", threshold=0.5, band=(0.0, 1.0))
    judge = engine(client, mode="logprob", presettle=None,
                   dimensions={"recovery_quality": table})
    verdict = judge.judge(request_for("recovery_quality"))
    assert verdict.verdict == "unscored" and unscored_kind(verdict.reason) == "uncertain"
    assert client.calls == 0


def test_reasoned_mode_ignores_the_band() -> None:
    table = DimensionSettings(mode="reasoned", band=BAND)
    client = FakeClient(['{"reason": "same call", "verdict": "pass"}'])
    verdict = engine(client, dimensions={"alternate_route": table}, presettle=None).judge(
        request_for("alternate_route"))
    assert verdict.verdict == "pass"
