"""compare.md (short enough for a pull-request comment), compare.html (self-contained, in the
report's style) and compare.json, from a `Comparison`.

Case ids and failure names come from the suite and the agents: Markdown escapes them as
report.md does, and the HTML template autoescapes them.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

import jinja2

from toolgrade.comparison.model import Comparison, FigureChange
from toolgrade.reporting.html import text
from toolgrade.reporting.markdown import md_escape

#: Flipped cases and failure names listed in compare.md (compare.html lists all).
MD_ROWS = 10
#: The files `write_comparison` writes.
COMPARE_FILES = ("compare.json", "compare.md", "compare.html")


def percent(share: float | None) -> str:
    """`75.9%`, or an en dash when there is nothing to show."""
    return "\N{EN DASH}" if share is None else f"{share * 100:.1f}%"


def points(change: float | None) -> str:
    """A change in percentage points, signed: `-70.4 pts`."""
    return "\N{EN DASH}" if change is None else f"{change * 100:+.1f} pts"


def interval(figure: FigureChange) -> str:
    """`-88.9 to -50.0`, in points."""
    if figure.ci_low is None or figure.ci_high is None:
        return "\N{EN DASH}"
    return f"{figure.ci_low * 100:+.1f} to {figure.ci_high * 100:+.1f}"


def p_value(p: float | None) -> str:
    """A p-value with 2 significant digits (`<0.0001` below that)."""
    if p is None:
        return "\N{EN DASH}"
    return "<0.0001" if p < 1e-4 else f"{p:.2g}"


def figure_row(figure: FigureChange) -> list[str]:
    """The cells of a figure's row: name, base, new, change, interval, flips, p, pass^k."""
    hat = figure.pass_hat_k
    shown_hat = (f"{hat.base:.2f} \N{RIGHTWARDS ARROW} {hat.new:.2f} (k={hat.k})"
                 if hat else "\N{EN DASH}")
    name = figure.figure + ("" if figure.like_for_like else " \N{DAGGER}")
    return [name, str(figure.cases), percent(figure.base), percent(figure.new),
            points(figure.difference), interval(figure),
            f"{figure.to_fail} / {figure.to_pass}", p_value(figure.mcnemar_p), shown_hat]


def summary_lines(comparison: Comparison) -> list[str]:
    """What `toolgrade compare` prints before writing its files: the pairing, one line per
    figure, and the judged figures that are not like-for-like."""
    lines = [f"{comparison.cases} paired cases (by {comparison.paired_by}); "
             f"{comparison.suite_note}"]
    for figure in comparison.figures:
        name, cases, before, after, change, ci, flips, p, _ = figure_row(figure)
        lines.append(f"{name}: {before} -> {after} over {cases} cases, change {change} "
                     f"(95% CI {ci}), flips {flips}, McNemar p {p}")
    if comparison.judges_differ:
        lines.append("\N{DAGGER} not like-for-like, the judges differ: " + "; ".join(
            f"{d}: {why}" for d, why in comparison.judges_differ.items()))
    return lines


FIGURE_COLUMNS = ["figure", "cases", "base", "new", "change", "95% CI (pts)",
                  "flips to fail / to pass", "McNemar p", "pass^k"]


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(md_escape(c) for c in cells) + " |"


def render_markdown(comparison: Comparison) -> str:
    """compare.md: the figures, the gates, the first flipped cases and changed failures."""
    c = comparison
    lines = [f"## toolgrade compare: {md_escape(c.new)} against {md_escape(c.base)}", "",
             f"{c.cases} paired cases (by {c.paired_by}); {md_escape(c.suite_note)}.", "",
             _md_row(FIGURE_COLUMNS), "|" + "---|" * len(FIGURE_COLUMNS)]
    lines += [_md_row(figure_row(f)) for f in c.figures]
    if c.judges_differ:
        lines += ["", "\N{DAGGER} not like-for-like: judges differ ("
                  + md_escape("; ".join(f"{d}: {why}" for d, why in c.judges_differ.items()))
                  + ")."]
    if c.gates:
        lines += ["", *(f"- {md_escape(g.message())}" for g in c.gates)]
    if c.flips:
        lines += ["", f"**Flipped cases** ({len(c.flips)}):", ""]
        for flip in c.flips[:MD_ROWS]:
            lines.append(f"- {md_escape(flip.case)} {flip.direction.replace('_', ' ')}"
                         + _changes(flip.appeared, flip.disappeared))
        if len(c.flips) > MD_ROWS:
            lines.append(f"- and {len(c.flips) - MD_ROWS} more in compare.html")
    changed = [(name, n) for name, n in c.failures.items() if n.base != n.new]
    if changed:
        changed.sort(key=lambda item: (-abs(item[1].new - item[1].base), item[0]))
        lines += ["", "**Failures that changed** (runs, base \N{RIGHTWARDS ARROW} new): "
                  + ", ".join(f"{md_escape(name)} {n.base} \N{RIGHTWARDS ARROW} {n.new}"
                              for name, n in changed[:MD_ROWS])
                  + (", ..." if len(changed) > MD_ROWS else "")]
    return "\n".join(lines) + "\n"


def _changes(appeared: list[str], disappeared: list[str]) -> str:
    parts = [*(f"+{name}" for name in appeared), *(f"\N{MINUS SIGN}{name}" for name in disappeared)]
    return (": " + md_escape(", ".join(parts))) if parts else ""


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("toolgrade.reporting", "templates"),
        autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True,
        lstrip_blocks=True)
    env.filters["text"] = text
    env.globals.update(figure_row=figure_row, columns=FIGURE_COLUMNS)
    return env


def _relative_link(link: str, out_dir: Path) -> str:
    """A run-view link (`FOLDER/report.html#anchor`) relative to the folder compare.html is in."""
    target, _, fragment = link.partition("#")
    relative = os.path.relpath(Path(target).resolve(), out_dir.resolve())
    return Path(relative).as_posix() + (f"#{fragment}" if fragment else "")


def render_html(comparison: Comparison, out_dir: Path) -> str:
    """compare.html: one self-contained page (inline CSS, no script, nothing fetched)."""
    links = {flip.case: (_relative_link(flip.base_run, out_dir),
                         _relative_link(flip.new_run, out_dir)) for flip in comparison.flips}
    template = _environment().get_template("compare.html.jinja")
    return template.render(c=comparison, links=links)


def write_comparison(comparison: Comparison, out_dir: Path) -> list[Path]:
    """Write compare.json, compare.md and compare.html into `out_dir`; return their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    texts = (comparison.to_json_text(), render_markdown(comparison),
             render_html(comparison, out_dir))
    paths = [out_dir / name for name in COMPARE_FILES]
    for path, content in zip(paths, texts, strict=True):
        path.write_text(content, encoding="utf-8")
    return paths
