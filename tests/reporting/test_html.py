"""report.html: self-contained, escaped, and holding every section the issue asks for."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from builders_reporting import (
    as_summary,
    check,
    digest_results,
    failure,
    record,
    small_records,
    small_summary,
    write_results,
)
from toolgrade.reporting.html import render_html, shade
from toolgrade.reporting.tables import anchor
from toolgrade.reporting.view import build_view


class _Collector(HTMLParser):
    """Tags, ids, internal links and external references of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.ids: set[str] = set()
        self.fragments: list[str] = []
        self.external: list[str] = []
        self.diagonal: list[str] = []
        self._in_diag = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(str(values["id"]))
        for key in ("href", "src"):
            ref = values.get(key) or ""
            if ref.startswith("#"):
                self.fragments.append(ref[1:])
            elif ref:
                self.external.append(ref)
        self._in_diag = tag == "td" and "diag" in (values.get("class") or "").split()

    def handle_data(self, data: str) -> None:
        if self._in_diag and data.strip():
            self.diagonal.append(data.strip())
            self._in_diag = False


def _page(tmp_path: Path, records: list[dict[str, object]] | None = None) -> str:
    results = write_results(tmp_path / "results.jsonl", records or small_records())
    return render_html(build_view(as_summary(small_summary()), digest_results(results)))


def _parse(page: str) -> _Collector:
    parser = _Collector()
    parser.feed(page)
    return parser


def test_the_page_is_self_contained(tmp_path: Path) -> None:
    page = _page(tmp_path)
    parsed = _parse(page)
    assert parsed.external == []  # no stylesheet, script, font or image from anywhere
    assert "script" not in parsed.tags and "link" not in parsed.tags
    assert "<style>" in page and "@import" not in page and "url(" not in page


def test_agent_text_is_escaped(tmp_path: Path) -> None:
    page = _page(tmp_path)
    assert "<script>alert(1)" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "\x1b" not in page
    assert 'href="http://evil.example"' not in page


def test_control_characters_in_agent_names_and_case_ids_never_reach_the_page(
    tmp_path: Path,
) -> None:
    failing = check(passed=False, score=0.0, failures=[failure("extra_tool", 1)])
    hostile = record("case\x1b[1m", agent="a|<b>\x1b[1m\x07", selection=failing)
    page = _page(tmp_path, [*small_records(), hostile])
    assert re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", page) is None
    assert "a|&lt;b&gt; [1m" in page


def test_every_internal_link_has_a_target(tmp_path: Path) -> None:
    parsed = _parse(_page(tmp_path))
    assert parsed.fragments, "expected links to sections, failures and cases"
    assert set(parsed.fragments) <= parsed.ids
    assert {anchor("failure", "extra_tool"), anchor("case", "refund-01"), anchor("case", "chat|02"),
            "confusion", "per-tool", "per-field", "failures", "reliability", "judges",
            "gates", "agents", "crashes"} <= parsed.ids


def test_confusion_matrix_marks_the_diagonal(tmp_path: Path) -> None:
    page = _page(tmp_path)
    parsed = _parse(page)
    assert parsed.diagonal == ["1", "2"]  # lookup_order->lookup_order, refund->refund
    section = page[page.index('id="confusion"'):page.index('id="per-tool"')]
    headers = re.findall(r'<th class="col">([^<]*)</th>', section)
    assert headers == ["lookup_order", "refund", "search_orders"]
    rows = re.findall(r'<th class="row">([^<]*)</th>', section)
    assert rows[-1] == "none"


def test_sections_show_figures(tmp_path: Path) -> None:
    page = _page(tmp_path)
    for text in ("0.774", "local/qwen2.5-1.5b (small local model)", "kappa 0.62 [0.41, 0.80]",
                 "not calibrated", "pass@2", "pass^2", "1 gate(s) failed", "RuntimeError: kaboom",
                 "side-effect extras", "no_retry"):
        assert text in page, text
    order = [page.index(f'<code title="refund.{f}">refund.{f}</code>')
             for f in ("method", "amount", "order_id")]
    assert order == sorted(order)  # worst accuracy first


def test_examples_are_capped_per_failure_name(tmp_path: Path) -> None:
    lines = [record(f"case-{i}", passed=False,
                    selection=check(passed=False, score=0.0, failures=[failure("missing_tool")]))
             for i in range(45)]
    page = _page(tmp_path, lines)
    section = page[page.index(f'id="{anchor("failure", "missing_tool")}"'):]
    assert "first 20 of 45 shown" in section
    assert section.count("missing_tool happened") == 20


@given(st.integers(min_value=0, max_value=10_000), st.integers(min_value=1, max_value=10_000))
def test_shade_is_an_opacity_that_grows_with_the_count(count: int, peak: int) -> None:
    value = float(shade(min(count, peak), peak))
    assert 0.0 <= value <= 0.9
    assert (value == 0.0) == (count == 0)
    assert float(shade(min(count + 1, peak), peak)) >= value


def test_a_constantly_failing_field_is_first_and_red(tmp_path: Path) -> None:
    page = _page(tmp_path)
    section = page[page.index('id="per-field"'):page.index('id="efficiency"')]
    rows = section.split("<tr")[2:]  # skip the section head and the header row
    assert '<code title="refund.method">refund.method</code>' in rows[0]
    assert 'class="low"' in rows[0]
    assert '<code title="refund.order_id">refund.order_id</code>' in rows[-1]
    assert 'class="high"' in rows[-1]
