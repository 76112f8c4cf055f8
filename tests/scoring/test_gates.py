"""Gates: figures looked up in the summary, messages that name check, figure, value, threshold."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from toolgrade.errors import ConfigError
from toolgrade.scoring.gates import evaluate_gates, validate_gate_names

SUMMARY = {
    "checks": {
        "selection": {"f1": 0.95, "per_tool": {"refund": {"f1": 0.5}}},
        "arguments": {"pass_rate": 0.7, "per_field": {"refund.amount": {"n": 3, "accuracy": 0.9}}},
        "recovery": {"pass_rate": None, "pass_hat_k": {"2": 0.65}},
    },
    "aggregate": {"pass_rate": 0.8},
}


def test_passing_and_failing_gates() -> None:
    gates = {
        "selection.f1": 0.9,
        "arguments.pass_rate": 0.85,
        "aggregate.pass_rate": 0.8,
        "recovery.pass_hat_k.2": 0.6,
    }
    results = {f"{g.check}.{g.metric}": g for g in evaluate_gates(gates, SUMMARY)}
    assert results["selection.f1"].passed
    assert results["aggregate.pass_rate"].passed  # a minimum: equal passes
    assert results["recovery.pass_hat_k.2"].passed
    failing = results["arguments.pass_rate"]
    assert not failing.passed
    assert failing.message() == "gate FAILED: arguments.pass_rate = 0.7, minimum 0.85"


def test_figure_without_value_fails() -> None:
    (gate,) = evaluate_gates({"recovery.pass_rate": 0.5}, SUMMARY)
    assert not gate.passed and "n/a" in gate.message()


def test_nested_per_tool_figure() -> None:
    (gate,) = evaluate_gates({"selection.per_tool.refund.f1": 0.6}, SUMMARY)
    assert gate.value == 0.5 and not gate.passed


def test_unknown_names_are_configuration_errors() -> None:
    with pytest.raises(ConfigError, match=r"selection\.fone"):
        validate_gate_names({"selection.fone": 0.9})
    with pytest.raises(ConfigError, match="bogus"):
        validate_gate_names({"bogus": 0.9})
    validate_gate_names({"selection.per_tool.refund.f1": 0.5, "recovery.pass_hat_k.3": 0.5})


@pytest.mark.parametrize(
    "name",
    [
        "selection.per_tool.refund",
        "selection.per_tool..f1",
        "arguments.per_field.refund.amount",
        "recovery.stages",
        "selection.per_tool.refund.tp",
    ],
)
def test_a_wildcard_figure_needs_its_key_and_figure(name: str) -> None:
    with pytest.raises(ConfigError, match="unknown gate figure"):
        validate_gate_names({name: 0.5})


def test_a_valid_figure_this_run_lacks_fails_instead_of_stopping_after_grading() -> None:
    # Before, this raised a ConfigError after grading, and the run's summary was never written.
    (gate,) = evaluate_gates({"selection.per_tool.nothing.f1": 0.5}, SUMMARY)
    assert gate.value is None and not gate.passed


def test_per_field_keys_hold_a_dot() -> None:
    (gate,) = evaluate_gates({"arguments.per_field.refund.amount.accuracy": 0.8}, SUMMARY)
    assert gate.value == 0.9 and gate.passed


@pytest.mark.parametrize(
    ("name", "threshold", "problem"),
    [
        ("selection.f1", 1.5, "outside [0, 1]"),
        ("selection.f1", -0.5, "outside [0, 1]"),
        ("selection.f1", math.nan, "not a finite number"),
        ("selection.f1", math.inf, "not a finite number"),
        ("selection.f1", True, "not a number"),
        ("selection.f1", "0.9", "not a number"),
        ("recovery.stages.recovered", -1, "is negative"),
    ],
)
def test_thresholds_that_can_never_mean_a_minimum(
    name: str, threshold: object, problem: str
) -> None:
    with pytest.raises(ConfigError, match=re.escape(problem)):
        validate_gate_names({name: threshold})


def test_a_count_may_exceed_one() -> None:
    validate_gate_names({"recovery.stages.recovered": 12})


def test_every_gate_the_docs_show_is_accepted() -> None:
    # The gates users copy from the docs must pass validation: a per_field example once named
    # no figure and could only fail after grading.
    root = Path(__file__).resolve().parents[2]
    texts = [
        (root / name).read_text()
        for name in ("README.md", "docs/reports.md", "docs/case-format.md")
    ]
    gates = {
        name: float(value)
        for text in texts
        for name, value in re.findall(r'^"([a-z_]+\.[\w.]+)" = ([\d.]+)', text, re.MULTILINE)
    }
    assert "arguments.per_field.create_ticket.priority.accuracy" in gates
    validate_gate_names(gates)


def test_a_figure_equal_to_its_minimum_holds_despite_float_rounding() -> None:
    # The mean of 1.0, 1.0 and 0.4 is 0.8, computed as 0.7999999999999999: it meets 0.8.
    mean = (1.0 + 1.0 + 0.4) / 3
    assert mean < 0.8
    (gate,) = evaluate_gates({"aggregate.mean_score": 0.8}, {"aggregate": {"mean_score": mean}})
    assert gate.passed
    (under,) = evaluate_gates({"aggregate.mean_score": 0.8}, {"aggregate": {"mean_score": 0.7999}})
    assert not under.passed


def test_a_failed_gate_message_never_shows_the_same_figure_as_its_minimum() -> None:
    (gate,) = evaluate_gates({"selection.f1": 0.9}, {"checks": {"selection": {"f1": 0.89996}}})
    assert not gate.passed
    assert gate.message() == "gate FAILED: selection.f1 = 0.89996, minimum 0.9"
    (held,) = evaluate_gates({"selection.f1": 0.9}, {"checks": {"selection": {"f1": 0.9}}})
    assert held.message() == "gate ok: selection.f1 = 0.9, minimum 0.9"


def test_a_stage_no_fault_reached_counts_zero_and_a_misspelt_stage_is_refused() -> None:
    summary = {"checks": {"recovery": {"pass_rate": 1.0, "stages": {"recovered": 13}}}}
    results = evaluate_gates({"recovery.stages.retry_loop": 0,
                              "recovery.stages.recovered": 13}, summary)
    assert [(r.metric, r.value, r.passed) for r in results] == [
        ("stages.retry_loop", 0.0, True), ("stages.recovered", 13.0, True)]
    # Without the recovery check in the run there is nothing to count: no value, as before.
    (absent,) = evaluate_gates({"recovery.stages.retry_loop": 0}, SUMMARY)
    assert absent.value is None and absent.passed is False
    with pytest.raises(ConfigError, match=re.escape("recovery.stages.recoverd")):
        validate_gate_names({"recovery.stages.recoverd": 1})


def test_arguments_given_selection_and_field_f1_gates() -> None:
    summary = {"checks": {"arguments": {
        "given_selection": {"n": 4, "pass_rate": 0.75},
        "per_field": {"refund.speed": {"n": 4, "accuracy": 0.5, "f1": 0.4}},
        "field_recall": 0.9,
    }}}
    gates = {"arguments.given_selection.pass_rate": 0.8,
             "arguments.per_field.refund.speed.f1": 0.3, "arguments.field_recall": 0.9}
    validate_gate_names(gates)
    results = {f"{g.check}.{g.metric}": g for g in evaluate_gates(gates, summary)}
    assert results["arguments.given_selection.pass_rate"].value == 0.75
    assert not results["arguments.given_selection.pass_rate"].passed
    assert results["arguments.per_field.refund.speed.f1"].passed
    assert results["arguments.field_recall"].passed
    with pytest.raises(ConfigError, match="unknown gate figure"):
        validate_gate_names({"arguments.given_selection.n": 1})


def test_coverage_gates_count_cases_and_per_kind_gates_read_rates() -> None:
    summary = {"checks": {"coverage": {"no_tool": 2, "multi_turn": 4},
                          "selection": {"per_kind": {"no_tool": {"n": 2, "pass_rate": 0.5}}}}}
    gates = {"coverage.no_tool": 3, "coverage.multi_turn": 3,
             "selection.per_kind.no_tool.pass_rate": 0.5}
    validate_gate_names(gates)  # a count of 3 is no rate: not refused as outside [0, 1]
    results = {f"{g.check}.{g.metric}": g for g in evaluate_gates(gates, summary)}
    assert not results["coverage.no_tool"].passed and results["coverage.no_tool"].value == 2
    assert results["coverage.multi_turn"].passed
    assert results["selection.per_kind.no_tool.pass_rate"].passed
    with pytest.raises(ConfigError, match="unknown gate figure"):
        validate_gate_names({"coverage.no_tools": 1})
    with pytest.raises(ConfigError, match="negative"):
        validate_gate_names({"coverage.no_tool": -1})
