"""The runs section of report.html: every failure row reaches its pinned step in one click."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from builders_judging import engine
from builders_reporting import (
    HOSTILE,
    check,
    failure,
    graded_example,
    record,
    small_summary,
    steps_record,
    write_run_dir,
)
from toolgrade.judging.scripted import FakeClient, verdict_json
from toolgrade.loaders.transcripts import TRANSCRIPTS_FILE
from toolgrade.reporting.files import rerender

_VOID = {"meta", "br", "input", "img", "hr", "link", "col", "wbr"}


class _Pins(HTMLParser):
    """Per element id: the failure names pinned inside it; per failure section: its links."""

    def __init__(self) -> None:
        super().__init__()
        self.pins: dict[str, list[str]] = {}
        self.links: dict[str, list[str]] = {}
        self.scripts: list[dict[str, str | None]] = []
        self._stack: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "script":
            self.scripts.append(values)
        element_id = values.get("id")
        if element_id:
            self.pins.setdefault(element_id, [])
        if values.get("data-failure"):
            for _, open_id in self._stack:
                if open_id:
                    self.pins[open_id].append(str(values["data-failure"]))
        href = values.get("href") or ""
        if tag == "a" and href.startswith("#run-"):
            section = next((i for _, i in reversed(self._stack)
                            if i and i.startswith("failure-")), None)
            if section:
                self.links.setdefault(section, []).append(href[1:])
        if tag not in _VOID:
            self._stack.append((tag, element_id))

    def handle_endtag(self, tag: str) -> None:
        while self._stack:
            if self._stack.pop()[0] == tag:
                break


def _parse(page: str) -> _Pins:
    parser = _Pins()
    parser.feed(page)
    return parser


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return graded_example(tmp_path_factory.mktemp("helpdesk"))


def test_every_failure_example_links_to_the_step_it_is_pinned_on(example: Path) -> None:
    page = (example / "report.html").read_text(encoding="utf-8")
    parsed = _parse(page)
    # Each failure's examples are folded (closed <details>), the title in the summary.
    examples = re.findall(r'<section id="(failure-[^"]+)">\s*<details class="fold"><summary>'
                          r'<h3>Failure: ([^<]+)</h3>', page)
    assert len(examples) >= 15  # the example's failures, by name
    assert "<details class=\"fold\" open" not in page
    for section, name in examples:
        rows = page.split(f'<section id="{section}">')[1].split("</section>")[0].count("<tr") - 1
        steps = [link for link in parsed.links.get(section, [])
                 if re.search(r"-(s\d+|run)$", link)]
        assert len(steps) == rows, section  # one step link per failure row
        for link in steps:
            assert name in parsed.pins[link], (name, link)


def test_every_run_has_a_view_and_the_page_stays_self_contained(example: Path) -> None:
    page = (example / "report.html").read_text(encoding="utf-8")
    parsed = _parse(page)
    results = (example / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert page.count('<article class="run"') == len(results) == 90
    assert page.count('<tr class="run-row"') == 90
    assert "Every graded run (90)" in page
    assert parsed.scripts == [{}]  # one inline script (the filters), no src
    assert not re.search(r'\s(?:src|href)="(?!#)', page)  # nothing fetched from anywhere
    assert "injected fault: error (lookup_order call 1)" in page
    assert "parallel group" in page  # the strong agent issues calls together


def test_a_folder_without_transcripts_still_renders_and_links_to_cases(tmp_path: Path) -> None:
    run_dir = write_run_dir(tmp_path)  # as written before transcripts were kept
    rerender(run_dir)
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert f"No {TRANSCRIPTS_FILE} in this folder" in page
    assert "have no view on this page" not in page  # the line above says why, once
    assert "<article" not in page and "<script" not in page and 'href="#run-' not in page
    assert 'href="#case-refund-01"' in page


def test_transcripts_from_another_run_are_not_shown_as_this_one(tmp_path: Path) -> None:
    run_dir = write_run_dir(tmp_path)
    lines = [steps_record("other", []), steps_record("refund-01", [], trial=1),
             steps_record("chat|02", [], agent=None)]
    (run_dir / TRANSCRIPTS_FILE).write_text("".join(json.dumps(x) + "\n" for x in lines),
                                            encoding="utf-8")
    rerender(run_dir)
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert page.count('<article class="run"') == 2
    assert "1 run(s) have no readable transcript" in page
    # The crashed check's row links to the crash, shown with the run's own failures.
    crashes = page.split('<section id="crashes">')[1].split("</section>")[0]
    target = re.search(r'href="#(run-[^"]+-run)"', crashes)
    assert target is not None and "crashed" in _parse(page).pins[target.group(1)]


def test_agent_text_in_a_transcript_is_escaped(tmp_path: Path) -> None:
    run_dir = write_run_dir(tmp_path)
    steps = [{"role": "user", "content": HOSTILE},
             {"tool": "lookup_order", "args": {"q": HOSTILE},
              "result": {"status": "ok", "content": HOSTILE}}]
    lines = [steps_record("refund-01", steps), steps_record("refund-01", steps, trial=1),
             steps_record("chat|02", steps, agent=None)]
    (run_dir / TRANSCRIPTS_FILE).write_text("".join(json.dumps(x) + "\n" for x in lines),
                                            encoding="utf-8")
    rerender(run_dir)
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert page.count('<article class="run"') == 3
    assert "<script>alert" not in page and "\x1b" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_judge_verdicts_are_shown_with_their_reason(tmp_path: Path) -> None:
    judge = engine(FakeClient(lambda request: verdict_json("fail", reason="scripted reason")))
    page = (graded_example(tmp_path, judge) / "report.html").read_text(encoding="utf-8")
    faulted = re.search(r'<li class="step call[^>]*>(?:(?!</li>).)*injected fault'
                        r'(?:(?!</li>).)*</li>', page, re.S)
    assert faulted is not None  # a faulted call carries its recovery-quality verdict
    assert "judge recovery_quality</span> <b>fail</b> scripted reason" in faulted.group(0)
    run_level = re.findall(r'-run">(.*?)</div>\s*<ol class="steps">', page, re.S)
    assert any("judge argument_equivalence</span> <b>fail</b> scripted reason" in block
               for block in run_level)


def test_above_the_limit_the_page_states_its_cut(tmp_path: Path) -> None:
    records, lines = [], []
    for i in range(1500):
        failed = i % 3 == 0
        selection = check(passed=not failed, failures=[failure("extra_tool", 0)] if failed
                          else [])
        records.append(record(f"case-{i % 40}", trial=i // 40, passed=not failed,
                              selection=selection))
        lines.append(steps_record(f"case-{i % 40}", [{"tool": "t", "args": {}}], trial=i // 40))
    summary = {**small_summary(), "cases": 40, "trajectories": 1500}
    run_dir = write_run_dir(tmp_path, records, summary)
    (run_dir / TRANSCRIPTS_FILE).write_text("".join(json.dumps(x) + "\n" for x in lines),
                                            encoding="utf-8")
    rerender(run_dir)
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert ("1,500 runs, more than 600: showing 120 of 500 failing runs (the worst first, at "
            "most 3 per case and 500 in all, and every run a failure example links to) and 40 "
            "of 1,000 passing runs (the first passing run of each case, at most 50).") in page
    assert "1,340 of 1,500 runs have no view on this page. `toolgrade view DIR`" in page
    assert page.count('<article class="run"') == 160


def test_a_route_a_person_accepted_is_shown_as_decided_not_as_listed(tmp_path: Path) -> None:
    # A selection that passes only because a person accepted the route has no judge verdict
    # to show: without its own line the run would read as a plain pass on a listed route.
    accepted = check(adjudicated="pass", adjudicated_by="human",
                     adjudication_reason="tracking answers a parcel question",
                     adjudicated_route=["track_shipment"], unadjudicated={"passed": False})
    run_dir = write_run_dir(tmp_path, [record("parcel-01", selection=accepted)],
                            {**small_summary(), "cases": 1, "trajectories": 1})
    steps = [{"tool": "track_shipment", "args": {"order_id": "C310"},
              "result": {"status": "ok", "content": "out for delivery"}}]
    (run_dir / TRANSCRIPTS_FILE).write_text(json.dumps(steps_record("parcel-01", steps)) + "\n",
                                            encoding="utf-8")
    rerender(run_dir)
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    run_level = re.search(r'-run">(.*?)</div>\s*<ol class="steps">', page, re.S)
    assert run_level is not None
    assert ("decided selection</span> <b>adjudicated pass</b> route track_shipment: decided "
            "pass by a person: tracking answers a parcel question") in run_level.group(1)


def test_past_the_byte_budget_the_worst_runs_stay_and_the_page_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolgrade.reporting import runs_section

    monkeypatch.setattr(runs_section, "BYTE_BUDGET", 30_000)
    records, lines = [], []
    for i in range(700):
        failed = i % 2 == 0
        selection = check(passed=not failed, score=(i % 7) / 7 if failed else 1.0,
                          failures=[failure("extra_tool", 0)] if failed else [])
        line = record(f"case-{i % 200}", trial=i // 200, passed=not failed, selection=selection)
        line["aggregate"]["score"] = selection["score"]
        records.append(line)
        lines.append(steps_record(f"case-{i % 200}", [{"tool": "t", "args": {"q": "x" * 300}}],
                                  trial=i // 200))
    run_dir = write_run_dir(tmp_path, records, {**small_summary(), "cases": 200,
                                                "trajectories": 700})
    (run_dir / TRANSCRIPTS_FILE).write_text("".join(json.dumps(x) + "\n" for x in lines),
                                            encoding="utf-8")
    rerender(run_dir)
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    shown = page.count('<article class="run"')
    assert 3 < shown < 20
    said = re.search(r"([\d,]+) of 700 runs have no view on this page \(([\d,]+) of them past "
                     r"the budget of 0.03 MB of run views\)\. `toolgrade view DIR`", page)
    assert said is not None and int(said.group(1).replace(",", "")) == 700 - shown
    assert f'<a class="runs-link" href="#runs">runs ({shown} of 700 shown)</a>' in page
    # The failure examples' runs (the first 20 failing ones) come first, then the worst.
    linked = [f"case-{i}" for i in range(0, 40, 2)]
    ids = re.findall(r'<article class="run" id="[^"]+" data-run="[^"]+">\s*<h3><code>([^<]+)',
                     page)
    assert ids and set(ids) <= set(linked)
