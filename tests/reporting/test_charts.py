"""The inline SVG charts: well-formed, drawn to scale, labels escaped, absent when empty."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest

from builders_reporting import HOSTILE, as_summary, small_summary
from toolgrade.reporting.chart_data import ALL_RUNS, build_charts, check_pass_rates, pass_hat_k
from toolgrade.reporting.charts import (
    BINS,
    ScoreHistogram,
    pass_hat_k_lines,
    pass_rate_bars,
    score_histogram,
)
from toolgrade.reporting.digest import printable

SVG = "{http://www.w3.org/2000/svg}"


def _svg(markup: Any) -> ET.Element:
    """The <svg> element of a chart's figure (the figure parses as XML: well-formed)."""
    figure = ET.fromstring(str(markup))
    svg = figure.find(f"{SVG}svg")
    assert svg is not None
    return svg


def _bars(svg: ET.Element) -> list[ET.Element]:
    return [r for r in svg.iter(f"{SVG}rect") if r.get("class") == "bar"]


def test_grouped_bars_are_one_per_check_and_agent_and_to_scale() -> None:
    rates: dict[str, dict[str, float | None]] = {
        "a": {"selection": 1.0, "arguments": 0.5, "ordering": 0.25, "recovery": None},
        "b": {"selection": 0.0, "arguments": 1.0, "ordering": 1.0, "recovery": 1.0}}
    bars = _bars(_svg(pass_rate_bars(rates)))
    assert len(bars) == 7  # a check without a pass rate has no bar
    heights = {(b.findtext(f"{SVG}title") or ""): float(b.get("height", "0")) for b in bars}
    full = heights["a selection: 1.000"]
    assert full > 0 and heights["a arguments: 0.500"] == pytest.approx(full / 2, abs=0.1)
    assert heights["a ordering: 0.250"] == pytest.approx(full / 4, abs=0.1)
    assert heights["b selection: 0.000"] == 0
    assert {b.get("data-check") for b in bars} == {"selection", "arguments", "ordering",
                                                   "recovery"}


def test_no_chart_without_figures() -> None:
    assert pass_rate_bars({"a": {"selection": None}}) is None
    assert score_histogram(ScoreHistogram()) is None
    assert pass_hat_k_lines({"a": [(1, 0.5)]}) is None  # one k is a dot, not a curve


def test_labels_from_agents_are_escaped_text_never_markup() -> None:
    markup = str(pass_rate_bars({HOSTILE: {"selection": 1.0}}))
    assert "<script>" not in markup
    svg = _svg(markup)
    titles = [t for t in svg.iter(f"{SVG}title") if t.text == printable(HOSTILE)]
    assert titles and "\x1b" not in str(markup)  # the full name on hover, no control character
    label = [t.tail for t in titles if t.tail]
    assert label and label[0].endswith("…") and len(label[0]) == 16  # cut to fit its group


def test_the_histogram_counts_each_tenth_and_one_falls_in_the_last() -> None:
    hist = ScoreHistogram()
    for score in (0.0, 0.05, 0.55, 1.0, 1.0, 0.95, None, "x"):
        hist.add(score)
    assert hist.counts == [2, 0, 0, 0, 0, 1, 0, 0, 0, 3] and hist.unscored == 2
    other = ScoreHistogram()
    other.add(0.31)
    hist.merge(other)
    assert hist.counts[3] == 1 and hist.total == 7
    svg = _svg(score_histogram(hist))
    bars = _bars(svg)
    assert [int(b.get("data-count", "-1")) for b in bars] == hist.counts and len(bars) == BINS
    tallest = max(bars, key=lambda b: float(b.get("height", "0")))
    assert tallest.get("data-count") == "3"
    assert "7 runs (2 without a score)" in (svg.findtext(f"{SVG}title") or "")


def test_pass_hat_k_is_averaged_per_agent_over_cases() -> None:
    summary = {"agents": {"bot": {"trajectories": 4}, "x@y": {"trajectories": 4}},
               "reliability": {
                   "c1@bot": {"n": 2, "c": 2, "pass_hat_k": {"1": 1.0, "2": 0.5}},
                   "c2@bot": {"n": 2, "c": 1, "pass_hat_k": {"1": 0.5, "2": 0.0}},
                   "c@1@x@y": {"n": 4, "c": 1, "pass_hat_k": {"1": 0.25, "2": 0.25, "3": 0.25}}}}
    curves = pass_hat_k(as_summary(summary))
    assert curves == {"bot": [(1, 0.75), (2, 0.25)], "x@y": [(1, 0.25), (2, 0.25), (3, 0.25)]}
    svg = _svg(pass_hat_k_lines(curves))
    lines = list(svg.iter(f"{SVG}polyline"))
    assert [len((p.get("points") or "").split()) for p in lines] == [2, 3]
    dots = [c.findtext(f"{SVG}title") for c in svg.iter(f"{SVG}circle")]
    assert "bot pass^2: 0.250" in dots


def test_one_agent_is_charted_from_the_suite_figures() -> None:
    summary = small_summary()
    rates = check_pass_rates(as_summary({**summary, "agents": {"bot": summary["agents"]["bot"]}}))
    assert list(rates) == [ALL_RUNS]
    assert rates[ALL_RUNS]["selection"] == pytest.approx(2 / 3)
    hist = ScoreHistogram()
    hist.add(0.5)
    charts = build_charts(as_summary(summary), hist)
    assert len(charts.svgs) == 3  # two agents' bars, the histogram, pass^k over k = 1, 2
    assert all(str(svg).startswith('<figure class="chart">') for svg in charts.svgs)
