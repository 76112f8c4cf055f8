"""Gates: figures looked up in the summary, messages that name check, figure, value, threshold."""

from __future__ import annotations

import pytest

from toolgrade.errors import ConfigError
from toolgrade.scoring.gates import evaluate_gates, validate_gate_names

SUMMARY = {
    "checks": {
        "selection": {"f1": 0.95, "per_tool": {"refund": {"f1": 0.5}}},
        "arguments": {"pass_rate": 0.7},
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
    with pytest.raises(ConfigError, match="unknown gate figure"):
        evaluate_gates({"selection.per_tool.nothing.f1": 0.5}, SUMMARY)
