"""The terminal scorecard printed after a run.

Agent names, task types and model names come from the user's files: they are escaped, so that
Rich never reads `claude[bold]` as a style or fails on `[/x]` after the run was graded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from toolgrade.models.check_names import registered_names as check_names
from toolgrade.models.summary import (
    AdjudicationSummary,
    AgentSummary,
    ArgumentsSummary,
    CheckSummary,
    JudgeSummary,
    OrderingSummary,
    RecoverySummary,
    RunSummary,
    SelectionSummary,
)
from toolgrade.reporting.tables import calibration_text
from toolgrade.vocabulary import JudgeDimension


def fmt(value: Any, digits: int = 3) -> str:
    """A figure for display: numbers rounded, None as a dash."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _given_selection(args: ArgumentsSummary) -> str:
    """The arguments figures over runs whose selection passed, shown first."""
    given = args.given_selection
    if given is None:
        return ""
    return (f"given selection (n {fmt(given.n)}): pass {fmt(given.pass_rate)} "
            f"exact {fmt(given.exact_rate)}; all runs: ")


def _selection_figures(sel: SelectionSummary) -> str:
    if sel.no_tool_expected:
        return f"no tool expected (calls made where none was right: {fmt(sel.fp)})"
    return f"P {fmt(sel.precision)}  R {fmt(sel.recall)}  F1 {fmt(sel.f1)}"


def _with_unscored(summary: RunSummary, rows: list[tuple[str, str, str]]
                   ) -> list[tuple[str, str, str]]:
    """Each row's figures, with a line saying what of the check was unscored, and why."""
    out = []
    for check, rate, figures in rows:
        text = summary.check_unscored_text(check)
        out.append((check, rate, f"{figures}\n[yellow]unscored[/yellow]: {escape(text)}"
                    if text else figures))
    return out


def _arguments_figures(args: ArgumentsSummary) -> str:
    return (_given_selection(args)
            + f"exact {fmt(args.exact_rate)}  field acc {fmt(args.field_accuracy)}  "
            f"invalid {fmt(args.invalid)}  wrong {fmt(args.wrong)}")


def _ordering_figures(order: OrderingSummary) -> str:
    return "efficiency " + ", ".join(f"{escape(k)} {fmt(v, 2)}"
                                     for k, v in order.efficiency.items())


def _recovery_figures(rec: RecoverySummary) -> str:
    return "stages " + ", ".join(f"{escape(k)} {v}" for k, v in rec.stages.items())


def _figures(block: CheckSummary | None) -> str:
    """A check's own figures in one cell; a registered check beyond the four shows its pass
    rate alone (its block is not modelled field by field)."""
    if isinstance(block, SelectionSummary):
        return _selection_figures(block)
    if isinstance(block, ArgumentsSummary):
        return _arguments_figures(block)
    if isinstance(block, OrderingSummary):
        return _ordering_figures(block)
    if isinstance(block, RecoverySummary):
        return _recovery_figures(block)
    return ""


#: A missing block of one of the four is shown with its figures empty, as a summary without it.
_EMPTY: dict[str, CheckSummary] = {"selection": SelectionSummary(),
                                   "arguments": ArgumentsSummary(),
                                   "ordering": OrderingSummary(), "recovery": RecoverySummary()}


def _check_rows(summary: RunSummary) -> list[tuple[str, str, str]]:
    rows: list[tuple[str, str, str]] = []
    for name in check_names():
        block = summary.checks.of(name) or _EMPTY.get(name)
        rate = block.pass_rate if block is not None else None
        rows.append((name, fmt(rate), _figures(block)))
    return _with_unscored(summary, rows)


def print_scorecard(console: Console, summary: RunSummary) -> None:
    """Checks side by side, per agent, failures and judges."""
    agg = summary.aggregate
    console.print(
        f"\n[bold]toolgrade[/bold]: {summary.trajectories} trajectories over "
        f"{summary.cases} cases — aggregate pass rate {fmt(agg.pass_rate)}, "
        f"mean score {fmt(agg.mean_score)}"
    )
    unscored = summary.runs_unscored_text()
    if unscored:
        console.print(f"[yellow]{escape(unscored)}[/yellow]")
    table = Table(title="Checks", title_justify="left")
    for column in ("check", "pass rate", "figures"):
        table.add_column(column)
    for row in _check_rows(summary):
        table.add_row(*row)
    console.print(table)
    if len(summary.agents) > 1:
        console.print(_agents_table(summary.agents))
    coverage = summary.checks.coverage
    if coverage:
        console.print("hard-case coverage (cases): "
                      + ", ".join(f"{k} {v}" for k, v in coverage.items()))
    if summary.failures:
        console.print("failures: " + escape(", ".join(f"{k} {v}"
                                                      for k, v in summary.failures.items())))
    if summary.adjudication is not None:
        _print_adjudication(console, summary.adjudication)
    _print_judges(console, summary.judges)


#: The agents table's narrow column heads of the four checks; another check shows its name.
_SHORT = {"selection": "sel", "arguments": "args", "ordering": "order", "recovery": "recov"}


def _short(check: str) -> str:
    return _SHORT.get(check, check)


def _agents_table(agents: Mapping[str, AgentSummary]) -> Table:
    by_agent = Table(title="Agents", title_justify="left")
    for column in ("agent", "runs", "pass rate", "mean score", *map(_short, check_names())):
        by_agent.add_column(column)
    for name, tally in agents.items():
        per = tally.checks
        by_agent.add_row(
            escape(name), str(tally.trajectories), fmt(tally.pass_rate), fmt(tally.mean_score),
            *(fmt(per[c].pass_rate if c in per else None, 2) for c in check_names()),
        )
    return by_agent


def _print_adjudication(console: Console, block: AdjudicationSummary) -> None:
    """One line per deciding check: who decided what, and the pass rate without it beside."""
    for check, tally in (("selection", block.selection), ("recovery", block.recovery)):
        if tally is None or not tally.adjudicated:
            continue
        judge, human = tally.judge, tally.human
        console.print(
            f"adjudicated ({check}): judge pass {judge.pass_}, fail "
            f"{judge.fail}, unscored {judge.unscored}; human accept "
            f"{human.pass_}, reject {human.fail} — pass rate "
            f"{fmt(tally.pass_rate)}, {fmt(tally.pass_rate_without)} without "
            "adjudication"
        )


def _print_judges(console: Console, judges: Mapping[JudgeDimension, JudgeSummary]) -> None:
    if not judges:
        return
    if all(block.model is None for block in judges.values()):
        status = next(iter(judges.values())).status or "off"
        console.print(f"judges: {escape(status)}; judge-only fields are unscored")
        return
    table = Table(title="Judges", title_justify="left")
    for column in (
        "dimension",
        "model",
        "calls",
        "cache hits",
        "unscored",
        "errors",
        "tokens",
        "calibration (configuration in use)",
    ):
        table.add_column(column)
    for dimension, block in judges.items():
        calib = block.calibration or {}
        if calib:
            kappa = calibration_text(calib)
        else:
            kappa = "-" if block.model is None else "not calibrated"
        table.add_row(
            escape(dimension),
            escape(str(block.model or block.status or "off")),
            fmt(block.calls),
            fmt(block.cache_hits),
            fmt(block.unscored),
            fmt(block.errors),
            fmt(block.tokens),
            kappa,
        )
    console.print(table)
