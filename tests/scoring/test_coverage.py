"""Hard-case coverage: tags, inferred kinds, counts, per-kind pass rates, chat-message input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from toolgrade.loaders import load_suite
from toolgrade.models import HARD_CASE_KINDS, Aggregate, Case, CheckResult, TrajectoryResult
from toolgrade.scoring.tallies import (
    NEAR_DUPLICATE,
    KindRates,
    case_kinds,
    coverage_counts,
    description_similarity,
)

REFUND = {"parameters": {"type": "object", "required": ["order_id"],
                         "properties": {"order_id": {"type": "string"}}}}


def make(**data: Any) -> Case:
    return Case.model_validate({"id": "c1", **data})


def test_no_tool_and_tags_are_kinds() -> None:
    assert case_kinds(make(expected={"selection": {"no_tool": True}})) == ("no_tool",)
    tagged = make(tags=["misleading_identifier"])
    assert case_kinds(tagged) == ("misleading_identifier",)
    with pytest.raises(ValidationError, match="misleading_identifier"):
        make(tags=["misleading_id"])  # a typo is an error listing the known kinds


def test_multi_turn_needs_two_turns_of_chat_input() -> None:
    turns = [{"role": "user", "content": "Refund A1"}, {"role": "assistant", "content": "Why?"},
             {"role": "user", "content": "It broke"}]
    assert "multi_turn" in case_kinds(make(input=turns))
    assert "multi_turn" not in case_kinds(make(input=turns[:1]))
    assert "multi_turn" not in case_kinds(make(input="Refund A1. Why? It broke"))


def test_chat_input_must_be_messages() -> None:
    with pytest.raises(ValidationError, match=r"input\[1\]: a chat message is \{role, content\}"):
        make(input=[{"role": "user", "content": "hi"}, {"text": "no role"}])
    case = make(input=[{"role": "user", "content": "hi"}])
    assert case.input_messages() == [{"role": "user", "content": "hi"}]
    assert make(input="hi").input_messages() == [{"role": "user", "content": "hi"}]


def test_overlapping_tools_when_an_expected_tool_has_a_near_duplicate() -> None:
    tools = {"library.find_nearby": {"description": "Locate nearby libraries open late"},
             "store.find_nearby": {"description": "Locate nearby stores open late"},
             "weather": {"description": "Today's weather in a city"}}
    expecting = make(tools=tools, expected={"selection": {"tools": ["library.find_nearby"]}})
    assert "overlapping_tools" in case_kinds(expecting)
    # The near-duplicates exist, but the route does not touch them.
    elsewhere = make(tools=tools, expected={"selection": {"tools": ["weather"]}})
    assert "overlapping_tools" not in case_kinds(elsewhere)


def test_missing_required_info_when_a_required_value_is_not_in_the_input() -> None:
    def case_for(text: str, value: Any) -> Case:
        return make(input=text, tools={"refund": REFUND},
                    expected={"arguments": [{"tool": "refund", "args": {"order_id": value}}]})

    assert "missing_required_info" in case_kinds(case_for("Refund my last order", "F300"))
    assert "missing_required_info" not in case_kinds(case_for("Refund f300 please", "F300"))
    assert "missing_required_info" not in case_kinds(case_for("Refund my order", {"any": True}))
    with_casefold = case_for("Refund my last order", {"casefold": "F300"})
    assert "missing_required_info" in case_kinds(with_casefold)


def test_coverage_counts_every_kind() -> None:
    counts = coverage_counts([make(expected={"selection": {"no_tool": True}}), make()])
    assert counts == {"no_tool": 1, "overlapping_tools": 0, "missing_required_info": 0,
                      "multi_turn": 0, "misleading_identifier": 0}


def _record(selection: bool | None, arguments: bool | None) -> TrajectoryResult:
    checks = {}
    for name, passed in (("selection", selection), ("arguments", arguments)):
        checks[name] = (CheckResult(check=name, applicable=True, score=1.0, passed=passed)  # type: ignore[arg-type]
                        if passed is not None else CheckResult.not_applicable(name))  # type: ignore[arg-type]
    return TrajectoryResult(case_id="c1", trial=0, agent=None, checks=checks,  # type: ignore[arg-type]
                            aggregate=Aggregate(mode="binary", score=None, passed=False))


def test_kind_rates_count_applicable_runs_per_kind() -> None:
    rates = KindRates()
    case = make(tags=["misleading_identifier"], expected={"selection": {"tools": []}})
    rates.add(case, _record(True, None))
    rates.add(case, _record(False, None))
    assert rates.per_kind("selection") == {"misleading_identifier": {"n": 2, "pass_rate": 0.5}}
    assert rates.per_kind("arguments") == {}


@given(st.text(max_size=80), st.text(max_size=80))
def test_description_similarity_is_symmetric_and_bounded(a: str, b: str) -> None:
    s = description_similarity(a, b)
    assert s == description_similarity(b, a) and 0.0 <= s <= 1.0
    if a.strip():
        assert description_similarity(a, a) in (0.0, 1.0)  # 0 only with no content word
    assert 0 < NEAR_DUPLICATE <= 1


def test_the_example_suite_covers_every_hard_case_kind() -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "helpdesk" / "suite.yaml"
    counts = coverage_counts(load_suite(example).cases.values())
    assert all(counts[kind] >= 1 for kind in HARD_CASE_KINDS), counts
