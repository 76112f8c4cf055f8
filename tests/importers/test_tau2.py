"""tau2 import: the agent's reference actions are the route, the user's calls stay context."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from builders_importers import by_id, read_lines, tau2_results
from toolgrade.errors import InputError
from toolgrade.importers import import_tau2
from toolgrade.importers.tau2 import NOT_COMPARED
from toolgrade.loaders import load_runs, load_suite
from toolgrade.models import Message
from toolgrade.scoring.runner import grade, validate_inputs


def _write(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(json.dumps(data, indent=1))
    return path


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tau2")
    import_tau2(_write(folder / "results.json", tau2_results()), folder / "out")
    return folder / "out"


def test_summary_counts_and_notes(tmp_path: Path) -> None:
    summary = import_tau2(_write(tmp_path / "r.json", tau2_results()), tmp_path / "out")
    assert (summary.cases, summary.runs, summary.calls) == (3, 3, 6)
    assert summary.rewards == {"[data]roaming#0": 1.0, "[bill]payment#0": 1.0,
                               "[misc]nothing#0": 0.0}
    text = "\n".join(summary.lines())
    assert "1 tool calls of the simulated user kept as user messages" in text
    assert "write tools (telecom): enable_roaming, send_payment_request, " \
           "transfer_to_human_agents" in text


def test_agent_actions_are_the_route_and_reads_are_free(imported: Path) -> None:
    cases = by_id(read_lines(imported / "suite.jsonl"))
    roaming = cases["[data]roaming"]
    assert roaming["expected"]["selection"] == {
        "tools": ["enable_roaming"], "allow_reads": True, "allow_failed": True}
    assert roaming["expected"]["arguments"] == [
        {"tool": "enable_roaming", "args": {"customer_id": "C1", "line_id": "L2"}}]
    assert roaming["metadata"]["user_actions"] == [{"name": "toggle_roaming", "arguments": {}}]
    assert roaming["tools"]["enable_roaming"]["side_effect"] is True
    assert roaming["tools"]["get_customer_by_phone"] == {"parameters": {"type": "object"}}
    assert "toggle_roaming" not in roaming["tools"]  # the user's tool, not the agent's
    assert cases["[misc]nothing"]["expected"] == {
        "selection": {"tools": [], "allow_reads": True, "allow_failed": True},
        "state": [{"path": "episode.ended_normally", "equals": True}]}


def test_compare_args_keeps_only_those_keys_compared(imported: Path) -> None:
    payment = by_id(read_lines(imported / "suite.jsonl"))["[bill]payment"]
    request, transfer = payment["expected"]["arguments"]
    assert request["args"] == {"customer_id": "C1", "bill_id": "B9", "amount": NOT_COMPARED}
    assert transfer["args"] == {"summary": NOT_COMPARED}


def test_user_calls_are_context_never_agent_calls(imported: Path) -> None:
    runs = load_runs([imported / "runs.jsonl"])
    roaming = runs[0]
    assert roaming.agent == "gpt-test"
    assert roaming.tool_names == ["get_customer_by_phone", "enable_roaming", "get_details_by_id"]
    said = [s.content for s in roaming.steps if isinstance(s, Message) and s.role == "user"]
    assert any("toggle_roaming" in str(c) and "Roaming is now ON" in str(c) for c in said)
    calls = dict((c.tool, c) for _, c in roaming.calls)
    assert calls["get_details_by_id"].failed  # tau2's error flag
    assert calls["enable_roaming"].group == calls["get_details_by_id"].group is not None


def test_tau2_verdicts_kept_in_run_metadata(imported: Path) -> None:
    row = read_lines(imported / "runs.jsonl")[1]
    assert row["metadata"]["reward"] == 1.0
    assert [(c["action_id"], c["action_match"]) for c in row["metadata"]["action_checks"]] == [
        ("pay_0", True), ("transfer_1", True)]


def test_imported_runs_grade_like_tau2(imported: Path, tmp_path: Path) -> None:
    inputs = validate_inputs(imported / "suite.jsonl", [imported / "runs.jsonl"])
    grade(inputs, tmp_path, judge=None)
    results = {r["case_id"]: r for r in read_lines(tmp_path / "results.jsonl")}
    for case_id in ("[data]roaming", "[bill]payment", "[misc]nothing"):
        assert results[case_id]["checks"]["selection"]["passed"] is True, case_id
    # amount and summary are not compared (compare_args), as tau2 does not compare them
    assert results["[bill]payment"]["checks"]["arguments"]["passed"] is True
    assert results["[data]roaming"]["checks"]["selection"]["free_calls"] == 2


def test_malformed_results_are_located(tmp_path: Path) -> None:
    data = tau2_results()
    data["tasks"][1]["evaluation_criteria"]["actions"][0]["compare_args"] = "amount"
    data["simulations"][2]["task_id"] = "[misc]other"
    path = _write(tmp_path / "r.json", data)
    with pytest.raises(InputError) as err:
        import_tau2(path, tmp_path / "out")
    problems = [f"{p.field}: {p.reason}" for p in err.value.problems]
    assert problems[0].startswith("evaluation_criteria.actions[0]: expected {name: str")
    assert not (tmp_path / "out").exists()
    data["tasks"][1]["evaluation_criteria"]["actions"][0]["compare_args"] = None
    with pytest.raises(InputError) as err:
        import_tau2(_write(path, data), tmp_path / "out")
    (problem,) = err.value.problems
    assert problem.field == "task_id"
    assert "'[misc]other' is not a task of the file" in problem.reason
    assert problem.line is not None and problem.line > 1


def test_a_file_that_is_not_a_results_object_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text("[]")
    with pytest.raises(InputError, match="expected a JSON object at the top level"):
        import_tau2(path, tmp_path / "out")
    path.write_text(json.dumps({"tasks": [], "simulations": []}))
    with pytest.raises(InputError, match="nothing to import"):
        import_tau2(path, tmp_path / "out")


def test_cases_load_with_the_run_loader(imported: Path) -> None:
    assert len(load_suite(imported / "suite.jsonl")) == 3
