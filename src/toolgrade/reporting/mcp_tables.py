"""The report's MCP tables, for a suite that takes its tools from a catalogue (`tools_from`):
tool coverage, and catalogue drift per tool (docs/mcp.md)."""

from __future__ import annotations

from toolgrade.models.summary import McpSummary, RunSummary
from toolgrade.reporting.tables import Table, fmt


def mcp_tables(summary: RunSummary) -> list[Table]:
    """Coverage, then drift where a run saw another catalogue; none without `tools_from`."""
    if summary.mcp is None:
        return []
    drift = drift_table(summary.mcp)
    return [coverage_table(summary.mcp), *([drift] if drift is not None else [])]


def coverage_table(mcp: McpSummary) -> Table:
    """Each catalogue tool: expected by a case or not, and its calls in the runs."""
    coverage, catalogue = mcp.coverage, mcp.catalogue
    never = set(coverage.never_expected)
    rows = [[name, "no" if name in never else "yes", fmt(calls)]
            for name, calls in coverage.calls.items()]
    unexercised = ", ".join(coverage.never_called) or "none"
    note = (f"MCP tool coverage of {catalogue.file}: {coverage.expected} of {catalogue.tools} "
            f"tools expected by the cases ({fmt(coverage.expected_share)}), {coverage.called} "
            f"called by the runs ({fmt(coverage.called_share)}); never called: {unexercised}.")
    return Table("mcp-coverage", "MCP tool coverage", ["tool", "expected", "calls"], rows,
                 note=note)


def drift_table(mcp: McpSummary) -> Table | None:
    """Each drifted tool with the runs that saw it added, removed or changed; None when no
    run saw another catalogue."""
    drift = mcp.drift
    if not drift.with_drift:
        return None
    rows = [[name, fmt(kinds.get("added", 0)), fmt(kinds.get("removed", 0)),
             fmt(kinds.get("changed", 0))] for name, kinds in drift.tools.items()]
    outcome = ("left unscored" if drift.on_drift == "unscored"
               else "graded as usual (on_drift: flag)")
    note = (f"Catalogue drift: {drift.with_drift} of {drift.runs} runs saw another catalogue "
            f"than {mcp.catalogue.file} ({mcp.catalogue.hash[:19]}), {outcome}; runs per tool.")
    return Table("mcp-drift", "MCP catalogue drift", ["tool", "added", "removed", "changed"],
                 rows, note=note)
