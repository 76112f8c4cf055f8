"""The adjudications file: where it lives beside a suite, how it is read, and that folders of
suites and runs never mistake it for cases or runs."""

from __future__ import annotations

import json
from pathlib import Path

from builders_foundation import SIMPLE_CASE, steps_run, write_jsonl, write_yaml_suite
from toolgrade.loaders import load_suite, run_files
from toolgrade.loaders.adjudications import (
    adjudications_path,
    append_decisions,
    load_decisions,
)
from toolgrade.models import RouteDecision


def test_it_lives_beside_a_suite_file_and_inside_a_suite_folder(tmp_path: Path) -> None:
    suite = write_yaml_suite(tmp_path, SIMPLE_CASE)
    assert adjudications_path(suite) == tmp_path / "suite.adjudications.jsonl"
    assert adjudications_path(tmp_path) == tmp_path / "adjudications.jsonl"


def test_appended_decisions_read_back_latest_first(tmp_path: Path) -> None:
    path = tmp_path / "suite.adjudications.jsonl"
    first = RouteDecision(case_id="c1", route=["b", "a"], decision="accept", by="ana")
    later = RouteDecision(case_id="c1", route=["a", "b"], decision="reject", reason="no")
    assert append_decisions(path, [first]) == 1
    append_decisions(path, [later])
    assert len(path.read_text().splitlines()) == 2  # history kept
    decisions, problems = load_decisions(path, ["c1"])
    found = decisions.get("c1", ["a", "b"])
    assert problems == [] and found is not None and found.decision == "reject"


def test_a_missing_file_is_no_decisions(tmp_path: Path) -> None:
    decisions, problems = load_decisions(tmp_path / "none.jsonl")
    assert len(decisions) == 0 and problems == []


def test_bad_lines_are_problems_and_good_lines_are_kept(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "suite.adjudications.jsonl", [
        "not json",
        {"case_id": "c1", "route": ["a"], "decision": "accept", "extra": 1},
        {"case_id": "c1", "route": ["a"], "decision": "accept"},
    ])
    decisions, problems = load_decisions(path, ["c1"])
    assert [p.line for p in problems] == [1, 2]
    assert problems[1].field == "extra" and problems[1].reason == "unknown key"
    assert len(decisions) == 1


def test_suite_and_run_folders_skip_adjudications_files(tmp_path: Path) -> None:
    write_yaml_suite(tmp_path, SIMPLE_CASE)
    (tmp_path / "suite.adjudications.jsonl").write_text(json.dumps(
        {"case_id": "c1", "route": ["refund"], "decision": "accept"}) + "\n")
    (tmp_path / "adjudications.jsonl").write_text("")
    assert list(load_suite(tmp_path).cases) == ["c1"]
    runs = write_jsonl(tmp_path / "runs.jsonl", [steps_run("c1", ("refund", {}))])
    assert run_files([tmp_path]) == [runs]


def test_validate_checks_the_decisions_beside_a_suite(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from toolgrade.cli.main import app

    suite = write_yaml_suite(tmp_path, SIMPLE_CASE)
    (tmp_path / "suite.adjudications.jsonl").write_text(
        '{"case_id": "gone", "route": [], "decision": "accept"}\n')
    result = CliRunner().invoke(app, ["validate", str(suite)])
    assert result.exit_code == 2
    assert "suite.adjudications.jsonl:1: case_id: no case 'gone' in the suite" in result.output
