"""The terminal scorecard printed after a run.

Agent names, task types and model names come from the user's files: they are escaped, so that
Rich never reads `claude[bold]` as a style or fails on `[/x]` after the run was graded.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from toolgrade.models.status import (
    check_unscored_text,
    no_tool_expected,
    runs_unscored_text,
)
from toolgrade.reporting.tables import cv_kappa_text


def fmt(value: Any, digits: int = 3) -> str:
    """A figure for display: numbers rounded, None as a dash."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _given_selection(args: dict[str, Any]) -> str:
    """The arguments figures over runs whose selection passed, shown first."""
    given = args.get("given_selection")
    if not isinstance(given, dict):
        return ""
    return (f"given selection (n {fmt(given.get('n'))}): pass {fmt(given.get('pass_rate'))} "
            f"exact {fmt(given.get('exact_rate'))}; all runs: ")


def _selection_figures(sel: dict[str, Any]) -> str:
    if no_tool_expected(sel):
        return f"no tool expected (calls made where none was right: {fmt(sel.get('fp'))})"
    return f"P {fmt(sel.get('precision'))}  R {fmt(sel.get('recall'))}  F1 {fmt(sel.get('f1'))}"


def _with_unscored(summary: dict[str, Any], rows: list[tuple[str, str, str]]
                   ) -> list[tuple[str, str, str]]:
    """Each row's figures, with a line saying what of the check was unscored, and why."""
    out = []
    for check, rate, figures in rows:
        text = check_unscored_text(summary, check)
        out.append((check, rate, f"{figures}\n[yellow]unscored[/yellow]: {escape(text)}"
                    if text else figures))
    return out


def _check_rows(summary: dict[str, Any]) -> list[tuple[str, str, str]]:
    checks = summary.get("checks", {})
    sel, args = checks.get("selection", {}), checks.get("arguments", {})
    order, rec = checks.get("ordering", {}), checks.get("recovery", {})
    return _with_unscored(summary, [
        ("selection", fmt(sel.get("pass_rate")), _selection_figures(sel)),
        (
            "arguments",
            fmt(args.get("pass_rate")),
            _given_selection(args)
            + f"exact {fmt(args.get('exact_rate'))}  field acc {fmt(args.get('field_accuracy'))}  "
            f"invalid {fmt(args.get('invalid'))}  wrong {fmt(args.get('wrong'))}",
        ),
        (
            "ordering",
            fmt(order.get("pass_rate")),
            "efficiency "
            + ", ".join(
                f"{escape(k)} {fmt(v, 2)}" for k, v in (order.get("efficiency") or {}).items()
            ),
        ),
        (
            "recovery",
            fmt(rec.get("pass_rate")),
            "stages " + ", ".join(f"{escape(k)} {v}" for k, v in (rec.get("stages") or {}).items()),
        ),
    ])


def print_scorecard(console: Console, summary: dict[str, Any]) -> None:
    """Checks side by side, per agent, failures and judges."""
    agg = summary.get("aggregate", {})
    console.print(
        f"\n[bold]toolgrade[/bold]: {summary.get('trajectories', 0)} trajectories over "
        f"{summary.get('cases', 0)} cases — aggregate pass rate {fmt(agg.get('pass_rate'))}, "
        f"mean score {fmt(agg.get('mean_score'))}"
    )
    unscored = runs_unscored_text(summary)
    if unscored:
        console.print(f"[yellow]{escape(unscored)}[/yellow]")
    table = Table(title="Checks", title_justify="left")
    for column in ("check", "pass rate", "figures"):
        table.add_column(column)
    for row in _check_rows(summary):
        table.add_row(*row)
    console.print(table)
    agents = summary.get("agents") or {}
    if len(agents) > 1:
        by_agent = Table(title="Agents", title_justify="left")
        for column in ("agent", "runs", "pass rate", "mean score", "sel", "args", "order", "recov"):
            by_agent.add_column(column)
        for name, tally in agents.items():
            per = tally.get("checks", {})
            by_agent.add_row(
                escape(name),
                str(tally["trajectories"]),
                fmt(tally["pass_rate"]),
                fmt(tally["mean_score"]),
                *(
                    fmt(per.get(c, {}).get("pass_rate"), 2)
                    for c in ("selection", "arguments", "ordering", "recovery")
                ),
            )
        console.print(by_agent)
    coverage = summary.get("checks", {}).get("coverage") or {}
    if coverage:
        console.print("hard-case coverage (cases): "
                      + ", ".join(f"{k} {v}" for k, v in coverage.items()))
    failures = summary.get("failures") or {}
    if failures:
        console.print("failures: " + escape(", ".join(f"{k} {v}" for k, v in failures.items())))
    _print_adjudication(console, summary.get("adjudication") or {})
    _print_judges(console, summary.get("judges") or {})


def _print_adjudication(console: Console, block: dict[str, Any]) -> None:
    """One line per deciding check: who decided what, and the pass rate without it beside."""
    for check, tally in block.items():
        if check == "aggregate" or not tally.get("adjudicated"):
            continue
        judge, human = tally.get("judge") or {}, tally.get("human") or {}
        console.print(
            f"adjudicated ({check}): judge pass {judge.get('pass', 0)}, fail "
            f"{judge.get('fail', 0)}, unscored {judge.get('unscored', 0)}; human accept "
            f"{human.get('pass', 0)}, reject {human.get('fail', 0)} — pass rate "
            f"{fmt(tally.get('pass_rate'))}, {fmt(tally.get('pass_rate_without'))} without "
            "adjudication"
        )


def _print_judges(console: Console, judges: dict[str, Any]) -> None:
    if not judges:
        return
    if all(block.get("model") is None for block in judges.values()):
        status = next(iter(judges.values())).get("status", "off")
        console.print(f"judges: {escape(str(status))}; judge-only fields are unscored")
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
        "kappa [95% CI]",
    ):
        table.add_column(column)
    for dimension, block in judges.items():
        calib = block.get("calibration") or {}
        if calib:
            ci = [round(x, 2) for x in calib.get("kappa_ci") or []]
            kappa = f"{fmt(calib.get('kappa'), 2)} {ci}{cv_kappa_text(calib)}"
        else:
            kappa = "-" if block.get("model") is None else "not calibrated"
        table.add_row(
            escape(dimension),
            escape(str(block.get("model") or block.get("status") or "off")),
            fmt(block.get("calls")),
            fmt(block.get("cache_hits")),
            fmt(block.get("unscored")),
            fmt(block.get("errors")),
            fmt(block.get("tokens")),
            kappa,
        )
    console.print(table)
