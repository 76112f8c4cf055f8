"""Tables for each check's own figures: per tool, per field, efficiency, recovery stages."""

from __future__ import annotations

from typing import Any

from toolgrade.models.figures import FieldFigures, figures_as
from toolgrade.models.status import no_tool_expected
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
    # Where no case expected a call, every call is a false positive: precision and F1 are 0
    # and recall 1 by convention, figures that describe nothing. The calls made are the finding.
    rates = () if no_tool_expected(selection) else ("precision", "recall", "f1")
    names = sorted(set(per_tool) | set(free or {}))
    rows = []
    for tool in names:
        f = per_tool.get(tool, {})
        row = [tool, fmt(f.get("tp")), fmt(f.get("fp")), fmt(f.get("fn")),
               *(fmt(f.get(rate)) for rate in rates), fmt(extras.get(tool, 0))]
        rows.append(row if free is None else [*row, fmt(free.get(tool, 0))])
    columns = ["tool", "tp", "fp", "fn", *rates, "side-effect extras"]
    if free is not None:
        columns.append("free calls")
    note = "" if rates else (
        "No tool expected in any case: fp counts the calls made where none was right; "
        "precision, recall and F1 do not apply.")
    return Table("per-tool", "Selection per tool", columns, rows, note=note)


def _field_order(item: tuple[str, dict[str, Any]]) -> tuple[float, float, int, str]:
    name, raw = item
    figures = figures_as(FieldFigures, raw)
    accuracy = figures.get("accuracy")
    # Worst first by F1, else by the precision or recall there is (a field only ever sent as an
    # extra has precision 0 and no F1), else accuracy (a summary from before field P/R); then
    # accuracy; a field with none sorts last; ties: most evidence first.
    first = _worst(raw)
    return (2.0 if first is None else first, 2.0 if accuracy is None else float(accuracy),
            -int(figures.get("n") or 0), name)


def _worst(figures: dict[str, Any]) -> float | None:
    for keys in (("f1",), ("precision", "recall"), ("accuracy",)):
        values = [float(figures[k]) for k in keys if figures.get(k) is not None]
        if values:
            return min(values)
    return None


def per_field_table(summary: dict[str, Any]) -> Table | None:
    """Arguments per `tool.field`, worst first, with a bar per row: accuracy over the
    reference's fields, and field precision, recall and F1 (an extra field the agent sent
    lowers precision, an expected one left out recall, a wrong value both)."""
    block = _check(summary, "arguments")
    per_field = block.get("per_field") or {}
    if not per_field:
        return None
    ordered = sorted(per_field.items(), key=_field_order)
    rows = [[name, fmt(f.get("n")), fmt(f.get("accuracy")), fmt(f.get("precision")),
             fmt(f.get("recall")), fmt(f.get("f1"))] for name, f in ordered]
    bars = [_bar(f) for _, f in ordered]
    pooled = [f"{label} {fmt(block.get(key))}" for key, label in
              (("field_precision", "precision"), ("field_recall", "recall"), ("field_f1", "F1"))
              if key in block]
    note = ("Pooled over every field: " + ", ".join(pooled) + ".") if pooled else ""
    return Table("per-field", "Arguments per field (worst first)",
                 ["field", "n", "accuracy", "precision", "recall", "f1"], rows, note=note,
                 bars=bars, bars_are_scores=True)


def _bar(figures: dict[str, Any]) -> float | None:
    return _worst(figures)


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


def coverage_table(summary: dict[str, Any]) -> Table | None:
    """Hard-case coverage: cases per kind, and the selection and arguments pass rates of the
    runs of those cases (a kind no case covers is a row of zeros: the gap is the finding)."""
    coverage = _check(summary, "coverage")
    if not coverage:
        return None
    selection = _check(summary, "selection").get("per_kind") or {}
    arguments = _check(summary, "arguments").get("per_kind") or {}
    rows = []
    for kind, cases in coverage.items():
        sel, arg = selection.get(kind) or {}, arguments.get(kind) or {}
        rows.append([kind, fmt(cases), fmt(sel.get("pass_rate")), fmt(sel.get("n")),
                     fmt(arg.get("pass_rate")), fmt(arg.get("n"))])
    columns = ["kind", "cases", "selection pass rate", "runs", "arguments pass rate", "runs"]
    return Table("coverage", "Hard-case coverage", columns, rows,
                 note="Cases per hard-case kind, tagged or inferred (docs/case-format.md); "
                      "pass rates over the runs of those cases.")
