"""The judge usage TypedDict is tied to what the engine writes and what the summary models."""

from __future__ import annotations

from builders_judging import all_requests, engine
from toolgrade.judging.scripted import FakeClient, verdict_json
from toolgrade.models.judge_usage import JudgeUsage
from toolgrade.models.summary import JudgeSummary

#: Keys written by a stage after the engine that the summary keeps as extras, unmodelled.
_EXTRAS = {"withheld", "escalation"}


def _keys() -> set[str]:
    return set(JudgeUsage.__required_keys__ | JudgeUsage.__optional_keys__)


def test_every_key_the_engine_writes_is_a_usage_key() -> None:
    with engine(FakeClient([verdict_json("pass")])) as judge:
        for request in all_requests():
            judge.judge(request)
        usage = judge.usage()
    assert usage  # one block per dimension
    for block in usage.values():
        assert set(block) <= _keys()


def test_the_summary_models_every_usage_key_but_the_extras() -> None:
    assert _keys() - _EXTRAS == set(JudgeSummary.model_fields)
