"""BFCL entries that cannot be read are left out and reported; the rest of the file imports."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from builders_importers import read_lines, write_lines
from toolgrade.cli.import_cmd import import_app
from toolgrade.importers import import_bfcl
from toolgrade.loaders import load_runs, load_suite
from toolgrade.scoring.runner import grade, validate_inputs

HEADWAY = {"name": "get_headway", "parameters": {"type": "dict", "required": ["ego_info"],
           "properties": {"ego_info": {"type": "dict", "properties": {
               "position": {"type": "dict", "properties": {
                   "lateral": {"type": "float"}, "longitudinal": {"type": "float"}}},
               "orientation": {"type": "float"}}}}}}


def _question(qid: str, functions: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": qid, "question": [[{"role": "user", "content": "Go."}]], "function": functions}


def _f() -> dict[str, Any]:
    return {"name": "f", "parameters": {"type": "dict", "properties": {"a": {"type": "integer"}}}}


def _files(tmp_path: Path) -> tuple[Path, Path]:
    questions = write_lines(tmp_path / "q.json", [
        _question("live_multiple_0-0-0", [_f()]),
        _question("live_multiple_1-0-1", [_f()]),
        _question("live_multiple_2-0-2", [HEADWAY]),
        _question("live_multiple_3-0-3", [_f()]),
        _question("live_multiple_0-0-0", [_f()]),
    ])
    answers = write_lines(tmp_path / "a.json", [
        {"id": "live_multiple_0-0-0", "ground_truth": [{"f": {"a": [1]}}]},
        {"id": "live_multiple_1-0-1", "ground_truth": [{"f": {"a": 1}}]},
        {"id": "live_multiple_2-0-2", "ground_truth": [{"get_headway": {"ego_info": [
            {"position": [{"lateral": 10.5, "longitudinal": 50}], "orientation": [30]}]}}]},
        {"id": "live_multiple_3-0-3", "ground_truth": [{"g": {"a": [1]}}]},
    ])
    return questions, answers


def test_entries_that_cannot_be_read_are_left_out_and_counted(tmp_path: Path) -> None:
    questions, answers = _files(tmp_path)
    results = write_lines(tmp_path / "r.json", [
        {"id": "live_multiple_0-0-0", "result": [{"f": "{\"a\": 1}"}]},
        {"id": "live_multiple_1-0-1", "result": [{"f": "{\"a\": 1}"}]},
        {"id": "live_multiple_3-0-3", "result": [{"f": "{\"a\": 1}"}]},
    ])
    summary = import_bfcl(questions, answers, results, tmp_path / "out", lenient=True)
    assert (summary.cases, summary.runs) == (2, 1)
    assert summary.notes == (
        "left out 3 of 5 questions that cannot be read:",
        f"  {answers}:2: ground_truth[0].f.a: acceptable values must be a list, e.g. [1]",
        f"  {answers}:4: ground_truth[0].g: function 'g' is not among the question's "
        "functions (f)",
        f"  {questions}:5: id: 'live_multiple_0-0-0' repeats line 1",
        "2 results of left-out questions were not imported",
    )
    assert all(note in summary.lines() for note in summary.notes)
    suite = load_suite(tmp_path / "out" / "suite.jsonl")
    assert list(suite.cases) == ["live_multiple_0-0-0", "live_multiple_2-0-2"]
    assert len(load_runs([tmp_path / "out" / "runs.jsonl"])) == 1


def test_nested_bare_values_grade_like_bfcl(tmp_path: Path) -> None:
    questions, answers = _files(tmp_path)
    right = {"ego_info": {"position": {"lateral": 10.5, "longitudinal": 50.0},
                          "orientation": 30}}
    wrong = {"ego_info": {"position": {"lateral": 10.5, "longitudinal": 5}, "orientation": 30}}
    results = write_lines(tmp_path / "r.json", [
        {"id": "live_multiple_2-0-2", "result": [{"get_headway": right}]},
        {"id": "live_multiple_2-0-2", "result": [{"get_headway": wrong}]},
    ])
    import_bfcl(questions, answers, results, tmp_path / "out")
    inputs = validate_inputs(tmp_path / "out" / "suite.jsonl", [tmp_path / "out" / "runs.jsonl"])
    graded = read_lines(grade(inputs, tmp_path / "graded").results_path)
    assert [r["aggregate"]["passed"] for r in graded] == [True, False]


def test_cli_reports_left_out_entries_and_exits_0(tmp_path: Path) -> None:
    questions, answers = _files(tmp_path)
    result = CliRunner().invoke(import_app, ["bfcl", str(questions), str(answers),
                                             "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    assert "left out 3 of 5 questions that cannot be read:" in result.output
    assert f"{answers}:2: ground_truth[0].f.a:" in result.output
    assert "wrote 2 cases" in result.output


def test_a_case_the_suite_loader_would_refuse_is_left_out(tmp_path: Path) -> None:
    bad = {"name": "f", "parameters": {"type": "dict", "properties": {
        "a": {"type": "integer", "minimum": "zero"}}}}
    questions = write_lines(tmp_path / "q.json", [_question("simple_python_0", [_f()]),
                                                  _question("simple_python_1", [bad])])
    answers = write_lines(tmp_path / "a.json", [
        {"id": "simple_python_0", "ground_truth": [{"f": {"a": [1]}}]},
        {"id": "simple_python_1", "ground_truth": [{"f": {"a": [1]}}]}])
    summary = import_bfcl(questions, answers, None, tmp_path / "out")
    assert summary.cases == 1
    assert summary.notes[1].startswith(f"  {questions}:2: tools.f.parameters: the suite loader "
                                       "would refuse it: not a valid JSON Schema")
    assert list(load_suite(tmp_path / "out" / "suite.jsonl").cases) == ["simple_python_0"]
