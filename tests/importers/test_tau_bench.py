"""tau-bench import: tasks become cases, recorded trajectories become OpenAI-message runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from builders_importers import TAU_RUNS, TAU_TASKS, by_id, read_lines
from toolgrade.checks.base import GradeContext
from toolgrade.checks.ordering import OrderingCheck
from toolgrade.errors import InputError
from toolgrade.importers import import_tau_bench
from toolgrade.importers.tau_bench import write_order
from toolgrade.importers.tau_domains import WRITE_TOOLS
from toolgrade.loaders import load_runs, load_suite
from toolgrade.models import Case, Expected, OrderingExpectation, ToolCall, Trajectory


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tau")
    import_tau_bench(TAU_TASKS, TAU_RUNS, out, agent="gpt-x")
    return out


@pytest.fixture(scope="module")
def cases(imported: Path) -> dict[str, dict[str, Any]]:
    return by_id(read_lines(imported / "suite.jsonl"))


def test_summary(tmp_path: Path) -> None:
    summary = import_tau_bench(TAU_TASKS, TAU_RUNS, tmp_path)
    assert (summary.cases, summary.runs, summary.calls) == (4, 3, 3)
    assert summary.rewards == {"tau-retail-1#0": 1.0, "tau-retail-1#1": 0.0,
                               "tau-retail-run-0#0": 0.0}
    assert summary.missing_runs == 2  # tasks 0 and 2 have no run
    text = "\n".join(summary.lines())
    assert "mean reward over 3 runs: 0.333" in text
    assert "imported as extra cases" in text


def test_cases_validate_and_load(imported: Path) -> None:
    rows = read_lines(imported / "suite.jsonl")
    assert [Case.model_validate(r).id for r in rows] == [
        "tau-retail-0", "tau-retail-1", "tau-retail-2", "tau-retail-run-0"]
    assert len(load_suite(imported / "suite.jsonl")) == 4


def test_write_actions_become_the_route_with_reads_free(
        cases: dict[str, dict[str, Any]]) -> None:
    expected = cases["tau-retail-0"]["expected"]
    assert expected["selection"] == {
        "tools": ["modify_pending_order_address", "cancel_pending_order"],
        "allow_reads": True, "allow_failed": True}
    assert [a["tool"] for a in expected["arguments"]] == [
        "modify_pending_order_address", "cancel_pending_order"]
    assert expected["arguments"][1] == {
        "tool": "cancel_pending_order",
        "args": {"order_id": "#W200", "reason": "no longer needed"}}
    assert expected["ordering"] == {
        "before": [["modify_pending_order_address", "cancel_pending_order"]]}
    assert cases["tau-retail-0"]["metadata"]["reference_reads"] == ["find_user_id_by_name_zip"]


def test_write_order_keeps_only_consecutive_distinct_writes() -> None:
    names = ["get_order_details", "cancel_pending_order", "get_user_details",
             "modify_user_address", "cancel_pending_order"]
    pairs = write_order([{"name": n} for n in names], WRITE_TOOLS["retail"])
    # [modify_user_address, cancel_pending_order] would need every cancel after a modify: the
    # reference's own first cancel breaks it, so it is left out
    assert pairs == [["cancel_pending_order", "modify_user_address"]]


@given(st.lists(st.sampled_from(["cancel_pending_order", "modify_user_address",
                                 "modify_pending_order_items", "get_order_details"]),
                max_size=8))
def test_the_reference_always_satisfies_its_own_write_order(names: list[str]) -> None:
    pairs = write_order([{"name": n} for n in names], WRITE_TOOLS["retail"])
    case = Case(id="c", expected=Expected(ordering=OrderingExpectation(
        before=[(a, b) for a, b in pairs])))
    steps = [ToolCall(tool=n, args={"i": i}) for i, n in enumerate(names)]
    run = Trajectory(case_id="c", steps=list(steps))
    result = OrderingCheck().grade(case, run, GradeContext())
    assert result.passed is True


def test_catalogue_marks_write_tools_and_types_observed_kwargs(
        cases: dict[str, dict[str, Any]]) -> None:
    tools = cases["tau-retail-1"]["tools"]
    assert tools["cancel_pending_order"]["side_effect"] is True
    assert tools["cancel_pending_order"]["parameters"]["properties"]["reason"] == {
        "type": "string"}
    # a read takes any arguments: tau-bench grades neither its arguments nor its schema
    assert "side_effect" not in tools["find_user_id_by_name_zip"]
    assert tools["find_user_id_by_name_zip"]["parameters"] == {"type": "object"}
    # only seen being called in a trajectory: no properties to hold it to
    assert tools["list_all_product_types"]["parameters"] == {"type": "object"}


def test_outputs_and_task_fields_go_to_metadata(cases: dict[str, dict[str, Any]]) -> None:
    meta = cases["tau-retail-1"]["metadata"]
    assert meta["outputs"] == ["10"]
    assert meta["user_id"] == "bo_chen_2002"
    assert cases["tau-retail-1"]["input"].startswith("You are Bo Chen.")


def test_task_without_writes_expects_no_write_with_reads_allowed(
        cases: dict[str, dict[str, Any]]) -> None:
    no_actions = {"selection": {"tools": [], "allow_reads": True, "allow_failed": True}}
    assert cases["tau-retail-2"]["expected"] == no_actions
    # Only a read in its actions; its `outputs` are what the agent must say.
    assert cases["tau-retail-1"]["expected"] == {**no_actions, "answer": {"mentions": ["10"]}}


def test_mapping_literals_are_escaped_so_they_never_read_as_comparators(
        tmp_path: Path) -> None:
    flights = [{"flight_number": "HAT001", "date": "2024-05-20"}]
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps([{"instruction": "book", "outputs": [], "actions": [
        {"name": "book_reservation", "kwargs": {"flights": flights, "user_id": "u1",
                                                "insurance": {"any": "no"}}}]}]))
    import_tau_bench(tasks, None, tmp_path / "out", domain="airline")
    case = read_lines(tmp_path / "out" / "suite.jsonl")[0]
    assert case["expected"]["arguments"][0]["args"] == {
        "flights": {"exact": flights}, "user_id": "u1", "insurance": {"exact": {"any": "no"}}}
    assert load_suite(tmp_path / "out" / "suite.jsonl").cases["tau-airline-0"]


def test_unknown_domain_infers_writes_from_tool_names(tmp_path: Path) -> None:
    tasks = tmp_path / "shop.json"
    tasks.write_text(json.dumps([{"instruction": "buy", "outputs": [], "actions": [
        {"name": "get_cart", "kwargs": {"cart": "c1"}},
        {"name": "checkout_cart", "kwargs": {"cart": "c1"}},
        {"name": "get_user_details", "kwargs": {"user_id": "u1"}}]}]))
    summary = import_tau_bench(tasks, None, tmp_path / "out", domain="shop")
    case = read_lines(tmp_path / "out" / "suite.jsonl")[0]
    assert case["id"] == "tau-shop-0"
    assert case["tools"]["checkout_cart"]["side_effect"] is True
    assert "side_effect" not in case["tools"]["get_cart"]
    assert "graded as writes (the route): checkout_cart" in summary.notes
    assert "free reads (not graded): get_cart, get_user_details" in summary.notes


def test_runs_keep_openai_messages_and_load(imported: Path) -> None:
    rows = read_lines(imported / "runs.jsonl")
    assert [(r["case_id"], r["trial"]) for r in rows] == [
        ("tau-retail-1", 0), ("tau-retail-1", 1), ("tau-retail-run-0", 0)]
    assert rows[0]["agent"] == "gpt-x" and rows[0]["format"] == "openai"
    assert rows[0]["metadata"] == {"reward": 1.0}
    trajectories = load_runs([imported / "runs.jsonl"])
    assert trajectories[0].tool_names == ["get_product_details"]
    assert trajectories[0].calls[0][1].args == {"product_id": "6086499569"}


def test_embedded_task_missing_from_tasks_file_becomes_its_own_case(
        cases: dict[str, dict[str, Any]]) -> None:
    extra = cases["tau-retail-run-0"]
    assert extra["input"] == "You are Zed. Cancel order #W9."
    assert extra["expected"]["arguments"][0]["args"]["reason"] == "ordered by mistake"


def test_task_id_out_of_range_without_embedded_task_is_located(tmp_path: Path) -> None:
    runs = tmp_path / "runs.json"
    runs.write_text(json.dumps([{"task_id": 7, "traj": []}], indent=1))
    with pytest.raises(InputError) as err:
        import_tau_bench(TAU_TASKS, runs, tmp_path / "out")
    assert f"{runs}:2: task_id: 7 is not a task of the tasks file" in str(err.value)


def test_malformed_tasks_are_located(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.json"
    tasks.write_text('[\n {"instruction": "a", "actions": []},\n'
                     ' {"instruction": "b", "actions": [{"kwargs": {}}]}\n]')
    with pytest.raises(InputError) as err:
        import_tau_bench(tasks, None, tmp_path / "out")
    assert f"{tasks}:3: actions[0]: expected {{name: str, kwargs: object}}" in str(err.value)
    tasks.write_text('[{"instruction": "a",]')
    with pytest.raises(InputError) as err:
        import_tau_bench(tasks, None, tmp_path / "out")
    assert "malformed JSON" in str(err.value)


def test_every_problem_of_every_task_is_reported(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.json"
    tasks.write_text('[\n {"actions": "x", "outputs": [1]},\n'
                     ' {"instruction": "b", "actions": [{"kwargs": {}}, {"name": 3}]}\n]')
    with pytest.raises(InputError) as err:
        import_tau_bench(tasks, None, tmp_path / "out")
    assert [str(p) for p in err.value.problems] == [
        f"{tasks}:2: actions: must be a list",
        f"{tasks}:2: instruction: missing or not a string",
        f"{tasks}:2: outputs: must be a list of strings",
        f"{tasks}:3: actions[0]: expected {{name: str, kwargs: object}}",
        f"{tasks}:3: actions[1]: expected {{name: str, kwargs: object}}"]


def test_every_problem_of_a_run_is_reported(tmp_path: Path) -> None:
    runs = tmp_path / "runs.json"
    runs.write_text(json.dumps([{"task_id": "1", "traj": {}},
                                {"task_id": 0, "traj": [], "info": {"task": {"actions": 1}}}]))
    with pytest.raises(InputError) as err:
        import_tau_bench(TAU_TASKS, runs, tmp_path / "out")
    assert [f"{p.field}: {p.reason}" for p in err.value.problems] == [
        "info.task.actions: must be a list",
        "info.task.instruction: missing or not a string",
        "task_id: missing or not an integer",
        "traj: must be a list of chat messages"]


def test_write_lists_of_plain_values_compare_as_multisets(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps([{"instruction": "return two", "outputs": [], "actions": [
        {"name": "return_delivered_order_items", "kwargs": {
            "order_id": "#W1", "item_ids": ["1", "2"], "payment_method_id": "pm"}}]}]))
    import_tau_bench(tasks, None, tmp_path / "out")
    args = read_lines(tmp_path / "out" / "suite.jsonl")[0]["expected"]["arguments"][0]["args"]
    assert args == {"order_id": "#W1", "item_ids": {"unordered": ["1", "2"]},
                    "payment_method_id": "pm"}
