"""`toolgrade import bfcl|tau-bench`: prints a summary, exit 2 with file:line on bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders_importers import BFCL_ANSWERS, BFCL_QUESTIONS, BFCL_RESULTS, TAU_RUNS, TAU_TASKS
from toolgrade.cli.import_cmd import import_app

RUNNER = CliRunner()


def test_bfcl_command_writes_suite_and_runs(tmp_path: Path) -> None:
    result = RUNNER.invoke(import_app, ["bfcl", str(BFCL_QUESTIONS), str(BFCL_ANSWERS),
                                        "--results", str(BFCL_RESULTS), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "wrote 7 cases" in result.output
    assert "wrote 9 runs" in result.output
    assert "2 results could not be fully decoded" in result.output
    assert (tmp_path / "suite.jsonl").is_file() and (tmp_path / "runs.jsonl").is_file()


def test_tau_bench_command(tmp_path: Path) -> None:
    result = RUNNER.invoke(import_app, ["tau-bench", str(TAU_TASKS), "--trajectories",
                                        str(TAU_RUNS), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "wrote 4 cases" in result.output and "wrote 3 runs" in result.output


def test_bad_input_exits_2_with_location(tmp_path: Path) -> None:
    bad = tmp_path / "q.json"
    bad.write_text("[oops\n")
    result = RUNNER.invoke(import_app, ["bfcl", str(bad), str(BFCL_ANSWERS),
                                        "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert f"{bad}:1: not valid JSON" in result.output


def test_missing_file_exits_2(tmp_path: Path) -> None:
    result = RUNNER.invoke(import_app, ["tau-bench", str(tmp_path / "nope.json"),
                                        "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert "no such file" in result.output


def test_empty_input_exits_2_naming_the_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text("\n")
    result = RUNNER.invoke(import_app, ["bfcl", str(empty), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert f"{empty}: nothing to import" in result.output
    tasks = tmp_path / "tasks.json"
    tasks.write_text("[]")
    result = RUNNER.invoke(import_app, ["tau-bench", str(tasks), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert f"{tasks}: nothing to import" in result.output
    assert not (tmp_path / "o").exists()



@pytest.mark.parametrize("text", ["", " \n\t\n"])
def test_an_empty_results_file_given_explicitly_exits_2_naming_it(
    tmp_path: Path, text: str
) -> None:
    empty = tmp_path / "results.json"
    empty.write_text(text)
    result = RUNNER.invoke(import_app, ["bfcl", str(BFCL_QUESTIONS), str(BFCL_ANSWERS),
                                        "--results", str(empty), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert f"{empty}: nothing to import: the file holds no records (no results)" in result.output
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("text", ["", " \n\t\n"])
def test_an_empty_answers_file_exits_2_naming_it_once(tmp_path: Path, text: str) -> None:
    empty = tmp_path / "answers.json"
    empty.write_text(text)
    result = RUNNER.invoke(import_app, ["bfcl", str(BFCL_QUESTIONS), str(empty),
                                        "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert f"{empty}: nothing to import: the file holds no records (no answers)" in result.output
    assert "no possible answer" not in result.output  # not one problem per question
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("text", ["", " \n\t\n", "[]", "[\n]\n"])
def test_an_empty_trajectories_file_given_explicitly_exits_2_naming_it(
    tmp_path: Path, text: str
) -> None:
    empty = tmp_path / "runs.json"
    empty.write_text(text)
    result = RUNNER.invoke(import_app, ["tau-bench", str(TAU_TASKS), "--trajectories",
                                        str(empty), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    message = f"{empty}: nothing to import: the file holds no records (no trajectories)"
    assert message in result.output
    assert not (tmp_path / "o").exists()


def test_a_blank_tasks_file_is_refused_as_empty_not_as_bad_json(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.json"
    tasks.write_text("\n  \n")
    result = RUNNER.invoke(import_app, ["tau-bench", str(tasks), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert f"{tasks}: nothing to import: the file holds no records (no tasks)" in result.output

def test_unknown_tau_bench_domain_exits_2_naming_the_known_ones(tmp_path: Path) -> None:
    result = RUNNER.invoke(import_app, ["tau-bench", str(TAU_TASKS), "--domain", "banking",
                                        "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert "--domain: unknown tau-bench domain 'banking' (known: airline, retail)" in result.output
    assert not (tmp_path / "o").exists()
