"""The viewer's index and queries: rows and offsets, paging, search, filters, bad lines."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

from builders_viewer import AGENTS, viewer_run, write_viewer_dir
from toolgrade.errors import ToolgradeError
from toolgrade.reporting.viewer.index import NO_AGENT, RunIndex, build_index
from toolgrade.reporting.viewer.query import Query, QueryError, Searcher, parse_query


@pytest.fixture()
def index(tmp_path: Path) -> RunIndex:
    return build_index(write_viewer_dir(tmp_path / "out", 120))


def _indices(index: RunIndex, **query: object) -> list[int]:
    page = Searcher(index).page(Query(size=500, **query))  # type: ignore[arg-type]
    return [r.index for r in page.rows]


def _expected(n: int, keep: object) -> list[int]:
    return [i for i in range(n) if keep(*viewer_run(i))]  # type: ignore[operator]


def test_rows_carry_ids_status_checks_and_the_offset_of_their_line(index: RunIndex) -> None:
    assert index.runs == 120 and not index.problems
    row = index.row(5)
    assert row is not None and (row.case_id, row.agent, row.trial) == ("case-05", None, 0)
    assert (row.status, row.failed_checks) == ("unscored", ())
    assert [c.outcome for c in row.checks] == ["pass", "unscored", "n/a", "n/a"]
    assert index.record(row) == viewer_run(5)[0]  # one seek to the line's offset
    failing = index.row(8)
    assert failing is not None and failing.status == "fail"
    assert failing.failures == ("loop",) and failing.failed_checks == ("ordering",)
    assert index.agents == ("(none)", "strong", "weak")
    assert index.statuses == {"pass": 42, "unscored": 39, "fail": 39}


def test_pages_slice_the_matches_and_a_page_past_the_end_is_the_last(index: RunIndex) -> None:
    searcher = Searcher(index)
    first = searcher.page(Query(size=50))
    assert [r.index for r in first.rows] == list(range(50))
    assert (first.matched, first.pages, first.first, first.total) == (120, 3, 1, 120)
    last = searcher.page(Query(size=50, page=3))
    assert [r.index for r in last.rows] == list(range(100, 120)) and last.first == 101
    past = searcher.page(Query(size=50, page=99))
    assert past.query.page == 3 and past.rows == last.rows


@pytest.mark.parametrize(("filters", "keep"), [
    ({"status": "fail"}, lambda r, t: not r["aggregate"]["passed"]
     and any(b["failures"] for b in r["checks"].values())),
    ({"status": "unscored"}, lambda r, t: r["checks"]["arguments"].get("unscored_fields")),
    ({"status": "pass"}, lambda r, t: r["aggregate"]["passed"]),
    ({"agent": "weak"}, lambda r, t: r["agent"] == "weak"),
    ({"agent": NO_AGENT}, lambda r, t: r["agent"] is None),
    ({"check": "ordering"}, lambda r, t: r["checks"]["ordering"]["failures"]),
    ({"failure": "wrong_value"},
     lambda r, t: [f["name"] for f in r["checks"]["arguments"]["failures"]] == ["wrong_value"]),
    ({"agent": "strong", "failure": "loop"},
     lambda r, t: r["agent"] == "strong" and r["checks"]["ordering"]["failures"]),
])
def test_each_filter_keeps_exactly_the_runs_it_names(
    index: RunIndex, filters: dict[str, str], keep: object
) -> None:
    expected = _expected(120, keep)
    assert expected and len(expected) < 120  # the filter keeps some and drops some
    assert _indices(index, **filters) == expected


@pytest.mark.parametrize(("q", "keep"), [
    ("CASE-07", lambda r, t: r["case_id"] == "case-07"),  # case-insensitive
    ("weak:3", lambda r, t: r["agent"] == "weak" and r["trial"] == 3),  # a run's label
    ("missing_tool", lambda r, t: "missing_tool" in json.dumps(r)),
    ("strong loop", lambda r, t: r["agent"] == "strong" and "loop" in json.dumps(r)),
    ("(none)", lambda r, t: r["agent"] is None),
])
def test_search_matches_every_term_in_ids_agent_and_failure_names(
    index: RunIndex, q: str, keep: object
) -> None:
    expected = _expected(120, keep)
    assert expected and _indices(index, q=q) == expected


def test_search_finds_a_run_by_its_number(index: RunIndex) -> None:
    assert _indices(index, q="#42") == [42]


def test_sort_by_score_puts_the_lowest_first_in_results_order_among_ties(
    index: RunIndex,
) -> None:
    rows = Searcher(index).page(Query(sort="score", size=500)).rows
    scores = [r.score for r in rows]
    assert scores == sorted(scores) and scores[0] == 0.4  # type: ignore[type-var]
    lowest = [r.index for r in rows if r.score == 0.4]
    assert lowest == sorted(lowest) == [i for i in range(120) if i % 7 == 6]


def test_neighbours_follow_the_filters_and_give_the_place(index: RunIndex) -> None:
    searcher = Searcher(index)
    weak = _indices(index, agent="weak")
    before, after, place = searcher.neighbours(Query(agent="weak"), weak[3])
    assert (before, after, place) == (weak[2], weak[4], 3)
    assert searcher.neighbours(Query(agent="weak"), weak[0])[0] is None
    assert searcher.neighbours(Query(agent="strong"), weak[0]) == (None, None, None)


def test_a_malformed_line_is_named_and_the_rest_keep_their_places(tmp_path: Path) -> None:
    folder = write_viewer_dir(tmp_path / "out", 6, bad_lines={2: '{"case_id": "x", oops',
                                                               4: '["not", "a record"]'})
    index = build_index(folder)
    assert index.runs == 4 and index.row(2) is None and index.row(4) is None
    assert sorted((p.line, p.reason.split(":")[0]) for p in index.problems.values()) == [
        (3, "malformed JSON"), (5, "not a toolgrade record")]
    row = index.row(5)
    assert row is not None and (row.case_id, row.line) == ("case-05", 6)
    assert index.transcript_line(5) is not None
    assert json.loads(index.transcript_line(5)[1])["case_id"] == "case-05"  # type: ignore[index]


def test_blank_lines_and_a_byte_order_mark_do_not_shift_the_runs(tmp_path: Path) -> None:
    folder = write_viewer_dir(tmp_path / "out", 3)
    results = folder / "results.jsonl"
    lines = results.read_text(encoding="utf-8").splitlines()
    results.write_bytes(b"\xef\xbb\xbf" + "\n\n".join(lines).encode("utf-8") + b"\n")
    index = build_index(folder)
    assert not index.problems and [r.line for r in index.rows if r] == [1, 3, 5]
    assert [index.record(r)["case_id"] for r in index.rows if r] == ["case-00", "case-01",
                                                                      "case-02"]


def test_transcripts_are_not_read_until_a_run_is_asked_for(tmp_path: Path) -> None:
    folder = write_viewer_dir(tmp_path / "out", 4, transcripts=False)
    index = build_index(folder)  # no transcripts.jsonl yet
    _, line = viewer_run(3)
    (folder / "transcripts.jsonl").write_text("\n" * 2 + "x\n" * 3 + json.dumps(line) + "\n",
                                              encoding="utf-8")
    number, text = index.transcript_line(3) or (0, "")
    assert number == 6 and json.loads(text) == line
    assert index.transcript_line(4) is None


def test_the_collector_paused_while_indexing_is_running_again_after(tmp_path: Path) -> None:
    build_index(write_viewer_dir(tmp_path / "out", 3))
    assert gc.isenabled()
    with pytest.raises(ToolgradeError):
        build_index(tmp_path / "nowhere")
    assert gc.isenabled()


def test_a_folder_without_results_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(ToolgradeError, match=r"empty[/\\]results\.jsonl: no such file"):
        build_index(tmp_path / "empty")


def test_parse_query_reads_params_and_refuses_bad_values() -> None:
    query = parse_query({"q": ["loop"], "status": ["fail"], "page": ["3"], "size": ["25"],
                         "agent": [AGENTS[0] or ""], "junk": ["1"]})
    assert query == Query(q="loop", status="fail", page=3, size=25, agent="strong")
    assert query.params(page=1) == {"q": "loop", "status": "fail", "size": "25",
                                    "agent": "strong"}
    assert parse_query({"page": [""], "status": [""]}) == Query()
    for params, message in (({"page": ["two"]}, "page: expected a whole number"),
                            ({"page": ["0"]}, "page: expected 1 to"),
                            ({"size": ["501"]}, "size: expected 1 to 500"),
                            ({"status": ["broken"]}, "status: expected one of pass"),
                            ({"check": ["speed"]}, "check: expected one of selection")):
        with pytest.raises(QueryError, match=message):
            parse_query(params)


def test_warm_scans_the_transcripts_in_the_background_once(tmp_path: Path) -> None:
    folder = write_viewer_dir(tmp_path / "out", 5)
    index = build_index(folder)
    thread = index.warm()
    thread.join(10)
    assert not thread.is_alive()
    (folder / "transcripts.jsonl").write_text("", encoding="utf-8")  # emptied after the scan
    assert len(index.transcript_offsets()) == 10  # (line, offset) of each of the 5 runs
