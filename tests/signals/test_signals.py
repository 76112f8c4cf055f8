"""Deterministic signals per dimension: what fires on what, and totality on any input shape."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from builders_judging import inputs_for
from toolgrade.models import JUDGE_DIMENSIONS, JudgeDimension
from toolgrade.signals import signals_for
from toolgrade.signals.routes import is_write
from toolgrade.signals.text import unsupported_facts


def _result(content: str, status: str = "ok", tool: str = "get_x") -> dict[str, Any]:
    return {"step": 1, "tool": tool, "status": status, "content": content}


def result_signals(answer: str, *results: dict[str, Any], findings: list[str] | None = None
                   ) -> dict[str, float]:
    inputs = inputs_for("result_interpretation", tool_results=list(results),
                        final_answer=answer, findings=findings or [], task="Help me")
    return signals_for("result_interpretation", inputs).values


# -- facts -----------------------------------------------------------------------------------


def test_a_number_said_as_in_the_result_is_supported_however_it_is_written() -> None:
    sources = ['{"balance": 1250.00, "currency": "EUR"}']
    assert unsupported_facts("You have €1,250.00 left.", sources) == []
    assert unsupported_facts("There's 1250 EUR remaining.", sources) == []


def test_a_changed_number_is_unsupported() -> None:
    assert unsupported_facts("You have 4,320 points.", ['{"points": 3420}']) == ["number 4320"]
    assert unsupported_facts("You have €12.50 left.", ['{"balance": 1250.00}']) == ["number 12.5"]


def test_a_converted_or_computed_number_is_supported() -> None:
    assert unsupported_facts("One bag of 23 kg (about 50 lb).", ['{"bag_kg": 23}']) == []
    assert unsupported_facts("€140 a night, €280 in all.", ['{"price": 140, "nights": 2}']) == []
    assert unsupported_facts("around 64 °F", ['{"temp_c": 18}']) == []


def test_dates_match_across_formats_and_a_changed_date_is_unsupported() -> None:
    sources = ['{"date": "2025-06-12"}']
    assert unsupported_facts("It leaves on 12 June.", sources) == []
    assert unsupported_facts("It leaves on 12/06/2025.", sources) == []
    assert unsupported_facts("It leaves on 21 June.", sources) == ["date 21/6"]


# -- result_interpretation --------------------------------------------------------------------


def test_a_status_from_another_family_is_a_conflict() -> None:
    result = _result('{"order_id": "C552", "status": "in_transit"}')
    assert result_signals("Your order has been delivered.", result)["status_conflict"] == 1
    assert result_signals("Your order is in transit.", result)["status_conflict"] == 0


def test_a_yes_no_field_said_the_other_way_is_a_conflict() -> None:
    result = _result('{"email": "jo@example.com", "locked": false}')
    assert result_signals("Yes, your account is locked.", result)["polarity_conflict"] == 1
    assert result_signals("No, your account isn't locked.", result)["polarity_conflict"] == 0


def test_claiming_success_over_a_failure_fires_and_an_honest_report_does_not() -> None:
    failed = _result("503 unavailable", status="error", tool="refund")
    claimed = result_signals("Your refund has been processed.", failed)
    honest = result_signals("Sorry, the refund failed; please try again later.", failed)
    assert (claimed["done_over_failure"], claimed["failure_unmentioned"]) == (1, 1)
    assert (honest["done_over_failure"], honest["failure_unmentioned"]) == (0, 0)
    assert honest["admits_trouble"] == 1


def test_a_name_no_result_contains_is_counted() -> None:
    result = _result('{"flight": "OS232", "to": "VIE"}')
    assert result_signals("Your flight OS232 to Venice leaves soon.", result)["unknown_names"] == 1


# -- recovery_quality -------------------------------------------------------------------------


def test_recovery_signals_read_the_stage_and_an_unbacked_success_claim() -> None:
    transcript = [
        {"step": 1, "tool": "cancel_order", "args": {}, "status": "error", "content": "500"},
        {"step": 2, "role": "assistant", "content": "Your order has been cancelled."},
    ]
    values = signals_for("recovery_quality", inputs_for(
        "recovery_quality", stage="retry_loop", transcript=transcript,
        fault={"tool": "cancel_order", "nth": 1, "kind": "error", "content": "500"})).values
    assert (values["stage_bad"], values["stage_recovered"], values["done_unbacked"]) == (1, 0, 1)


def test_a_permanent_error_retried_is_flagged_but_a_timeout_is_not() -> None:
    def retried(content: str) -> float:
        transcript = [{"step": 1, "tool": "change_flight", "args": {}, "status": "error",
                       "content": content}]
        inputs = inputs_for("recovery_quality", transcript=transcript, stage="no_retry",
                            fault={"tool": "change_flight", "nth": 1, "kind": "error",
                                   "content": content})
        return signals_for("recovery_quality", inputs).values["permanent_retried"]

    assert retried("422 Fare does not allow changes") == 1
    assert retried("Request timed out after 30s") == 0


# -- alternate_route --------------------------------------------------------------------------


def test_writes_are_told_from_reads_by_description_then_by_verb() -> None:
    assert is_write("refund", "Refund an amount (side effect)")
    assert not is_write("refund_status", "Show a refund (read-only)")
    assert not is_write("get_order", "")
    assert is_write("cancel_order", "")


def test_route_signals_count_left_out_added_and_doubled_tools() -> None:
    inputs = inputs_for(
        "alternate_route",
        expected_routes=[["lookup_order", "verify_identity", "refund"]],
        actual_route=["lookup_order", "search_kb", "refund", "refund"],
        tool_descriptions={"lookup_order": "Look up an order (read-only)",
                           "search_kb": "Search the help centre (read-only)",
                           "verify_identity": "Verify the caller",
                           "refund": "Refund an order (side effect)"},
    )
    values = signals_for("alternate_route", inputs).values
    assert values["missing_checks"] == 1 and values["extra_reads"] == 1
    assert values["doubled_writes"] == 1 and values["missing_writes"] == 0


def test_argument_equivalence_has_no_signals() -> None:
    assert signals_for("argument_equivalence", inputs_for("argument_equivalence")).values == {}


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                               max_size=3),
    max_leaves=12,
)


@given(st.sampled_from(JUDGE_DIMENSIONS), st.dictionaries(st.sampled_from(
    ["task", "tool_results", "final_answer", "findings", "fault", "stage", "transcript",
     "expected_routes", "actual_route", "tool_descriptions"]), _JSON))
def test_extractors_are_total_on_any_json(dimension: JudgeDimension, inputs: dict[str, Any]
                                          ) -> None:
    values = signals_for(dimension, inputs).values
    assert all(isinstance(v, float) and v >= 0 for v in values.values())


def test_iso_datetimes_are_read_as_a_date_and_a_time() -> None:
    sources = ['{"slot": "2025-06-10T11:20:00"}']
    assert unsupported_facts("Tuesday 10 June at 11:20.", sources) == []


def test_a_yes_no_field_with_both_values_in_the_results_is_no_evidence() -> None:
    hotels = _result('[{"name": "A", "free_cancellation": true}, '
                     '{"name": "B", "free_cancellation": false}]')
    values = result_signals("Hotel A has free cancellation; B does not.", hotels)
    assert values["polarity_conflict"] == 0


def test_out_of_stock_is_a_negation() -> None:
    result = _result('{"sku": "X1", "in_stock": false}')
    assert result_signals("Sorry, it's out of stock.", result)["polarity_conflict"] == 0
    assert result_signals("Good news: it's in stock.", result)["polarity_conflict"] == 1
