"""The real embedded model judges two easy pairs correctly, in both verdict modes.

Marked `local_model`: run by `make test-local` (needs `toolgrade[local]`; the first run assembles
the 1.1 GB model into the cache folder), deselected by `make test`.
"""

from __future__ import annotations

import json

import pytest

from toolgrade.judging.local import LOCAL_MODEL, local_available
from toolgrade.models import JudgeRequest
from toolgrade.settings import JudgeSettings

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(not local_available(), reason="toolgrade[local] is not installed"),
]


def equivalence(expected: str, actual: str) -> JudgeRequest:
    """An argument-equivalence question about one search query."""
    return JudgeRequest(
        dimension="argument_equivalence",
        inputs={
            "task": "Find me flights or places to visit",
            "tool": "search",
            "field": "query",
            "expected": expected,
            "actual": actual,
            "rubric": None,
        },
    )


SAME = equivalence("cheap flights NYC to London", "low-cost flights New York to London")
DIFFERENT = equivalence("Paris", "Rome")


def test_reasoned_mode_gets_two_easy_pairs_right() -> None:
    from toolgrade.judging import build_judge

    engine = build_judge(JudgeSettings(model=LOCAL_MODEL, mode="reasoned", use_cache=False))
    assert engine is not None
    same, different = engine.judge(SAME), engine.judge(DIFFERENT)
    assert (same.verdict, different.verdict) == ("pass", "fail"), (same, different)
    assert same.reason and different.reason
    usage = engine.usage()["argument_equivalence"]
    assert usage["model"] == LOCAL_MODEL and usage["cost_usd"] == 0.0
    engine.close()


def test_logprob_mode_ranks_the_equivalent_pair_above_the_different_one() -> None:
    # The verdict is P(pass) against the threshold that calibration sets for this model; what
    # the model itself must get right is the order of the two easy pairs.
    from toolgrade.judging import build_judge

    engine = build_judge(JudgeSettings(model=LOCAL_MODEL, mode="logprob", use_cache=False))
    assert engine is not None
    same, different = engine.judge(SAME), engine.judge(DIFFERENT)
    assert same.p_pass is not None and different.p_pass is not None, (same, different)
    assert same.p_pass > different.p_pass, (same.p_pass, different.p_pass)
    engine.close()


def test_structured_output_is_valid_json_for_the_schema() -> None:
    import litellm

    from toolgrade.judging.local import register_local_provider

    register_local_provider()
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "country": {"type": "string"}},
        "required": ["city", "country"],
    }
    response = litellm.completion(
        model=LOCAL_MODEL,
        messages=[{"role": "user", "content": "Name the capital of France as JSON."}],
        response_format={"type": "json_schema", "json_schema": {"name": "place", "schema": schema}},
        temperature=0.0,
        max_tokens=64,
    )
    data = json.loads(response.choices[0].message.content)
    assert set(data) == {"city", "country"} and data["city"].strip().lower() == "paris"
    assert response.usage.prompt_tokens > 0 and response.usage.completion_tokens > 0
