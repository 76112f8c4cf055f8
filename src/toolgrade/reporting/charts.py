"""Inline SVG charts for report.html, drawn here in Python: no script, no library, no network.

Three pictures people would rather look at than read: the pass rate of each check per agent
(grouped bars), the distribution of aggregate scores (a histogram) and pass^k by k (one line
per agent). Every label comes from the suite or the agent and is escaped; the SVG is returned
as markup ready to place in the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

import markupsafe

from toolgrade.models.check_names import registered_names as check_names
from toolgrade.reporting.digest import printable

#: One colour per check (the four checks keep their colour in every chart) or per agent.
PALETTE = ("#0969da", "#1a7f37", "#9a6700", "#8250df", "#cf222e", "#1b7c83", "#bf3989")
#: Histogram bins over [0, 1]; a score of exactly 1.0 falls in the last bin.
BINS = 10
_W, _H = 560, 220
_LEFT, _RIGHT, _TOP, _BOTTOM = 40, 12, 14, 46


@dataclass
class ScoreHistogram:
    """Counts of aggregate scores in `BINS` equal bins over [0, 1], taken one run at a time."""

    counts: list[int] = field(default_factory=lambda: [0] * BINS)
    unscored: int = 0

    def add(self, score: Any) -> None:
        """Count one run's aggregate score (None or not a number: counted apart)."""
        if not isinstance(score, int | float) or isinstance(score, bool):
            self.unscored += 1
            return
        share = max(0.0, min(1.0, float(score)))
        self.counts[min(BINS - 1, int(share * BINS))] += 1

    def merge(self, other: ScoreHistogram) -> None:
        """Add another histogram's counts."""
        self.counts = [a + b for a, b in zip(self.counts, other.counts, strict=True)]
        self.unscored += other.unscored

    @property
    def total(self) -> int:
        """Runs with a score."""
        return sum(self.counts)


def _t(text: str) -> str:
    """Label text for SVG: control characters gone (a terminal escape is not XML), escaped."""
    return escape(printable(text))


def _svg(label: str, body: list[str], legend: Sequence[tuple[str, str]]) -> markupsafe.Markup:
    items = "".join(f'<span><i style="background:{c}"></i>{_t(name)}</span>'
                    for name, c in legend)
    svg = (f'<svg class="chart" viewBox="0 0 {_W} {_H}" width="{_W}" height="{_H}" role="img" '
           f'aria-label="{_t(label)}" xmlns="http://www.w3.org/2000/svg">'
           f'<title>{_t(label)}</title>{"".join(body)}</svg>')
    return markupsafe.Markup(f'<figure class="chart"><figcaption>{_t(label)}</figcaption>'
                             f'{svg}<div class="chart-legend">{items}</div></figure>')


def _axes(y_max_label: str) -> list[str]:
    """The frame and the y gridlines at 0, 0.5 and the top."""
    out = []
    for frac, text in ((0.0, "0"), (0.5, ""), (1.0, y_max_label)):
        y = _TOP + (1 - frac) * (_H - _TOP - _BOTTOM)
        out.append(f'<line x1="{_LEFT}" y1="{y:.1f}" x2="{_W - _RIGHT}" y2="{y:.1f}" '
                   f'stroke="#d1d9e0"/>')
        if text:
            out.append(f'<text x="{_LEFT - 4}" y="{y + 4:.1f}" text-anchor="end" '
                       f'font-size="11" fill="#59636e">{_t(text)}</text>')
    return out


def _y(share: float) -> float:
    return _TOP + (1 - max(0.0, min(1.0, share))) * (_H - _TOP - _BOTTOM)


def _x_label(x: float, text: str, limit: int = 16) -> str:
    short = text if len(text) <= limit else text[: limit - 1] + "…"
    return (f'<text x="{x:.1f}" y="{_H - _BOTTOM + 16}" text-anchor="middle" font-size="11" '
            f'fill="#1f2328"><title>{_t(text)}</title>{_t(short)}</text>')


def pass_rate_bars(rates: dict[str, dict[str, float | None]]) -> markupsafe.Markup | None:
    """Grouped bars: per agent (a group), the pass rate of each check (a bar, one colour per
    check); None when no check has a pass rate."""
    if not any(v is not None for per in rates.values() for v in per.values()):
        return None
    plot_w = _W - _LEFT - _RIGHT
    group_w = plot_w / len(rates)
    checks = check_names()
    colours = [PALETTE[c % len(PALETTE)] for c in range(len(checks))]
    bar_w = min(28.0, group_w * 0.8 / len(checks))
    body = _axes("1.0")
    for g, (agent, per) in enumerate(rates.items()):
        start = _LEFT + g * group_w + (group_w - bar_w * len(checks)) / 2
        for c, check in enumerate(checks):
            value = per.get(check)
            if value is None:
                continue
            x, y = start + c * bar_w, _y(value)
            body.append(f'<rect class="bar" data-check="{check}" x="{x:.1f}" y="{y:.1f}" '
                        f'width="{bar_w - 2:.1f}" height="{_y(0) - y:.1f}" '
                        f'fill="{colours[c]}"><title>{_t(agent)} {check}: '
                        f'{value:.3f}</title></rect>')
        body.append(_x_label(_LEFT + (g + 0.5) * group_w, agent))
    legend = list(zip(checks, colours, strict=True))
    return _svg("Pass rate per check, per agent", body, legend)


def score_histogram(hist: ScoreHistogram) -> markupsafe.Markup | None:
    """Bars of how many runs scored in each tenth of [0, 1]; None with no scored run."""
    if not hist.total:
        return None
    peak = max(hist.counts)
    bar_w = (_W - _LEFT - _RIGHT) / BINS
    body = _axes(f"{peak:,}")
    for i, count in enumerate(hist.counts):
        x, y = _LEFT + i * bar_w, _y(count / peak)
        low, high = i / BINS, (i + 1) / BINS
        closing = "]" if i == BINS - 1 else ")"
        body.append(f'<rect class="bar" data-count="{count}" x="{x + 1:.1f}" y="{y:.1f}" '
                    f'width="{bar_w - 2:.1f}" height="{_y(0) - y:.1f}" fill="{PALETTE[0]}">'
                    f'<title>[{low:.1f}, {high:.1f}{closing}: {count:,} runs</title></rect>')
        body.append(_x_label(x + bar_w / 2, f"{low:.1f}"))
    note = f" ({hist.unscored:,} without a score)" if hist.unscored else ""
    return _svg(f"Aggregate score of {hist.total:,} runs{note}", body, [])


def pass_hat_k_lines(curves: dict[str, list[tuple[int, float]]]) -> markupsafe.Markup | None:
    """pass^k (the chance that k trials all pass) by k, one line per agent; None without a
    curve of two points or more (one k is a dot, not a curve; the reliability table has it)."""
    curves = {a: pts for a, pts in curves.items() if len(pts) >= 2}
    if not curves:
        return None
    k_max = max(k for pts in curves.values() for k, _ in pts)
    span = max(1, k_max - 1)
    plot_w = _W - _LEFT - _RIGHT

    def x(k: int) -> float:
        return _LEFT + (k - 1) / span * plot_w

    body = _axes("1.0")
    for k in range(1, k_max + 1):
        body.append(_x_label(x(k), f"k={k}"))
    legend = []
    for n, (agent, pts) in enumerate(curves.items()):
        colour = PALETTE[n % len(PALETTE)]
        path = " ".join(f"{x(k):.1f},{_y(v):.1f}" for k, v in pts)
        body.append(f'<polyline class="curve" fill="none" stroke="{colour}" stroke-width="2" '
                    f'points="{path}"><title>{_t(agent)}</title></polyline>')
        body += [f'<circle cx="{x(k):.1f}" cy="{_y(v):.1f}" r="3" fill="{colour}"><title>'
                 f'{_t(agent)} pass^{k}: {v:.3f}</title></circle>' for k, v in pts]
        legend.append((agent, colour))
    return _svg("pass^k by k (mean over cases)", body, legend)
