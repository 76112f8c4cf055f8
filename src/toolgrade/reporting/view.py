"""Everything a report shows, built once from the summary and the results digest."""

from __future__ import annotations

from dataclasses import dataclass

from toolgrade.models.summary import RunSummary
from toolgrade.reporting import check_tables, run_tables
from toolgrade.reporting.chart_data import Charts, build_charts
from toolgrade.reporting.charts import ScoreHistogram
from toolgrade.reporting.digest import Digest
from toolgrade.reporting.mcp_tables import mcp_tables
from toolgrade.reporting.runs_section import RunsSection
from toolgrade.reporting.tables import (
    Card,
    Matrix,
    Table,
    agents_table,
    cards,
    confusion_matrix,
    fmt,
)


@dataclass(frozen=True)
class ReportView:
    """The report's content in display order; renderers lay it out as Markdown or HTML."""

    headline: list[tuple[str, str]]
    cards: list[Card]
    gates: Table | None
    agents: Table | None
    confusion: Matrix | None
    checks: list[Table]
    adjudication: Table | None
    failures: Table | None
    crashes: Table | None
    cases: Table | None
    reliability: Table | None
    judges: Table | None
    examples: list[Table]
    #: Each run's transcript with its failures pinned (report.html only).
    runs: RunsSection | None = None
    #: Inline SVG charts (report.html only).
    charts: Charts | None = None

    @property
    def gates_failed(self) -> int:
        """How many gates failed (0 without gates)."""
        return sum(row[-1] == "FAIL" for row in self.gates.rows) if self.gates else 0


def _headline(summary: RunSummary) -> list[tuple[str, str]]:
    unscored = summary.unscored
    return [("cases", fmt(summary.cases)),
            ("trajectories", fmt(summary.trajectories)),
            ("aggregate pass rate", fmt(summary.aggregate.pass_rate)),
            ("mean score", fmt(summary.aggregate.mean_score)),
            ("crashed checks", fmt(summary.errors)),
            *([("unscored runs", fmt(unscored.runs))] if unscored is not None else [])]


def build_view(
    summary: RunSummary, digest: Digest, runs: RunsSection | None = None,
    scores: ScoreHistogram | None = None,
) -> ReportView:
    """Assemble every table; sections with nothing to show are None or left out.

    `runs`: the run views; failure rows then link to the step they point at. `scores`: the
    aggregate scores' counts, for the histogram.
    """
    detail = [check_tables.coverage_table(summary),
              check_tables.per_tool_table(summary), check_tables.per_field_table(summary),
              check_tables.efficiency_table(summary), check_tables.stages_table(summary),
              *mcp_tables(summary)]
    return ReportView(
        headline=_headline(summary),
        cards=cards(summary),
        gates=run_tables.gates_table(summary),
        agents=agents_table(summary),
        confusion=confusion_matrix(summary),
        checks=[t for t in detail if t is not None],
        adjudication=run_tables.adjudication_table(summary),
        failures=run_tables.failure_counts_table(summary, digest),
        crashes=run_tables.crashes_table(digest, runs),
        cases=run_tables.cases_table(digest, summary),
        reliability=run_tables.reliability_table(summary, digest),
        judges=run_tables.judges_table(summary),
        examples=run_tables.failure_example_tables(digest, runs),
        runs=runs,
        charts=build_charts(summary, scores),
    )
