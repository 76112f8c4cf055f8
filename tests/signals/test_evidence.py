"""Decisive argument evidence: development pairs written for the rules (not calibration items).

A value that says the same thing another way is never failed here; one whose date, time,
amount, unit or number has nothing in common with the reference is.
"""

from __future__ import annotations

import pytest

from toolgrade.signals.evidence import extract_facts, settle_arguments


def pair(expected: str, actual: str, rubric: str | None = None) -> dict[str, object]:
    return {"task": "t", "tool": "x", "field": "f", "expected": expected, "actual": actual,
            "rubric": rubric}


SAME_FACTS = [
    ("arrive on 14 February 2026", "arrival 2026-02-14"),
    ("meeting at 9 am", "meeting at 09:00"),
    ("dinner at 7:30 pm", "dinner 19:30"),
    ("bag of 3 kg", "bag of about 6.6 lb"),
    ("20 °C in the room", "68 °F in the room"),
    ("stay for two weeks", "stay 14 days"),
    ("£80 deposit", "deposit of 80 GBP"),
    ("invoice INV-2291 is wrong", "INV2291 has an error"),
    ("seat 14C please", "seat 14C"),
    ("a refund", "refund the customer"),  # no facts at all: the model decides
]

DIFFERENT_FACTS = [
    ("arrive on 14 February", "arrive on 4 February", "date"),
    ("meeting at 9 am", "meeting at 9 pm", "time"),
    ("bag of 3 kg", "bag of 3 lb", "mass"),
    ("20 °C in the room", "20 °F in the room", "temperature"),
    ("stay for two weeks", "stay for 2 days", "duration"),
    ("£80 deposit", "£800 deposit", "money:gbp"),
    ("invoice INV-2291 is wrong", "invoice INV-2219 is wrong", "id"),
    ("flat 7, floor 3", "flat 9, floor 2", "number"),
]


@pytest.mark.parametrize(("expected", "actual"), SAME_FACTS)
def test_the_same_fact_written_another_way_is_not_settled(expected: str, actual: str) -> None:
    assert settle_arguments(pair(expected, actual)) is None


@pytest.mark.parametrize(("expected", "actual", "kind"), DIFFERENT_FACTS)
def test_a_fact_with_no_value_in_common_fails(expected: str, actual: str, kind: str) -> None:
    settled = settle_arguments(pair(expected, actual))
    assert settled is not None and settled.verdict == "fail"
    assert settled.reason.startswith(f"deterministic: the {kind} differs")


def test_other_currencies_fail_and_an_empty_value_fails() -> None:
    money = settle_arguments(pair("refund €40", "refund $40"))
    assert money is not None and "currencies differ" in money.reason
    empty = settle_arguments(pair("keep the return leg", "  "))
    assert empty is not None and "empty" in empty.reason


def test_a_rubric_or_a_non_text_value_leaves_it_to_the_model() -> None:
    assert settle_arguments(pair("3 kg", "3 lb", rubric="units do not matter")) is None
    assert settle_arguments({"expected": {"kg": 3}, "actual": "3 lb"}) is None


def test_a_fact_only_one_side_states_is_not_evidence() -> None:
    # "within a month" has no number: the model weighs it against "30 days".
    assert settle_arguments(pair("return window is 30 days", "returns within a month")) is None
    assert extract_facts("returns within a month").by_kind == {}
