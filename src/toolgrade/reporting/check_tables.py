"""Tables for each check's own figures: per tool, per field, efficiency, recovery stages."""

from __future__ import annotations

from typing import Any

from toolgrade.reporting.tables import Table, fmt


def _check(summary: dict[str, Any], name: str) -> dict[str, Any]:
    block = summary.get("checks", {}).get(name)
    return block if isinstance(block, dict) else {}


def per_tool_table(summary: dict[str, Any]) -> Table | None:
    """Selection per tool: tp fp fn P R F1, by tool name; plus free calls when the suite
    uses them (a tool called only freely has a row with its free calls alone)."""
    selection = _check(summary, "selection")
    per_tool = selection.get("per_tool") or {}
    free = selection.get("free_calls")
    if not per_tool and not free:
        return None
    extras = selection.get("side_effect_extras") or {}
    names = sorted(set(per_tool) | set(free or {}))
    rows = []
    for tool in names:
        f = per_tool.get(tool, {})
        row = [tool, fmt(f.get("tp")), fmt(f.get("fp")), fmt(f.get("fn")), fmt(f.get("precision")),
               fmt(f.get("recall")), fmt(f.get("f1")), fmt(extras.get(tool, 0))]
        rows.append(row if free is None else [*row, fmt(free.get(tool, 0))])
    columns = ["tool", "tp", "fp", "fn", "precision", "recall", "f1", "side-effect extras"]
    if free is not None:
        columns.append("free calls")
    return Table("per-tool", "Selection per tool", columns, rows)


def _field_order(item: tuple[str, dict[str, Any]]) -> tuple[float, int, str]:
    name, figures = item
    accuracy = figures.get("accuracy")
    # Worst first; an unscored field (no accuracy) sorts last; ties: most evidence first.
    return (2.0 if accuracy is None else float(accuracy), -int(figures.get("n") or 0), name)


def per_field_table(summary: dict[str, Any]) -> Table | None:
    """Arguments per `tool.field`, worst accuracy first, with a bar per row."""
    per_field = _check(summary, "arguments").get("per_field") or {}
    if not per_field:
        return None
    ordered = sorted(per_field.items(), key=_field_order)
    rows = [[name, fmt(f.get("n")), fmt(f.get("accuracy"))] for name, f in ordered]
    bars = [None if f.get("accuracy") is None else float(f["accuracy"]) for _, f in ordered]
    return Table("per-field", "Arguments per field (worst first)", ["field", "n", "accuracy"],
                 rows, bars=bars, bars_are_scores=True)


def efficiency_table(summary: dict[str, Any]) -> Table | None:
    """Ordering step efficiency C per task type, with how many runs it pooled."""
    block = _check(summary, "ordering")
    efficiency = block.get("efficiency") or {}
    if not efficiency:
        return None
    counts = block.get("efficiency_n") or {}
    rows = [[task, fmt(value), fmt(counts.get(task))] for task, value in sorted(efficiency.items())]
    bars = [None if v is None else float(v) for _, v in sorted(efficiency.items())]
    return Table("efficiency", "Ordering: step efficiency per task type",
                 ["task type", "efficiency", "runs pooled"], rows, bars=bars, bars_are_scores=True,
                 note="A dash: no run of that task type passed every check.")


def stages_table(summary: dict[str, Any]) -> Table | None:
    """Recovery: how many injected faults reached each stage, `recovered` first."""
    block = _check(summary, "recovery")
    stages = block.get("stages") or {}
    if not stages:
        return None
    ordered = sorted(stages.items(), key=lambda kv: (kv[0] != "recovered", kv[0]))
    rows = [[stage, fmt(count)] for stage, count in ordered]
    extra = [f"{label} {fmt(block.get(key))}" for key, label in
             (("pass_rate", "pass rate"), ("state_pass_rate", "state pass rate")) if key in block]
    return Table("stages", "Recovery: stage reached per injected fault", ["stage", "faults"], rows,
                 note=", ".join(extra))
