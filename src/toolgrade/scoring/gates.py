"""Gates: minimums on summary figures, e.g. `"selection.f1" = 0.9` (DESIGN section 7).

A gate names a figure by a dotted path: `<check>.<figure>[.<key>...]` looks in
`summary.checks.<check>`; `aggregate.<figure>` in `summary.aggregate`; anything else from the
top of the summary. An unknown figure is a configuration error (exit 2); a figure with no value
(nothing applicable) fails its gate.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolgrade.errors import ConfigError
from toolgrade.models import CHECK_NAMES

_MISSING = object()


@dataclass(frozen=True)
class GateResult:
    """One gate's outcome, as written to `summary.gates`."""

    check: str
    metric: str
    value: float | None
    threshold: float
    passed: bool

    def to_json(self) -> dict[str, Any]:
        """`{check, metric, value, threshold, passed}`."""
        return {
            "check": self.check,
            "metric": self.metric,
            "value": self.value,
            "threshold": self.threshold,
            "passed": self.passed,
        }

    def message(self) -> str:
        """One line naming the check, the figure, its value and the threshold."""
        shown = "n/a (nothing applicable)" if self.value is None else f"{self.value:.4g}"
        verdict = "ok" if self.passed else "FAILED"
        return f"gate {verdict}: {self.check}.{self.metric} = {shown}, minimum {self.threshold:g}"


def _lookup(node: Any, parts: list[str]) -> Any:
    for part in parts:
        if not isinstance(node, Mapping) or part not in node:
            return _MISSING
        node = node[part]
    return node


def _resolve(summary: Mapping[str, Any], name: str) -> tuple[str, str, Any]:
    parts = name.split(".")
    head, rest = parts[0], parts[1:]
    if head in CHECK_NAMES and rest:
        return head, ".".join(rest), _lookup(summary.get("checks", {}), parts)
    if head == "aggregate" and rest:
        return head, ".".join(rest), _lookup(summary.get("aggregate", {}), rest)
    return head, ".".join(rest) or head, _lookup(summary, parts)


#: Figures a gate may name, per block; `*` allows any key below (a tool, a field, a k).
KNOWN_FIGURES: dict[str, set[str]] = {
    "selection": {"precision", "recall", "f1", "pass_rate", "per_tool.*"},
    "arguments": {"pass_rate", "exact_rate", "field_accuracy", "per_field.*"},
    "ordering": {"pass_rate", "efficiency.*"},
    "recovery": {"pass_rate", "state_pass_rate", "pass_at_k.*", "pass_hat_k.*", "stages.*"},
    "aggregate": {"pass_rate", "mean_score"},
}


def validate_gate_names(gates: Mapping[str, float]) -> None:
    """Refuse gates that can never name a figure, before any grading (exit 2)."""
    bad = []
    for name in gates:
        head, _, rest = name.partition(".")
        known = KNOWN_FIGURES.get(head)
        if known is None or not rest:
            bad.append(name)
            continue
        first = rest.split(".")[0]
        if rest not in known and f"{first}.*" not in known:
            bad.append(name)
    if bad:
        choices = ", ".join(f"{h}.{f}" for h, fs in KNOWN_FIGURES.items() for f in sorted(fs))
        raise ConfigError(f"unknown gate figure(s): {', '.join(map(repr, bad))}; known: {choices}")


def evaluate_gates(gates: Mapping[str, float], summary: Mapping[str, Any]) -> list[GateResult]:
    """Check every gate against the summary; raise ConfigError for unknown figures."""
    results, unknown = [], []
    for name, threshold in gates.items():
        check, metric, value = _resolve(summary, name)
        if value is _MISSING:
            unknown.append(name)
            continue
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise ConfigError(
                f"gate {name!r}: the figure is not a number (got {type(value).__name__})"
            )
        passed = value is not None and float(value) >= threshold
        results.append(
            GateResult(check, metric, None if value is None else float(value), threshold, passed)
        )
    if unknown:
        raise ConfigError(
            "unknown gate figure(s): "
            + ", ".join(repr(u) for u in unknown)
            + "; use e.g. 'selection.f1', 'arguments.pass_rate', 'aggregate.pass_rate'"
        )
    return results
