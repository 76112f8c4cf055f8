"""The viewer's pages rendered directly: filter choices, empty results, errors, run links."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders_reporting import HOSTILE
from builders_viewer import write_viewer_dir
from toolgrade.reporting.viewer.index import build_index
from toolgrade.reporting.viewer.pages import (
    NotFound,
    filter_options,
    render_error,
    render_list,
    run_detail,
    step_failures,
)
from toolgrade.reporting.viewer.query import Query, Searcher


def test_filter_choices_count_their_runs_and_leave_out_empty_statuses(tmp_path: Path) -> None:
    index = build_index(write_viewer_dir(tmp_path / "out", 9))
    options = filter_options(index)
    assert options["status"] == [("pass", "pass (3)"), ("fail", "fail (3)"),
                                 ("unscored", "unscored (3)")]
    assert options["failure"] == [("loop", "loop (3)")]
    assert options["agent"] == [("(none)", "(none)"), ("strong", "strong"), ("weak", "weak")]


def test_a_query_matching_nothing_says_so_without_a_table(tmp_path: Path) -> None:
    index = build_index(write_viewer_dir(tmp_path / "out", 9))
    page = Searcher(index).page(Query(q="no-such-case"))
    body = render_list(index, page)
    assert "no run matches (of 9)" in body and 'class="runs"' not in body
    assert 'value="no-such-case"' in body  # the search box keeps what was typed


def test_an_error_page_escapes_its_message() -> None:
    body = render_error(404, HOSTILE)
    assert "<script>" not in body and "&lt;script&gt;" in body and "\x1b" not in body


def test_a_run_s_failures_link_to_their_steps_in_step_order(tmp_path: Path) -> None:
    index = build_index(write_viewer_dir(tmp_path / "out", 9))
    view = run_detail(index, 8).view
    assert [(i, p.check, p.name) for i, p in step_failures(view)] == [(1, "ordering", "loop")]
    with pytest.raises(NotFound, match="no run 9: the folder holds runs 0 to 8"):
        run_detail(index, 9)
