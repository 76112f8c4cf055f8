"""`toolgrade show`: a golden file, and the same steps and failures as report.html's run views.

The golden file is tests/reporting/golden/show.txt. After an intended change to the view,
regenerate it with

    TOOLGRADE_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/reporting/test_terminal_run.py

and review the diff before committing it.
"""

from __future__ import annotations

import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from rich.console import Console

from builders_reporting import graded_example
from toolgrade.reporting.terminal_run import find_run_views, print_run_view

GOLDEN = Path(__file__).parent / "golden" / "show.txt"
#: Runs with a parallel group, an injected fault, failures off any step, schema failures.
SHOWN = [("bulk-refund-11", "strong-agent", 0), ("refund-outage-02", "strong-agent", 2),
         ("cancel-order-03", "mid-agent", 0), ("kb-router-05", "mid-agent", 0)]

Outline = list[tuple[str, list[str]]]


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return graded_example(tmp_path_factory.mktemp("helpdesk"))


def _text(example: Path, case_id: str, agent: str | None = None,
          trial: int | None = None) -> str:
    console = Console(record=True, width=120, color_system=None, soft_wrap=True)
    for view in find_run_views(example, case_id, agent, trial):
        print_run_view(console, view)
    return console.export_text()


def test_the_terminal_view_matches_the_golden_file(example: Path) -> None:
    text = "\n".join(_text(example, *selector) for selector in SHOWN)
    if os.environ.get("TOOLGRADE_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")


def _terminal_outlines(text: str) -> list[Outline]:
    """Per run: ("run" | "step N", [failure names]) in order, read back from the text."""
    runs: list[Outline] = []
    for line in text.splitlines():
        body = line.removeprefix("  | ")
        if re.match(r"^\S.* · \S+:\d+ · (pass|FAIL|unscored)", line):
            runs.append([])
        elif body == "run" or body.startswith("step "):
            runs[-1].append((body.split("  ")[0], []))
        elif m := re.match(r"^\s+x \S+ (\S+): ", body):
            runs[-1][-1][1].append(m.group(1))
    return runs


class _HtmlOutlines(HTMLParser):
    """Per run article: the run-level block and each step with the failure names pinned."""

    def __init__(self) -> None:
        super().__init__()
        self.runs: list[Outline] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        classes = (values.get("class") or "").split()
        if tag == "article" and "run" in classes:
            self.runs.append([])
        elif "run-level" in classes:
            self.runs[-1].append(("run", []))
        elif tag == "li" and values.get("data-step") is not None:
            self.runs[-1].append((f"step {values['data-step']}", []))
        elif values.get("data-failure") and self.runs:
            self.runs[-1][-1][1].append(str(values["data-failure"]))


def test_the_terminal_and_the_html_show_the_same_steps_and_failures(example: Path) -> None:
    parser = _HtmlOutlines()
    parser.feed((example / "report.html").read_text(encoding="utf-8"))
    html = [[(label, names) for label, names in run if label != "run" or names]
            for run in parser.runs]  # the terminal leaves out an empty run block
    cases = sorted({line.split('"')[3] for line in
                    (example / "results.jsonl").read_text(encoding="utf-8").splitlines()})
    # Both sides leave out a run block with no failure in it (it may hold verdicts only).
    terminal = [[(label, names) for label, names in run if label != "run" or names]
                for case_id in cases for run in _terminal_outlines(_text(example, case_id))]
    assert len(html) == len(terminal) == 90
    by_run = sorted(map(repr, html)), sorted(map(repr, terminal))
    assert by_run[0] == by_run[1]
    assert sum(len(names) for run in html for _, names in run) >= 80  # every failure is pinned
