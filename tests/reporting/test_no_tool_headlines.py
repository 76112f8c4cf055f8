"""A suite where no tool is right (BFCL irrelevance): the reports say "no tool expected" and
show no selection precision or F1, which are 0 or 1 by convention there, not findings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from builders_foundation import steps_run, write_jsonl, write_yaml_suite
from builders_reporting import as_summary
from toolgrade.cli.main import app
from toolgrade.reporting.check_tables import per_tool_table
from toolgrade.reporting.tables import cards

runner = CliRunner()

NO_TOOL_SUITE = """
- id: irr-1
  tools: {get_weather: {}}
  expected: {selection: {no_tool: true}}
- id: irr-2
  tools: {get_weather: {}}
  expected: {selection: {no_tool: true}}
- id: irr-3
  tools: {get_weather: {}}
  expected: {selection: {no_tool: true}}
"""


def _answer(case_id: str) -> dict[str, object]:
    return {"case_id": case_id, "steps": [{"role": "assistant", "content": "no tool needed"}]}


@pytest.fixture
def graded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    """The suite graded by `toolgrade run`: its output folder and what it printed."""
    monkeypatch.chdir(tmp_path)  # no toolgrade.toml here
    suite = write_yaml_suite(tmp_path, NO_TOOL_SUITE)
    runs = write_jsonl(tmp_path / "runs.jsonl", [
        _answer("irr-1"), _answer("irr-2"), steps_run("irr-3", ("get_weather", {"city": "X"}))])
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(suite), str(runs), "--out", str(out), "--no-judge"])
    assert result.exit_code == 0, result.output
    return out, result.output


def _summary(out: Path) -> dict[str, Any]:
    summary: dict[str, Any] = json.loads((out / "summary.json").read_text())
    return summary


def test_the_scorecard_says_no_tool_expected(graded: tuple[Path, str]) -> None:
    _, printed = graded
    row = next(line for line in printed.splitlines() if "│ selection" in line)
    assert "no tool expected" in row and "0.667" in row
    assert "F1" not in row and "P " not in row


def test_the_check_card_shows_the_calls_made_not_precision(graded: tuple[Path, str]) -> None:
    out, _ = graded
    card = next(c for c in cards(as_summary(_summary(out))) if c.check == "selection")
    assert card.figures == [("no tool expected", ""), ("calls made", "1")]


def test_report_md_has_no_selection_precision_or_f1(graded: tuple[Path, str]) -> None:
    out, _ = graded
    text = (out / "report.md").read_text()
    assert "| selection | 0.667 | 3 | no tool expected, calls made 1 |" in text
    per_tool = text.split("## Selection per tool", 1)[1].split("\n## ", 1)[0]
    assert "| tool | tp | fp | fn | side-effect extras |" in per_tool
    assert "precision" in per_tool and "do not apply" in per_tool  # said once, in the note
    assert "0.000" not in per_tool


def test_a_suite_expecting_tools_keeps_its_per_tool_rates() -> None:
    summary = {"checks": {"selection": {"applicable": 2, "tp": 1, "fp": 1, "fn": 0, "per_tool": {
        "a": {"tp": 1, "fp": 1, "fn": 0, "precision": 0.5, "recall": 1.0, "f1": 0.667}}}}}
    table = per_tool_table(as_summary(summary))
    assert table is not None and table.columns[4:7] == ["precision", "recall", "f1"]
    assert table.rows[0][4:7] == ["0.500", "1.000", "0.667"] and table.note == ""
