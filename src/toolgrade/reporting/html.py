"""report.html: one self-contained page (inline CSS, no scripts, no network) from a ReportView.

Rendered with jinja2 with autoescaping on: case ids, tool names and failure messages come from
the agent and the suite, and must never become markup.
"""

from __future__ import annotations

import html
import re
from functools import cache
from typing import Any

import jinja2
import markupsafe

from toolgrade.reporting.digest import printable
from toolgrade.reporting.view import ReportView


def shade(count: int, peak: int) -> str:
    """Heat-map opacity for a confusion cell: 0 for empty, else 0.15..0.9 by count (sqrt scale)."""
    if count <= 0 or peak <= 0:
        return "0"
    # sqrt keeps small substitution counts visible next to a large diagonal.
    return f"{0.15 + 0.75 * (count / peak) ** 0.5:.2f}"


def pct(share: float | None) -> str:
    """A share in [0, 1] as a CSS width percentage (clamped)."""
    if share is None:
        return "0"
    return f"{max(0.0, min(1.0, share)) * 100:.1f}"


_NUMBER = re.compile(r"^(?:[-+$]?\d[\d.,]*%?|\N{EN DASH})$")


def is_number(cell: str) -> bool:
    """Whether a cell shows a figure (right-aligned, tabular digits) rather than text."""
    return bool(_NUMBER.match(cell))


def text(value: str) -> markupsafe.Markup:
    """Element content escaped without its quotes: `"` needs no escape between tags, and JSON
    arguments are full of them (a fifth of a run view's bytes as `&#34;`). Never for an
    attribute value."""
    return markupsafe.Markup(html.escape(_printable(value), quote=False))


def bar_class(share: float, is_score: bool) -> str:
    """CSS class of a bar: scores are red below 0.5 and amber below 0.9; counts stay neutral."""
    if not is_score:
        return ""
    return "low" if share < 0.5 else "mid" if share < 0.9 else "high"


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("toolgrade.reporting", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        # Every value shown, agent names and case ids included, loses its control characters,
        # as in report.md and junit.xml: a terminal escape in agent text must not reach the page.
        finalize=_printable,
    )
    env.globals.update(shade=shade, pct=pct, is_number=is_number,
                       bar_class=bar_class)
    env.filters["text"] = text
    return env


def _printable(value: Any) -> Any:
    if isinstance(value, str) and not hasattr(value, "__html__"):  # markup is left as it is
        return printable(value)
    return value


def render_html(view: ReportView, title: str = "toolgrade report") -> str:
    """The whole report.html text."""
    return _environment().get_template("report.html.jinja").render(view=view, title=title)
