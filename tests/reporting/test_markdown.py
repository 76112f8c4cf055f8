"""report.md: a golden-file test on a small fixed run, plus escaping of untrusted text.

The golden file is tests/reporting/golden/report.md. After an intended change to the report,
regenerate it with

    TOOLGRADE_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/reporting/test_markdown.py

and review the diff before committing it.
"""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from builders_reporting import (
    HOSTILE,
    as_summary,
    digest_results,
    small_records,
    small_summary,
    write_results,
)
from toolgrade.reporting.markdown import md_escape, render_markdown
from toolgrade.reporting.view import build_view

GOLDEN = Path(__file__).parent / "golden" / "report.md"


def _render(tmp_path: Path) -> str:
    results = write_results(tmp_path / "results.jsonl", small_records())
    return render_markdown(build_view(as_summary(small_summary()), digest_results(results)))


def test_report_md_matches_the_golden_file(tmp_path: Path) -> None:
    text = _render(tmp_path)
    if os.environ.get("TOOLGRADE_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")


def test_rendering_is_deterministic_whatever_the_summary_key_order(tmp_path: Path) -> None:
    results = write_results(tmp_path / "results.jsonl", small_records())
    summary = small_summary()
    shuffled = small_summary()
    sel = shuffled["checks"]["selection"]
    sel["per_tool"] = dict(reversed(list(sel["per_tool"].items())))
    sel["confusion"] = list(reversed(sel["confusion"]))
    shuffled["reliability"] = dict(reversed(list(shuffled["reliability"].items())))
    first = render_markdown(build_view(as_summary(summary), digest_results(results)))
    second = render_markdown(build_view(as_summary(shuffled), digest_results(results)))
    assert first == second


def test_untrusted_text_cannot_break_a_table_row_or_inject_markup(tmp_path: Path) -> None:
    text = _render(tmp_path)
    hostile_rows = [line for line in text.splitlines() if "alert(1)" in line]
    assert len(hostile_rows) == 1
    row = hostile_rows[0]
    assert "<script>" not in row and "\\<script\\>" in row
    # Escaped pipes do not split cells: 4 columns means 5 unescaped separators.
    assert row.replace("\\|", "").count("|") == 5
    assert "next line" in row  # the newline was collapsed into the same row


def test_failure_names_link_to_their_example_headings(tmp_path: Path) -> None:
    text = _render(tmp_path)
    assert "| [extra\\_tool](#failure-extra_tool) | selection | 1 |" in text
    assert "### Failure: extra\\_tool" in text  # GitHub's anchor for it: failure-extra_tool


def test_per_field_rows_are_worst_first(tmp_path: Path) -> None:
    text = _render(tmp_path)
    order = [text.index(f"| refund.{f} ") for f in ("method", "amount", "order\\_id")]
    assert order == sorted(order)


@given(st.text(max_size=60))
def test_md_escape_keeps_one_line_and_no_bare_pipe(text: str) -> None:
    escaped = md_escape(text)
    assert "\n" not in escaped and "\r" not in escaped
    stripped = escaped.replace("\\\\", "").replace("\\|", "")
    assert "|" not in stripped and "<" not in stripped.replace("\\<", "")


def test_hostile_constant_is_really_hostile() -> None:
    assert "|" in HOSTILE and "<script>" in HOSTILE and "\n" in HOSTILE


def test_an_entity_in_untrusted_text_is_shown_as_written() -> None:
    # GitHub decodes "&amp;" to "&" and "&lt;b&gt;" to "<b>": the report would show other text
    # than the run holds. An escaped "&" keeps the characters as they are.
    assert md_escape("a &amp; b &lt;b&gt;") == "a \\&amp; b \\&lt;b\\&gt;"
