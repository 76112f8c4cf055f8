"""tau2 import follows `reward_basis`: DB grades writes, COMMUNICATE mentions, solo mode."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from builders_importers import by_id, read_lines, tau2_action, tau2_call, tau2_result
from toolgrade.importers import import_tau2
from toolgrade.importers.tau2_basis import Mode, reward_basis, route_actions, solo_mode
from toolgrade.scoring.runner import grade, validate_inputs

WRITES = frozenset({"cancel_reservation"})


def _cancel_task(basis: list[str] | None, info: list[str] | None = None) -> dict[str, Any]:
    criteria: dict[str, Any] = {
        "actions": [tau2_action("0", "get_reservation_details", {"reservation_id": "H8Q05L"}),
                    tau2_action("1", "cancel_reservation", {"reservation_id": "H8Q05L"})],
        "communicate_info": info}
    if basis is not None:
        criteria["reward_basis"] = basis
    return {"id": "airline_cancel", "user_scenario": {"instructions": "cancel H8Q05L"},
            "evaluation_criteria": criteria}


def _sim(trial: int, calls: list[tuple[str, dict[str, Any]]], said: str) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "cancel H8Q05L please", "tool_calls": None}]
    for n, (name, args) in enumerate(calls):
        cid = f"c{trial}_{n}"
        messages += [{"role": "assistant", "content": None,
                      "tool_calls": [tau2_call(cid, name, args, "assistant")]},
                     tau2_result(cid, '{"status": "ok"}', "assistant")]
    messages.append({"role": "assistant", "content": said, "tool_calls": None})
    return {"task_id": "airline_cancel", "trial": trial, "messages": messages,
            "reward_info": {"reward": 1.0}}


def _import(tmp_path: Path, tasks: list[dict[str, Any]], sims: list[dict[str, Any]],
            info: dict[str, Any] | None = None, domain: str = "airline") -> Path:
    whole = {"info": {"environment_info": {"domain_name": domain}, **(info or {})},
             "tasks": tasks, "simulations": sims}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(whole))
    import_tau2(path, tmp_path / "out")
    return tmp_path / "out"


def _grades(folder: Path) -> list[dict[str, Any]]:
    inputs = validate_inputs(folder / "suite.jsonl", [folder / "runs.jsonl"])
    grade(inputs, folder / "graded", judge=None)
    return read_lines(folder / "graded" / "results.jsonl")


def test_the_default_basis_is_db_and_communicate() -> None:
    assert reward_basis(_cancel_task(None)) == ["DB", "COMMUNICATE"]


def test_db_basis_routes_only_the_writes_and_keeps_reads_in_metadata(tmp_path: Path) -> None:
    folder = _import(tmp_path, [_cancel_task(["DB"])], [])
    case = read_lines(folder / "suite.jsonl")[0]
    assert case["expected"]["selection"]["tools"] == ["cancel_reservation"]
    assert case["metadata"]["reference_reads"] == ["get_reservation_details"]


def test_action_basis_keeps_every_action_in_the_route() -> None:
    task = _cancel_task(["DB", "ACTION"])
    assert [a["name"] for a in route_actions(task, Mode(WRITES))] == [
        "get_reservation_details", "cancel_reservation"]


def test_a_run_that_skips_the_read_passes_and_a_missing_mention_fails(tmp_path: Path) -> None:
    task = _cancel_task(["DB", "COMMUNICATE"], info=["1,286"])
    sims = [_sim(0, [("cancel_reservation", {"reservation_id": "H8Q05L"})],
                 "Cancelled; a refund of 1286 dollars is on its way."),
            _sim(1, [("get_reservation_details", {"reservation_id": "H8Q05L"}),
                     ("cancel_reservation", {"reservation_id": "H8Q05L"})], "Cancelled.")]
    folder = _import(tmp_path, [task], sims)
    case = read_lines(folder / "suite.jsonl")[0]
    assert case["expected"]["answer"] == {"mentions": ["1,286"]}
    skipped, silent = _grades(folder)
    assert skipped["aggregate"]["passed"] is True
    assert silent["aggregate"]["passed"] is False
    names = [f["name"] for f in silent["checks"]["recovery"]["failures"]]
    assert names == ["missing_mention"]


def test_communicate_info_is_graded_only_when_the_basis_counts_it(tmp_path: Path) -> None:
    folder = _import(tmp_path, [_cancel_task(["DB"], info=["1,286"])], [])
    assert "answer" not in read_lines(folder / "suite.jsonl")[0]["expected"]


def test_env_assertion_tasks_are_counted_and_marked(tmp_path: Path) -> None:
    task = _cancel_task(["ENV_ASSERTION"])
    task["evaluation_criteria"]["env_assertions"] = [
        {"env_type": "user", "func_name": "assert_can_send_mms",
         "arguments": {"expected_status": True}, "assert_value": True},
        {"env_type": "user", "func_name": "assert_service_status",
         "arguments": {"expected_status": "connected"}, "assert_value": True}]
    whole = {"info": {"environment_info": {"domain_name": "telecom"}}, "tasks": [task],
             "simulations": []}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(whole))
    summary = import_tau2(path, tmp_path / "out")
    case = read_lines(tmp_path / "out" / "suite.jsonl")[0]
    assert case["metadata"]["not_reproduced"] == ["ENV_ASSERTION assert_service_status"]
    assert case["expected"]["state"] == [
        {"path": "episode.ended_normally", "equals": True},
        {"path": "can_send_mms", "equals": True}]
    assert "ordering" not in case["expected"]
    assert any(line.startswith("1 tasks rewarded on ENV_ASSERTION") for line in summary.lines())
    assert any(line.startswith("1 tasks rest on ENV_ASSERTION") for line in summary.lines())


def _solo_task() -> dict[str, Any]:
    return {"id": "[mobile_data_issue]airplane_mode_on[PERSONA:None]", "ticket": "no data",
            "evaluation_criteria": {"reward_basis": ["ACTION"], "actions": [
                tau2_action("0", "toggle_airplane_mode", {}, requestor="user"),
                tau2_action("1", "enable_roaming", {"customer_id": "C1"})]}}


def _solo_sim(calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    for n, (name, args) in enumerate([*calls, ("done", {})]):
        messages += [{"role": "assistant", "content": None,
                      "tool_calls": [tau2_call(f"s{n}", name, args, "assistant")]},
                     tau2_result(f"s{n}", "ok", "assistant")]
    return {"task_id": _solo_task()["id"], "trial": len(calls), "messages": messages}


def test_solo_mode_grades_the_users_actions_as_the_agents_route(tmp_path: Path) -> None:
    info = {"agent_info": {"implementation": "llm_agent_solo"}}
    both = [("toggle_airplane_mode", {}), ("enable_roaming", {"customer_id": "C1"})]
    again = [*both, ("check_status_bar", {}), ("toggle_airplane_mode", {})]
    sims = [_solo_sim(both), _solo_sim(both[1:]), _solo_sim(again)]
    folder = _import(tmp_path, [_solo_task()], sims, info=info, domain="telecom")
    case = read_lines(folder / "suite.jsonl")[0]
    assert sorted(case["expected"]["selection"]["tools"]) == [
        "enable_roaming", "toggle_airplane_mode"]
    assert case["metadata"]["mode"] == "solo"
    assert "side_effect" not in case["tools"]["done"]  # the stop tool changes nothing
    graded = by_id(_grades(folder), "trial")
    assert graded[2]["aggregate"]["passed"] is True
    assert graded[1]["aggregate"]["passed"] is False
    assert [f["name"] for f in graded[1]["checks"]["selection"]["failures"]] == ["missing_tool"]
    # Toggling a device setting again is free: only the device's end state counts.
    assert case["expected"]["selection"]["allowed"] == ["toggle_airplane_mode"]
    assert graded[4]["aggregate"]["passed"] is True


def test_solo_mode_is_seen_in_the_data_without_info() -> None:
    sims = [_solo_sim([("toggle_airplane_mode", {})])]
    assert solo_mode({}, sims, {"toggle_airplane_mode"}) is True
    assert solo_mode({}, sims, {"toggle_roaming"}) is False
    assert solo_mode({"user_info": {"implementation": "dummy_user"}}, [], set()) is True
