"""report.md: the report's tables in GitHub Markdown, for pull requests.

Cells can hold agent text, which is untrusted: Markdown and inline-HTML characters are
backslash-escaped and line breaks collapsed, so a cell can neither break the table nor
inject markup.
"""

from __future__ import annotations

import re

from toolgrade.reporting.digest import clip
from toolgrade.reporting.tables import Matrix, Table
from toolgrade.reporting.view import ReportView

_SPECIAL = re.compile(r"([\\`*_\[\]<>|#~!&])")


def md_escape(text: str) -> str:
    """`text` safe inside a GitHub Markdown table cell: one line, specials escaped."""
    return _SPECIAL.sub(r"\\\1", clip(text, limit=10_000))


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def render_table(table: Table, heading: str = "##", links: bool = False) -> list[str]:
    """A heading, an optional note and the table.

    With `links`, first cells link to the table's anchors; only do so when the target is a
    heading of this document (GitHub makes anchors from headings only).
    """
    lines = [f"{heading} {md_escape(table.title)}", ""]
    if table.note:
        lines += [f"_{md_escape(table.note)}_", ""]
    lines.append(_row([md_escape(c) for c in table.columns]))
    lines.append(_row(["---"] * len(table.columns)))
    for i, row in enumerate(table.rows):
        cells = [md_escape(c) for c in row]
        link = table.links[i] if links and i < len(table.links) else None
        if link:
            cells[0] = f"[{cells[0]}](#{link})"
        lines.append(_row(cells))
    return [*lines, ""]


def render_matrix(matrix: Matrix) -> list[str]:
    """The confusion matrix as a table; the diagonal (right tool) in bold."""
    lines = ["## Selection confusion matrix", "",
             "_Rows: expected tool; columns: the tool called instead (none: missed or extra)._", ""]
    lines.append(_row(["expected ↓ actual →", *(md_escape(a) for a in matrix.actual)]))
    lines.append(_row(["---"] * (len(matrix.actual) + 1)))
    for label, counts in zip(matrix.labels, matrix.counts, strict=True):
        cells = []
        for actual, count in zip(matrix.actual, counts, strict=True):
            text = str(count) if count else "·"
            cells.append(f"**{text}**" if actual == label and count else text)
        lines.append(_row([md_escape(label), *cells]))
    return [*lines, ""]


def _cards(view: ReportView) -> list[str]:
    lines = [_row(["check", "pass rate", "applicable", "figures"]), _row(["---"] * 4)]
    for card in view.cards:
        figures = ", ".join(f"{k} {v}" if v else k for k, v in card.figures)
        if card.unscored:
            figures += f"; unscored: {card.unscored}"
        lines.append(_row([card.check, card.pass_rate, card.applicable, md_escape(figures)]))
    return [*lines, ""]


def _headline(view: ReportView) -> list[str]:
    parts = [f"**{label}** {value}" for label, value in view.headline]
    gates = ""
    if view.gates is not None:
        failed = view.gates_failed
        gates = f" · gates: {failed} failed" if failed else " · gates: all pass"
    return ["# toolgrade report", "", " · ".join(parts) + gates, ""]


def render_markdown(view: ReportView) -> str:
    """The whole report.md text (deterministic for a given summary and results)."""
    lines = [*_headline(view), "## Checks", "", *_cards(view)]
    for table in (view.gates, view.agents):
        if table is not None:
            lines += render_table(table)
    if view.confusion is not None:
        lines += render_matrix(view.confusion)
    for table in view.checks:
        lines += render_table(table)
    if view.adjudication is not None:
        lines += render_table(view.adjudication)
    if view.failures is not None:
        lines += render_table(view.failures, links=True)
    for table in (view.crashes, view.cases, view.reliability, view.judges):
        if table is not None:
            lines += render_table(table)
    if view.examples:
        lines += ["## Failure examples", ""]
        for table in view.examples:
            lines += render_table(table, heading="###")
    return "\n".join(lines).rstrip("\n") + "\n"
