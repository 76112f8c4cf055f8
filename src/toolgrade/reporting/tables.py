"""Format-neutral report tables built from `summary.json` and the results digest.

Markdown and HTML render the same `Table`s, so the two reports always agree. Every cell is
already a string formatted here (fixed decimals, sorted keys), which keeps the output
deterministic; renderers only escape and lay out.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolgrade.models.check_names import registered_names as check_names
from toolgrade.models.summary import (
    AgentCheck,
    ArgumentsSummary,
    CheckSummary,
    OrderingSummary,
    RecoverySummary,
    RunSummary,
    SelectionSummary,
)

DASH = "\N{EN DASH}"
#: The confusion matrix's row/column for "no tool" (a miss or an extra with no partner).
NONE_LABEL = "none"


def fmt(value: Any, digits: int = 3) -> str:
    """A figure for display: floats with fixed decimals, None as a dash, ints as they are."""
    if value is None:
        return DASH
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def anchor(prefix: str, key: str) -> str:
    """A stable HTML/Markdown anchor for untrusted `key` (slug plus a short hash if changed)."""
    slug = re.sub(r"[^a-z0-9_-]+", "-", key.lower()).strip("-")
    if slug != key:
        slug = f"{slug}-{hashlib.sha1(key.encode()).hexdigest()[:6]}".lstrip("-")
    return f"{prefix}-{slug}"


@dataclass(frozen=True)
class Table:
    """A titled table of string cells.

    `links[i]` is an anchor the row's first cell points at; `bars[i]` a share in [0, 1]
    the HTML report draws beside the row (coloured by value when `bars_are_scores`, e.g. an
    accuracy, rather than a share of a count); `row_ids[i]` an anchor placed on the row itself;
    `cell_links[i]` maps a column of row i to an anchor its cell points at (HTML only: the run
    views, e.g. a failure's step, are not in report.md).
    """

    key: str
    title: str
    columns: list[str]
    rows: list[list[str]]
    note: str = ""
    links: list[str | None] = field(default_factory=list)
    bars: list[float | None] = field(default_factory=list)
    row_ids: list[str | None] = field(default_factory=list)
    bars_are_scores: bool = False
    cell_links: list[dict[int, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Matrix:
    """The selection confusion matrix: rows expected, columns actual, `none` last."""

    labels: list[str]
    actual: list[str]
    counts: list[list[int]]

    @property
    def peak(self) -> int:
        """The largest cell, for shading."""
        return max((c for row in self.counts for c in row), default=0)


@dataclass(frozen=True)
class Card:
    """One check's headline: pass rate and its own figures."""

    check: str
    pass_rate: str
    share: float | None
    applicable: str
    figures: list[tuple[str, str]]
    #: What of the check no judge or person decided, and why ("" when nothing was).
    unscored: str = ""


def _none_last(names: set[str]) -> list[str]:
    tail = [NONE_LABEL] if NONE_LABEL in names else []
    return sorted(n for n in names if n != NONE_LABEL) + tail


def confusion_matrix(summary: RunSummary) -> Matrix | None:
    """The matrix from `checks.selection.confusion` cells, or None when there are none."""
    cells = summary.checks.selection.confusion if summary.checks.selection else []
    if not cells:
        return None
    grid: dict[tuple[str, str], int] = {}
    for cell in cells:
        key = (cell.expected, cell.actual)
        grid[key] = grid.get(key, 0) + cell.count
    rows = _none_last({e for e, _ in grid})
    cols = _none_last({a for _, a in grid} | {r for r in rows if r != NONE_LABEL})
    return Matrix(labels=rows, actual=cols,
                  counts=[[grid.get((r, c), 0) for c in cols] for r in rows])


def _share(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def cards(summary: RunSummary) -> list[Card]:
    """The registered checks side by side, in report order."""
    out = []
    for name in check_names():
        block = summary.checks.of(name)
        rate = block.pass_rate if block is not None else None
        applicable = block.applicable if block is not None else None
        out.append(Card(check=name, pass_rate=fmt(rate), share=_share(rate),
                        applicable=fmt(applicable), figures=_card_figures(block),
                        unscored=summary.check_unscored_text(name) or ""))
    return out


def _card_figures(block: CheckSummary | None) -> list[tuple[str, str]]:
    if isinstance(block, SelectionSummary):
        if block.no_tool_expected:
            # Precision and F1 of no expected call are 0 or 1 by convention, not a finding.
            # A label alone, then its count: each report lays the pair out its own way.
            return [("no tool expected", ""), ("calls made", fmt(block.fp))]
        return [("precision", fmt(block.precision)), ("recall", fmt(block.recall)),
                ("f1", fmt(block.f1))]
    if isinstance(block, ArgumentsSummary):
        return [*_given_selection_figures(block),
                ("exact rate", fmt(block.exact_rate)),
                ("field accuracy", fmt(block.field_accuracy)),
                ("invalid", fmt(block.invalid)), ("wrong", fmt(block.wrong)),
                *_field_prf_figures(block), *_ungrounded_figures(block)]
    if isinstance(block, OrderingSummary):
        values = [v for v in block.efficiency.values() if v is not None]
        mean = sum(values) / len(values) if values else None
        return [("mean efficiency", fmt(mean))]
    recovery = block if isinstance(block, RecoverySummary) else RecoverySummary()
    return [("state pass rate", fmt(recovery.state_pass_rate)),
            ("pass@1", fmt(recovery.pass_at_k.get("1"))),
            ("recovered", fmt(recovery.stages.get("recovered")))]


def _given_selection_figures(block: ArgumentsSummary) -> list[tuple[str, str]]:
    """Arguments over the runs whose selection passed, first: the figure not dragged down by
    calls to the wrong tool (absent from a summary written before it existed)."""
    given = block.given_selection
    if given is None:
        return []
    return [("given selection", f"n {fmt(given.n)} · pass {fmt(given.pass_rate)}"
                                f" · exact {fmt(given.exact_rate)}"
                                f" · field acc {fmt(given.field_accuracy)}")]


def _field_prf_figures(block: ArgumentsSummary) -> list[tuple[str, str]]:
    if "field_f1" not in block.model_fields_set:
        return []  # a summary from before field precision and recall
    return [("field P/R/F1", "/".join(fmt(v) for v in
                                      (block.field_precision, block.field_recall, block.field_f1)))]


def _ungrounded_figures(block: ArgumentsSummary) -> list[tuple[str, str]]:
    ungrounded = block.ungrounded
    if ungrounded is None:
        return []
    return [("ungrounded values", f"{fmt(ungrounded.values)} (in {fmt(ungrounded.runs)} runs)")]


def _agent_given_selection(per: Mapping[str, AgentCheck]) -> str:
    arguments = per.get("arguments")
    given = arguments.given_selection if arguments is not None else None
    return fmt(given.pass_rate if given is not None else None)


def agents_table(summary: RunSummary) -> Table | None:
    """Per agent figures, only when more than one agent ran."""
    agents = summary.agents
    if len(agents) < 2:
        return None
    rows, checks = [], check_names()
    for name, tally in sorted(agents.items()):
        per = tally.checks
        rows.append([name, fmt(tally.trajectories), fmt(tally.pass_rate),
                     fmt(tally.mean_score), _agent_given_selection(per),
                     *(fmt(per[c].pass_rate if c in per else None) for c in checks)])
    columns = ["agent", "runs", "pass rate", "mean score", "arguments given selection", *checks]
    return Table("agents", "Agents", columns, rows,
                 note="arguments given selection: the arguments pass rate over the runs whose "
                      "selection passed.")


def cv_kappa_text(record: dict[str, Any]) -> str:
    """`; cross-validated 0.66 [0.50, 0.81] at cut 0.345` when the record has the figure: the
    kappa of the fitted cut a judge runs at by default, beside the one at the record's own cut."""
    if record.get("cv_kappa") is None:
        return ""
    ci = record.get("cv_kappa_ci") or []
    interval = f" [{fmt(ci[0], 2)}, {fmt(ci[1], 2)}]" if len(ci) == 2 else ""
    cut = record.get("cv_threshold")
    at = f" at cut {fmt(cut, 3)}" if cut is not None else ""
    return f"; cross-validated {fmt(record['cv_kappa'], 2)}{interval}{at}"


def _interval(ci: Any) -> str:
    return f" [{fmt(ci[0], 2)}, {fmt(ci[1], 2)}]" if isinstance(ci, list) and len(ci) == 2 else ""


def calibration_text(record: Any) -> str:
    """A judge's calibration as the judges tables show it: the figures of the configuration in
    use (coverage, decided kappa [CI], the plain kappa at the cut) and which one the floor
    reads; never the kappa of a cut the run does not judge at. Summaries from before
    `in_use` keep their old text."""
    if not isinstance(record, dict) or record.get("kappa") is None:
        return "not calibrated"
    figures = record.get("in_use")
    if not isinstance(figures, dict):
        ci = record.get("kappa_ci") or []
        interval = f" [{fmt(ci[0], 2)}, {fmt(ci[1], 2)}]" if len(ci) == 2 else ""
        return (f"kappa {fmt(record['kappa'], 2)}{interval} (n {fmt(record.get('n'))})"
                + cv_kappa_text(record))
    reads = figures.get("floor_reads")
    cut = figures.get("cut")
    at = f" at cut {fmt(cut, 3)}" if cut is not None else ""
    plain = f"{fmt(figures.get('plain_kappa'), 2)}{_interval(figures.get('plain_kappa_ci'))}{at}"
    n = f"n {fmt(record.get('n'))}"
    if reads == "cv_decided_kappa":
        coverage = figures.get("coverage") or 0.0
        if coverage <= 0.0:
            return (f"decides no item (no band reached decided kappa "
                    f"{fmt(figures.get('target_kappa'), 2)}); plain kappa {plain} "
                    f"(cross-validated, {n})")
        return (f"decides {coverage:.0%} at kappa {fmt(figures.get('decided_kappa'), 2)}"
                f"{_interval(figures.get('decided_kappa_ci'))}, the rest uncertain; plain "
                f"kappa {plain} (cross-validated, {n}); floor reads the decided kappa")
    if reads == "cv_kappa":
        return f"decides all at kappa {plain} (cross-validated, {n}); floor reads it"
    return f"decides all at kappa {plain} ({n}); floor reads it"
