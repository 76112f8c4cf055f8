"""Imported benchmark data graded end to end by the runner, with BFCL's verdicts as the oracle."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from builders_importers import (
    BFCL_ANSWERS,
    BFCL_QUESTIONS,
    BFCL_RESULTS,
    TAU_RUNS,
    TAU_TASKS,
    read_lines,
)
from toolgrade.importers import import_bfcl, import_tau_bench
from toolgrade.scoring.runner import grade, validate_inputs


def _graded(out: Path) -> dict[tuple[str, int], dict[str, Any]]:
    inputs = validate_inputs(out / "suite.jsonl", [out / "runs.jsonl"])
    output = grade(inputs, out / "results")
    return {(r["case_id"], r["trial"]): r for r in read_lines(output.results_path)}


def _failures(record: dict[str, Any], check: str) -> list[str]:
    return [f["name"] for f in record["checks"][check]["failures"]]


@pytest.fixture(scope="module")
def bfcl(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int], dict[str, Any]]:
    out = tmp_path_factory.mktemp("bfcl-e2e")
    import_bfcl(BFCL_QUESTIONS, BFCL_ANSWERS, BFCL_RESULTS, out, lenient=True)
    return _graded(out)


# What BFCL's AST checker says about each hand-written result in tests/importers/data.
BFCL_VERDICTS = {
    ("simple_python_0", 0): True,   # 'Units' vs 'units': string leniency
    ("simple_python_1", 0): True,   # math_factorial mapped back to math.factorial
    ("simple_python_2", 0): True,   # list of dicts in order, tuple read as list
    ("multiple_0", 0): True,        # ints accepted for float fields of a nested dict
    ("parallel_0", 0): True,        # parallel calls in another order, lower-case artist
    ("parallel_multiple_0", 0): False,  # positional arguments
    ("irrelevance_0", 0): True,     # answered in text, no call
    ("simple_python_1", 1): False,  # text instead of a call
    ("parallel_0", 1): False,       # no call at all
}


def test_toolgrade_pass_fail_agrees_with_bfcl(
        bfcl: dict[tuple[str, int], dict[str, Any]]) -> None:
    verdicts = {key: record["aggregate"]["passed"] for key, record in bfcl.items()}
    assert verdicts == BFCL_VERDICTS


def test_failures_name_what_went_wrong(bfcl: dict[tuple[str, int], dict[str, Any]]) -> None:
    assert "unparseable_arguments" in _failures(bfcl[("parallel_multiple_0", 0)], "arguments")
    assert bfcl[("parallel_multiple_0", 0)]["checks"]["selection"]["passed"] is True
    assert "unparseable_call" in _failures(bfcl[("simple_python_1", 1)], "arguments")
    assert _failures(bfcl[("parallel_0", 1)], "selection") == ["missing_tool", "missing_tool"]
    assert bfcl[("irrelevance_0", 0)]["checks"]["arguments"]["applicable"] is False


def test_wrong_value_and_extra_call_fail_like_bfcl(tmp_path: Path) -> None:
    results = tmp_path / "r.json"
    results.write_text("\n".join(json.dumps(r) for r in [
        {"id": "simple_python_0", "result": "[calculate_triangle_area(base=10, height=6)]"},
        {"id": "irrelevance_0", "result": [{"determine_body_mass_index":
                                            "{\"weight\": 70, \"height\": 1.8}"}]},
        {"id": "simple_python_1", "result": "[math.factorial(number=5, precise=True)]"},
    ]) + "\n")
    import_bfcl(BFCL_QUESTIONS, BFCL_ANSWERS, results, tmp_path / "out")
    graded = _graded(tmp_path / "out")
    assert "wrong_value" in _failures(graded[("simple_python_0", 0)], "arguments")
    assert "unexpected_tool_use" in _failures(graded[("irrelevance_0", 0)], "selection")
    assert "hallucinated_param" in _failures(graded[("simple_python_1", 0)], "arguments")
    assert not any(r["aggregate"]["passed"] for r in graded.values())


def test_string_enum_value_in_another_case_passes_as_in_bfcl(tmp_path: Path) -> None:
    # BFCL never checks a string enum and compares strings after its standardisation, so
    # 'USERS' for enum value 'users' passes there; the import grades what BFCL grades.
    results = tmp_path / "r.json"
    results.write_text(json.dumps({"id": "simple_python_2", "result": (
        "[db.filter(table='USERS', conditions=[{'field': 'age', 'operation': '>', "
        "'value': '25'}, {'field': 'job', 'operation': '=', 'value': 'engineer'}])]")}) + "\n")
    import_bfcl(BFCL_QUESTIONS, BFCL_ANSWERS, results, tmp_path / "out")
    record = _graded(tmp_path / "out")[("simple_python_2", 0)]
    assert _failures(record, "arguments") == []
    assert record["aggregate"]["passed"] is True


def test_tau_bench_runs_grade(tmp_path: Path) -> None:
    import_tau_bench(TAU_TASKS, TAU_RUNS, tmp_path)
    graded = _graded(tmp_path)
    assert graded[("tau-retail-1", 0)]["aggregate"]["passed"] is True
    # a read the reference does not list is a free call, as tau-bench ignores it
    other_read = graded[("tau-retail-1", 1)]["checks"]["selection"]
    assert other_read["passed"] is True and other_read["free_calls"] == 1
    wrong_reason = graded[("tau-retail-run-0", 0)]
    assert wrong_reason["checks"]["selection"]["passed"] is True
    assert "wrong_value" in _failures(wrong_reason, "arguments")


TAU_AIRLINE_TASKS = TAU_TASKS.parent / "tau_airline_tasks.json"
TAU_AIRLINE_RUNS = TAU_TASKS.parent / "tau_airline_runs.json"


@pytest.mark.parametrize(("tasks", "runs", "domain"), [
    (TAU_AIRLINE_TASKS, TAU_AIRLINE_RUNS, "airline"), (TAU_TASKS, TAU_RUNS, "retail")])
def test_tau_bench_without_domain_grades_what_the_reward_looks_at(
        tmp_path: Path, tasks: Path, runs: Path, domain: str) -> None:
    # No --domain: inferred from the tools, so airline writes are the route, not free reads.
    import_tau_bench(tasks, runs, tmp_path)
    cases = {c["id"]: c for c in read_lines(tmp_path / "suite.jsonl")}
    assert all(c["metadata"]["domain"] == domain for c in cases.values())
    graded = _graded(tmp_path)
    rewards = {(r["case_id"], r["trial"]): r["metadata"]["reward"]
               for r in read_lines(tmp_path / "runs.jsonl")}
    assert {k: bool(g["aggregate"]["passed"]) for k, g in graded.items()} == {
        k: r == 1.0 for k, r in rewards.items()}


def test_tau_bench_airline_failures_name_what_went_wrong(tmp_path: Path) -> None:
    import_tau_bench(TAU_AIRLINE_TASKS, TAU_AIRLINE_RUNS, tmp_path)
    graded = _graded(tmp_path)
    assert _failures(graded[("tau-airline-0", 2)], "selection") == ["missing_tool"]
    assert _failures(graded[("tau-airline-1", 0)], "arguments") == ["wrong_value"]
    assert _failures(graded[("tau-airline-2", 1)], "recovery") == ["missing_mention"]
    # Skipped and extra reads are free: neither missing nor extra.
    assert graded[("tau-airline-0", 1)]["checks"]["selection"]["passed"] is True
    assert graded[("tau-airline-0", 0)]["checks"]["selection"]["passed"] is True
