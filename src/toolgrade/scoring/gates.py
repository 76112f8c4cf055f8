"""Gates: minimums on summary figures, e.g. `"selection.f1" = 0.9` (docs/reports.md).

A gate names a figure by a dotted path: `<check>.<figure>[.<key>...]` looks in
`summary.checks.<check>` (any registered check, with the figures its registry entry lists), and
so does `coverage.<kind>` (a count of cases); `aggregate.<figure>` in `summary.aggregate`;
anything else from the top of the summary. A key may itself hold dots
(`arguments.per_field.refund.amount.accuracy` names the `refund.amount` field). Names and
thresholds are checked before grading: an unknown figure, a per-tool or per-field gate without
its figure, or a threshold that is not a finite number (in [0, 1] for rates; 0 or more for
counts) is a configuration error (exit 2). A figure with no value fails its
gate: nothing was applicable, or the tool, field, task type or k named did not occur in this run.
A figure equal to its minimum holds, also when float rounding leaves a mean a hair under it
(`aggregate.reaches`: (1 + 1 + 0.4) / 3 is 0.7999999999999999 and holds a minimum of 0.8).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from toolgrade.checks.registry import entries, entry
from toolgrade.checks.state import MISSING, resolve_path
from toolgrade.errors import ConfigError
from toolgrade.models import HARD_CASE_KINDS
from toolgrade.models.summary import GateResult, RunSummary
from toolgrade.scoring.grading import reaches


def _resolve(summary: Mapping[str, Any], name: str) -> tuple[str, str, Any]:
    """(check, metric, value or MISSING); a key may span dots ("per_field.refund.amount")."""
    head, _, rest = name.partition(".")
    if (entry(head) is not None or head == "coverage") and rest:
        return head, rest, resolve_path(summary.get("checks", {}), name)
    if head == "aggregate" and rest:
        return head, rest, resolve_path(summary.get("aggregate", {}), rest)
    return head, rest or head, resolve_path(summary, name)


def known_figures() -> dict[str, frozenset[str]]:
    """Figures a gate may name, per block: each registered check's (`checks.registry`), the
    hard-case coverage counts and the aggregate's. `*` allows any key below (a tool, a field,
    a k), and a figure after it (`per_tool.*.f1`) must end the name."""
    known: dict[str, frozenset[str]] = {e.name: e.gate_figures for e in entries()}
    return {**known, "coverage": frozenset(HARD_CASE_KINDS),
            "aggregate": frozenset({"pass_rate", "mean_score"})}


def _counts() -> dict[str, frozenset[str] | None]:
    """Figures that count (faults per stage, cases per kind), not rates in [0, 1]: the
    mapping's dotted prefix and the keys it may take (None: any)."""
    counts: dict[str, frozenset[str] | None] = {
        f"{e.name}.{figure}.": keys for e in entries() for figure, keys in e.gate_counts.items()}
    return {**counts, "coverage.": None}


def _known(head: str, rest: str) -> bool:
    """Whether `rest` names a figure of block `head`, wildcards filled with non-empty keys."""
    for figure in known_figures().get(head, ()):
        prefix, star, suffix = figure.partition("*")
        if not star:
            if rest == figure:
                return True
            continue
        middle = rest.removeprefix(prefix).removesuffix(suffix)
        if rest.startswith(prefix) and rest.endswith(suffix) and middle.strip("."):
            return True
    return False


def validate_gate_names(gates: Mapping[str, object]) -> None:
    """Refuse gates that can never name a figure, or whose minimum can never mean one, before
    any grading (exit 2)."""
    bad = [name for name in gates if not _known(*name.partition(".")[::2])]
    bad += [
        name
        for name in gates
        for prefix, keys in _counts().items()
        if keys is not None and name.startswith(prefix) and name.removeprefix(prefix) not in keys
    ]
    if bad:
        choices = ", ".join(f"{h}.{f}" for h, fs in known_figures().items() for f in sorted(fs))
        raise ConfigError(f"unknown gate figure(s): {', '.join(map(repr, bad))}; known: {choices}")
    for name, threshold in gates.items():
        problem = _threshold_problem(name, threshold)
        if problem:
            raise ConfigError(f"gate {name!r}: the minimum {threshold!r} {problem}")


def _count_of_a_present_mapping(summary: Mapping[str, Any], name: str) -> bool:
    """Whether `name` is a count whose mapping the summary has (a stage no fault reached,
    when the recovery check applied to some run): its missing key counts 0."""
    for prefix in _counts():
        if name.startswith(prefix) and prefix != "coverage.":
            found = resolve_path(summary.get("checks", {}), prefix.rstrip("."))
            return isinstance(found, Mapping)
    return False


def _threshold_problem(name: str, threshold: object) -> str | None:
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        return "is not a number"
    if not math.isfinite(threshold):
        return "is not a finite number"
    if name.startswith(tuple(_counts())):
        return "is negative: a count is never under 0" if threshold < 0 else None
    if not 0 <= threshold <= 1:
        return "is outside [0, 1], the range of this figure"
    return None


def _left_open(name: str, value: object, threshold: float, passed: bool,
               summary: Mapping[str, Any]) -> dict[str, object]:
    """For `aggregate.pass_rate`, read as a run's aggregate is: a gate that fails as counted
    (unscored runs are not passes) but would hold if every unscored run passed is `unscored`,
    not failed, with the figure it could reach; the run still does not meet it (exit 1)."""
    if passed or name != "aggregate.pass_rate" or not isinstance(value, int | float):
        return {}
    unscored = summary.get("unscored")
    runs = unscored.get("runs", 0) if isinstance(unscored, Mapping) else 0
    total = summary.get("trajectories")
    if not runs or not isinstance(total, int) or total <= 0:
        return {}
    best = float(value) + runs / total
    return {"status": "unscored", "unscored_runs": runs, "at_most": best} if reaches(
        best, threshold) else {}


def evaluate_gates(
    gates: Mapping[str, float], summary: RunSummary | Mapping[str, Any]
) -> list[GateResult]:
    """Check every gate against the summary; raise ConfigError for unknown figures.

    A gate names its figure by the dotted path of its written form, so the lookup goes through
    the summary's JSON data (a `RunSummary` is read as `to_data()`; a mapping is that data).

    A figure `validate_gate_names` knows but this summary lacks (a tool that was never expected
    or called, say) has no value: its gate fails, as with nothing applicable.
    """
    if isinstance(summary, RunSummary):
        summary = summary.to_data()
    results, unknown = [], []
    for name, threshold in gates.items():
        check, metric, value = _resolve(summary, name)
        if value is MISSING and _count_of_a_present_mapping(summary, name):
            value = 0  # e.g. a stage no fault reached: the count is 0, not unknown
        if value is MISSING and _known(*name.partition(".")[::2]):
            value = None
        if value is MISSING:
            unknown.append(name)
            continue
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise ConfigError(
                f"gate {name!r}: the figure is not a number (got {type(value).__name__})"
            )
        passed = value is not None and reaches(float(value), threshold)
        results.append(GateResult.model_validate({
            "check": check, "metric": metric, "value": None if value is None else float(value),
            "threshold": threshold, "passed": passed,
            **_left_open(name, value, threshold, passed, summary),
        }))
    if unknown:
        raise ConfigError(
            "unknown gate figure(s): "
            + ", ".join(repr(u) for u in unknown)
            + "; use e.g. 'selection.f1', 'arguments.pass_rate', 'aggregate.pass_rate'"
        )
    return results
