"""The "Adjudicated routes" section: the same counts and side-by-side pass rates in report.md,
report.html and the terminal scorecard; absent when nothing was adjudicated."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from rich.console import Console

from builders_reporting import (
    as_summary,
    digest_results,
    small_records,
    small_summary,
    write_results,
)
from toolgrade.reporting import print_scorecard
from toolgrade.reporting.html import render_html
from toolgrade.reporting.markdown import render_markdown
from toolgrade.reporting.tables import DASH
from toolgrade.reporting.view import build_view

ADJUDICATION: dict[str, Any] = {
    "selection": {"adjudicated": 6, "judge": {"pass": 2, "fail": 2, "unscored": 1},
                  "human": {"pass": 1, "fail": 0}, "blocked_by_hard_fail": 1,
                  "pass_rate": 0.7, "pass_rate_without": 0.3},
    "recovery": {"adjudicated": 0, "judge": {"pass": 0, "fail": 0, "unscored": 0},
                 "human": {"pass": 0, "fail": 0}, "blocked_by_hard_fail": 0,
                 "pass_rate": None, "pass_rate_without": None},
    "aggregate": {"pass_rate": 0.6, "pass_rate_without": 0.2},
}


def _view(tmp_path: Path, adjudication: dict[str, Any] | None) -> Any:
    summary = small_summary()
    if adjudication is not None:
        summary["adjudication"] = adjudication
    results = write_results(tmp_path / "results.jsonl", small_records())
    return build_view(as_summary(summary), digest_results(results))


def test_markdown_has_the_counts_and_both_pass_rates(tmp_path: Path) -> None:
    text = render_markdown(_view(tmp_path, ADJUDICATION))
    assert "## Adjudicated routes" in text
    assert "| selection (routes) | 6 | 2 | 2 | 1 | 1 | 0 | 1 | 0.700 | 0.300 |" in text
    dash = DASH
    assert f"| aggregate |{f' {dash} |' * 7} 0.600 | 0.200 |" in text
    assert "recovery (quality)" not in text  # no case asked recovery_quality to decide


def test_html_has_the_same_section(tmp_path: Path) -> None:
    page = render_html(_view(tmp_path, ADJUDICATION))
    assert "Adjudicated routes" in page
    assert "pass rate without adjudication" in page
    assert '<td class="num">0.300</td>' in page


def test_no_section_when_nothing_was_adjudicated(tmp_path: Path) -> None:
    view = _view(tmp_path, None)
    assert view.adjudication is None
    assert "Adjudicated routes" not in render_markdown(view)


def test_the_scorecard_says_both_rates() -> None:
    buffer = io.StringIO()
    summary = {**small_summary(), "adjudication": ADJUDICATION}
    print_scorecard(Console(file=buffer, width=200), as_summary(summary))
    assert ("adjudicated (selection): judge pass 2, fail 2, unscored 1; human accept 1, reject 0 "
            "— pass rate 0.700, 0.300 without adjudication") in buffer.getvalue()
