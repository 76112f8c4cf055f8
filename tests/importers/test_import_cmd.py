"""`toolgrade import bfcl|tau-bench|tau2`: prints a summary, exit 2 with file:line on bad input."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders_importers import (
    BFCL_ANSWERS,
    BFCL_QUESTIONS,
    BFCL_RESULTS,
    TAU_RUNS,
    TAU_TASKS,
    tau2_results,
)
from toolgrade.cli.import_cmd import import_app

RUNNER = CliRunner()


def test_bfcl_command_writes_suite_and_runs(tmp_path: Path) -> None:
    result = RUNNER.invoke(import_app, ["bfcl", str(BFCL_QUESTIONS), str(BFCL_ANSWERS),
                                        "--results", str(BFCL_RESULTS), "--lenient",
                                        "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "wrote 7 cases" in result.output
    assert "wrote 9 runs" in result.output
    assert "2 results could not be fully decoded" in result.output
    assert "decoded" not in result.output.replace("fully decoded", "")
    assert (tmp_path / "suite.jsonl").is_file() and (tmp_path / "runs.jsonl").is_file()


def test_bfcl_command_decodes_as_the_named_models_handler(tmp_path: Path) -> None:
    result = RUNNER.invoke(import_app, ["bfcl", str(BFCL_QUESTIONS), str(BFCL_ANSWERS),
                                        "--results", str(BFCL_RESULTS), "--model",
                                        "gpt-4-0613", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert ("decoded as BFCL's handler for 'gpt-4-0613' decodes them (family 'openai_prompt'"
            in result.output)
    # gpt-4-0613's handler fails the fenced call list BFCL's decoder cannot parse
    runs = [json.loads(line) for line in (tmp_path / "runs.jsonl").read_text().splitlines()]
    fenced = next(r for r in runs if r["case_id"] == "simple_python_2")
    assert fenced["steps"][0]["tool"] == "(unparsed)"


def test_tau_bench_command(tmp_path: Path) -> None:
    result = RUNNER.invoke(import_app, ["tau-bench", str(TAU_TASKS), "--trajectories",
                                        str(TAU_RUNS), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "wrote 4 cases" in result.output and "wrote 3 runs" in result.output


def test_tau2_command(tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    results.write_text(json.dumps(tau2_results()))
    result = RUNNER.invoke(import_app, ["tau2", str(results), "--agent", "me",
                                        "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    assert "wrote 3 cases" in result.output and "wrote 3 runs" in result.output
    assert '"agent": "me"' in (tmp_path / "o" / "runs.jsonl").read_text()
    results.write_text('{"tasks": [1]}')
    result = RUNNER.invoke(import_app, ["tau2", str(results), "--out", str(tmp_path / "p")])
    assert result.exit_code == 2 and "simulations: must be a list" in result.output


def test_bad_input_exits_2_with_location(tmp_path: Path) -> None:
    bad = tmp_path / "q.json"
    bad.write_text("[oops\n")
    result = RUNNER.invoke(import_app, ["bfcl", str(bad), str(BFCL_ANSWERS),
                                        "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert f"{bad}:1: malformed JSON" in result.output


def test_missing_file_exits_2(tmp_path: Path) -> None:
    result = RUNNER.invoke(import_app, ["tau-bench", str(tmp_path / "nope.json"),
                                        "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert "no such file" in result.output


def _bfcl_questions(path: Path) -> list[str]:
    return ["bfcl", str(path)]


def _tau_tasks(path: Path) -> list[str]:
    return ["tau-bench", str(path)]


def _bfcl_results(path: Path) -> list[str]:
    return ["bfcl", str(BFCL_QUESTIONS), str(BFCL_ANSWERS), "--results", str(path)]


def _bfcl_answers(path: Path) -> list[str]:
    return ["bfcl", str(BFCL_QUESTIONS), str(path)]


def _tau_trajectories(path: Path) -> list[str]:
    return ["tau-bench", str(TAU_TASKS), "--trajectories", str(path)]


#: (command line naming the file, what it holds, an empty text): each must be refused, once;
#: a blank file counts as empty, not as bad JSON.
EMPTY_INPUTS = [
    (argv, what, text)
    for argv, what, texts in (
        (_bfcl_questions, "questions", ["\n"]),
        (_tau_tasks, "tasks", ["[]", "\n  \n"]),
        (_bfcl_results, "results", ["", " \n\t\n"]),
        (_bfcl_answers, "answers", ["", " \n\t\n"]),
        (_tau_trajectories, "trajectories", ["", " \n\t\n", "[]", "[\n]\n"]),
    )
    for text in texts
]


@pytest.mark.parametrize(("argv", "what", "text"), EMPTY_INPUTS)
def test_an_empty_input_file_exits_2_naming_it_once(
    tmp_path: Path, argv: Callable[[Path], list[str]], what: str, text: str
) -> None:
    empty = tmp_path / f"{what}.json"
    empty.write_text(text)
    result = RUNNER.invoke(import_app, [*argv(empty), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert f"{empty}: nothing to import: the file holds no records (no {what})" in result.output
    # One problem naming the file, not one per question ("no possible answer"), no import.
    assert result.output.count("nothing to import") == 1
    assert "no possible answer" not in result.output
    assert not (tmp_path / "o").exists()


def test_unknown_tau_bench_domain_infers_writes_and_says_so(tmp_path: Path) -> None:
    tasks = tmp_path / "bank.json"
    tasks.write_text(json.dumps([{"instruction": "Move 20 to savings", "actions": [
        {"name": "get_balance", "kwargs": {"account": "A-1"}},
        {"name": "transfer_funds", "kwargs": {"source": "A-1", "amount": 20}}]}]))
    for extra in ([], ["--domain", "banking"]):
        out = tmp_path / f"o{len(extra)}"
        result = RUNNER.invoke(import_app, ["tau-bench", str(tasks), *extra, "--out", str(out)])
        assert result.exit_code == 0, result.output
        assert "writes inferred from tool names" in result.output
        assert "graded as writes (the route): transfer_funds" in result.output
        assert "free reads (not graded): get_balance" in result.output
        assert (out / "suite.jsonl").exists()
    assert "domain: unknown (no known domain's tools in the data" in RUNNER.invoke(
        import_app, ["tau-bench", str(tasks), "--out", str(tmp_path / "o9")]).output


def test_tau_bench_domain_the_data_contradicts_exits_2_naming_the_tools(tmp_path: Path) -> None:
    for domain in ("airline", "banking"):
        result = RUNNER.invoke(import_app, ["tau-bench", str(TAU_TASKS), "--domain", domain,
                                            "--out", str(tmp_path / "o")])
        assert result.exit_code == 2, result.output
        assert f"--domain {domain} contradicts the data" in result.output
        assert "cancel_pending_order" in result.output and "(they are retail's)" in result.output
        assert not (tmp_path / "o").exists()


def test_tau_bench_summary_says_what_is_graded_and_what_is_free(tmp_path: Path) -> None:
    result = RUNNER.invoke(import_app, ["tau-bench", str(TAU_TASKS), "--trajectories",
                                        str(TAU_RUNS), "--out", str(tmp_path)])
    assert "domain: retail (inferred from the tool names; its known write list)" in (
        result.output)
    writes = next(line for line in result.output.splitlines() if line.startswith("graded as"))
    reads = next(line for line in result.output.splitlines() if line.startswith("free reads"))
    assert "cancel_pending_order" in writes and "get_product_details" not in writes
    assert "get_product_details" in reads


def test_bfcl_command_refuses_model_with_lenient(tmp_path: Path) -> None:
    result = RUNNER.invoke(import_app, ["bfcl", str(BFCL_QUESTIONS), str(BFCL_ANSWERS),
                                        "--results", str(BFCL_RESULTS), "--model", "gpt-4-0613",
                                        "--lenient", "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert "--model and --lenient contradict each other" in result.output
    assert not (tmp_path / "o").exists()
