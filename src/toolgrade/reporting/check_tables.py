"""Tables for each check's own figures: per tool, per field, efficiency, recovery stages."""

from __future__ import annotations

from toolgrade.models.summary import (
    ArgumentsSummary,
    FieldSummary,
    KindRate,
    RunSummary,
    SelectionSummary,
)
from toolgrade.reporting.tables import Table, fmt


def per_tool_table(summary: RunSummary) -> Table | None:
    """Selection per tool: tp fp fn P R F1, by tool name; plus free calls when the suite
    uses them (a tool called only freely has a row with its free calls alone)."""
    selection = summary.checks.selection or SelectionSummary()
    per_tool, free = selection.per_tool, selection.free_calls
    if not per_tool and not free:
        return None
    extras = selection.side_effect_extras
    # Where no case expected a call, every call is a false positive: precision and F1 are 0
    # and recall 1 by convention, figures that describe nothing. The calls made are the finding.
    with_rates = not selection.no_tool_expected
    rows = []
    for tool in sorted(set(per_tool) | set(free or {})):
        f = per_tool.get(tool)
        counts = [fmt(None), fmt(None), fmt(None)] if f is None else [fmt(f.tp), fmt(f.fp),
                                                                      fmt(f.fn)]
        rates = [] if not with_rates else (
            [fmt(None)] * 3 if f is None else [fmt(f.precision), fmt(f.recall), fmt(f.f1)])
        row = [tool, *counts, *rates, fmt(extras.get(tool, 0))]
        rows.append(row if free is None else [*row, fmt(free.get(tool, 0))])
    columns = ["tool", "tp", "fp", "fn", *(("precision", "recall", "f1") if with_rates else ()),
               "side-effect extras"]
    if free is not None:
        columns.append("free calls")
    note = "" if with_rates else (
        "No tool expected in any case: fp counts the calls made where none was right; "
        "precision, recall and F1 do not apply.")
    return Table("per-tool", "Selection per tool", columns, rows, note=note)


def _field_order(item: tuple[str, FieldSummary]) -> tuple[float, float, int, str]:
    name, figures = item
    # Worst first by F1, else by the precision or recall there is (a field only ever sent as an
    # extra has precision 0 and no F1), else accuracy (a summary from before field P/R); then
    # accuracy; a field with none sorts last; ties: most evidence first.
    first = _worst(figures)
    accuracy = figures.accuracy
    return (2.0 if first is None else first, 2.0 if accuracy is None else float(accuracy),
            -figures.n, name)


def _worst(figures: FieldSummary) -> float | None:
    for values in ((figures.f1,), (figures.precision, figures.recall), (figures.accuracy,)):
        present = [float(v) for v in values if v is not None]
        if present:
            return min(present)
    return None


def per_field_table(summary: RunSummary) -> Table | None:
    """Arguments per `tool.field`, worst first, with a bar per row: accuracy over the
    reference's fields, and field precision, recall and F1 (an extra field the agent sent
    lowers precision, an expected one left out recall, a wrong value both)."""
    block = summary.checks.arguments or ArgumentsSummary()
    if not block.per_field:
        return None
    ordered = sorted(block.per_field.items(), key=_field_order)
    rows = [[name, fmt(f.n), fmt(f.accuracy), fmt(f.precision), fmt(f.recall), fmt(f.f1)]
            for name, f in ordered]
    bars = [_worst(f) for _, f in ordered]
    pooled = [f"{label} {fmt(value)}" for key, label, value in
              (("field_precision", "precision", block.field_precision),
               ("field_recall", "recall", block.field_recall), ("field_f1", "F1", block.field_f1))
              if key in block.model_fields_set]
    note = ("Pooled over every field: " + ", ".join(pooled) + ".") if pooled else ""
    return Table("per-field", "Arguments per field (worst first)",
                 ["field", "n", "accuracy", "precision", "recall", "f1"], rows, note=note,
                 bars=bars, bars_are_scores=True)


def efficiency_table(summary: RunSummary) -> Table | None:
    """Ordering step efficiency C per task type, with how many runs it pooled."""
    block = summary.checks.ordering
    if block is None or not block.efficiency:
        return None
    ordered = sorted(block.efficiency.items())
    rows = [[task, fmt(value), fmt(block.efficiency_n.get(task))] for task, value in ordered]
    bars = [None if v is None else float(v) for _, v in ordered]
    return Table("efficiency", "Ordering: step efficiency per task type",
                 ["task type", "efficiency", "runs pooled"], rows, bars=bars, bars_are_scores=True,
                 note="A dash: no run of that task type passed every check.")


def stages_table(summary: RunSummary) -> Table | None:
    """Recovery: how many injected faults reached each stage, `recovered` first."""
    block = summary.checks.recovery
    if block is None or not block.stages:
        return None
    ordered = sorted(block.stages.items(), key=lambda kv: (kv[0] != "recovered", kv[0]))
    rows = [[stage, fmt(count)] for stage, count in ordered]
    extra = [f"{label} {fmt(value)}" for key, label, value in
             (("pass_rate", "pass rate", block.pass_rate),
              ("state_pass_rate", "state pass rate", block.state_pass_rate))
             if key in block.model_fields_set]
    return Table("stages", "Recovery: stage reached per injected fault", ["stage", "faults"], rows,
                 note=", ".join(extra))


def coverage_table(summary: RunSummary) -> Table | None:
    """Hard-case coverage: cases per kind, and the selection and arguments pass rates of the
    runs of those cases (a kind no case covers is a row of zeros: the gap is the finding)."""
    coverage = summary.checks.coverage
    if not coverage:
        return None
    selection = summary.checks.selection.per_kind if summary.checks.selection else {}
    arguments = summary.checks.arguments.per_kind if summary.checks.arguments else {}
    rows = []
    for kind, cases in coverage.items():
        sel, arg = selection.get(kind), arguments.get(kind)
        rows.append([kind, fmt(cases), *_kind_cells(sel), *_kind_cells(arg)])
    columns = ["kind", "cases", "selection pass rate", "runs", "arguments pass rate", "runs"]
    return Table("coverage", "Hard-case coverage", columns, rows,
                 note="Cases per hard-case kind, tagged or inferred (docs/case-format.md); "
                      "pass rates over the runs of those cases.")


def _kind_cells(rate: KindRate | None) -> list[str]:
    return [fmt(None), fmt(None)] if rate is None else [fmt(rate.pass_rate), fmt(rate.n)]

