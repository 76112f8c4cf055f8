"""Every importer's written bytes pinned: suite.jsonl, runs.jsonl and the import summary.

The files under `golden/` were written by the importers as they stood before their foreign
formats were typed (issue 32). A change to what an importer writes must be meant: regenerate
them with `TOOLGRADE_WRITE_GOLDEN=1 python -m pytest tests/importers/test_golden_outputs.py`
and review the diff.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from builders_importers import (
    BFCL_ANSWERS,
    BFCL_QUESTIONS,
    BFCL_RESULTS,
    DATA,
    TAU_RUNS,
    TAU_TASKS,
    tau2_action,
    tau2_call,
    tau2_result,
    tau2_results,
    write_lines,
)
from toolgrade.importers import ImportSummary, import_bfcl, import_tau2, import_tau_bench

GOLDEN = Path(__file__).parent / "golden"
WRITE = os.environ.get("TOOLGRADE_WRITE_GOLDEN") == "1"
FILES = ("suite.jsonl", "runs.jsonl")

Scenario = Callable[[Path, Path], ImportSummary]


def _bfcl_full(tmp: Path, out: Path) -> ImportSummary:
    return import_bfcl(BFCL_QUESTIONS, BFCL_ANSWERS, BFCL_RESULTS, out, agent="m", lenient=True)


def _bfcl_parity(tmp: Path, out: Path) -> ImportSummary:
    return import_bfcl(BFCL_QUESTIONS, BFCL_ANSWERS, BFCL_RESULTS, out, agent="m",
                       model="claude-3-opus-20240229")


def _bfcl_no_results(tmp: Path, out: Path) -> ImportSummary:
    return import_bfcl(BFCL_QUESTIONS, BFCL_ANSWERS, None, out)


def _bfcl_left_out(tmp: Path, out: Path) -> ImportSummary:
    f = {"name": "f", "parameters": {"type": "dict", "properties": {"a": {"type": "integer"}}}}
    nested = {"name": "get_headway", "parameters": {"type": "dict", "required": ["ego_info"],
              "properties": {"ego_info": {"type": "dict", "properties": {
                  "position": {"type": "dict", "properties": {
                      "lateral": {"type": "float"}, "longitudinal": {"type": "float"}}},
                  "orientation": {"type": "float"}}}}}}

    def question(qid: str, functions: list[dict[str, Any]]) -> dict[str, Any]:
        return {"id": qid, "question": [[{"role": "user", "content": "Go."}]],
                "function": functions}

    questions = write_lines(tmp / "q.json", [
        question("live_multiple_0-0-0", [f]), question("live_multiple_1-0-1", [f]),
        question("live_multiple_2-0-2", [nested]), question("live_multiple_3-0-3", [f]),
        question("live_multiple_0-0-0", [f]), question("live_irrelevance_4-0-4", [f])])
    answers = write_lines(tmp / "a.json", [
        {"id": "live_multiple_0-0-0", "ground_truth": [{"f": {"a": [1, ""]}}]},
        {"id": "live_multiple_1-0-1", "ground_truth": [{"f": {"a": 1}}]},
        {"id": "live_multiple_2-0-2", "ground_truth": [{"get_headway": {"ego_info": [
            {"position": [{"lateral": 10.5, "longitudinal": 50}], "orientation": [30]}]}}]},
        {"id": "live_multiple_3-0-3", "ground_truth": [{"g": {"a": [1]}}]}])
    results = write_lines(tmp / "r.json", [
        {"id": "live_multiple_0-0-0", "result": [{"f": "{\"a\": 1}"}]},
        {"id": "live_multiple_1-0-1", "result": [{"f": "{\"a\": 1}"}]},
        {"id": "live_multiple_2-0-2", "result": "[get_headway(ego_info={'orientation': 30})]"},
        {"id": "live_irrelevance_4-0-4", "result": "no call"},
        {"id": "live_irrelevance_4-0-4", "result": [{"name": "f", "arguments": {"a": 2}}]}])
    return import_bfcl(questions, answers, results, out, lenient=True)


def _tau_retail(tmp: Path, out: Path) -> ImportSummary:
    return import_tau_bench(TAU_TASKS, TAU_RUNS, out)


def _tau_retail_tasks_only(tmp: Path, out: Path) -> ImportSummary:
    return import_tau_bench(TAU_TASKS, None, out, agent="a", domain="retail")


def _tau_airline(tmp: Path, out: Path) -> ImportSummary:
    return import_tau_bench(DATA / "tau_airline_tasks.json", DATA / "tau_airline_runs.json", out)


def _write_tau2(tmp: Path, whole: dict[str, Any]) -> Path:
    path = tmp / "results.json"
    path.write_text(json.dumps(whole, indent=2))
    return path


def _tau2_telecom(tmp: Path, out: Path) -> ImportSummary:
    return import_tau2(_write_tau2(tmp, tau2_results()), out)


def _tau2_sim(task_id: str, trial: int, calls: list[tuple[str, dict[str, Any]]],
              said: str) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "please help", "tool_calls": None}]
    for n, (name, args) in enumerate(calls):
        cid = f"c{trial}_{n}"
        messages += [{"role": "assistant", "content": None,
                      "tool_calls": [tau2_call(cid, name, args, "assistant")]},
                     tau2_result(cid, '{"status": "ok"}', "assistant")]
    messages.append({"role": "assistant", "content": said, "tool_calls": None})
    return {"task_id": task_id, "trial": trial, "messages": messages,
            "termination_reason": "agent_stop", "reward_info": {"reward": trial % 2}}


def _tau2_airline(tmp: Path, out: Path) -> ImportSummary:
    actions = [tau2_action("0", "get_reservation_details", {"reservation_id": "H8Q05L"}),
               tau2_action("1", "cancel_reservation", {"reservation_id": "H8Q05L"}),
               tau2_action("2", "update_reservation_flights",
                           {"reservation_id": "H8Q05L", "flights": [{"n": "HAT1"}]})]
    tasks = [
        {"id": "cancel", "user_scenario": {"instructions": {"task_instructions": "cancel it"}},
         "evaluation_criteria": {"actions": actions, "communicate_info": ["1,286", " "],
                                 "reward_basis": ["DB", "COMMUNICATE"]}},
        {"id": "env", "ticket": "check", "evaluation_criteria": {
            "actions": actions[:1], "reward_basis": ["ENV_ASSERTION", "NL_ASSERTION"]}},
        {"id": "default", "evaluation_criteria": None}]
    sims = [_tau2_sim("cancel", 0, [("cancel_reservation", {"reservation_id": "H8Q05L"})],
                      "Refund of 1286 on its way."),
            _tau2_sim("cancel", 1, [("get_reservation_details", {"reservation_id": "H8Q05L"}),
                                    ("cancel_reservation", {"reservation_id": "H8Q05L"})],
                      "Done."),
            _tau2_sim("env", 0, [], "ok")]
    whole = {"info": {"environment_info": {"domain_name": "airline"}}, "tasks": tasks,
             "simulations": sims}
    return import_tau2(_write_tau2(tmp, whole), out, agent="named")


def _tau2_solo(tmp: Path, out: Path) -> ImportSummary:
    task = {"id": "[mobile]airplane[PERSONA:None]", "ticket": "no data",
            "evaluation_criteria": {"reward_basis": ["ACTION"], "actions": [
                tau2_action("0", "toggle_airplane_mode", {}, requestor="user"),
                tau2_action("1", "enable_roaming", {"customer_id": "C1"})]}}

    def sim(calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
        messages: list[dict[str, Any]] = []
        for n, (name, args) in enumerate([*calls, ("done", {})]):
            messages += [{"role": "assistant", "content": None,
                          "tool_calls": [tau2_call(f"s{n}", name, args, "assistant")]},
                         tau2_result(f"s{n}", "ok", "assistant")]
        return {"task_id": task["id"], "trial": len(calls), "messages": messages}

    both = [("toggle_airplane_mode", {}), ("enable_roaming", {"customer_id": "C1"})]
    again = [*both, ("check_status_bar", {}), ("toggle_airplane_mode", {})]
    whole = {"info": {"agent_info": {"implementation": "llm_agent_solo"},
                      "environment_info": {"domain_name": "telecom"}},
             "tasks": [task], "simulations": [sim(both), sim(both[1:]), sim(again)]}
    return import_tau2(_write_tau2(tmp, whole), out)


SCENARIOS: dict[str, Scenario] = {
    "bfcl_full": _bfcl_full,
    "bfcl_parity": _bfcl_parity,
    "bfcl_no_results": _bfcl_no_results,
    "bfcl_left_out": _bfcl_left_out,
    "tau_retail": _tau_retail,
    "tau_retail_tasks_only": _tau_retail_tasks_only,
    "tau_airline": _tau_airline,
    "tau2_telecom": _tau2_telecom,
    "tau2_airline": _tau2_airline,
    "tau2_solo": _tau2_solo,
}


def _summary_text(summary: ImportSummary, tmp: Path) -> str:
    """The summary's figures and lines, with the scratch folder's path taken out."""
    figures = {"cases": summary.cases, "runs": summary.runs, "calls": summary.calls,
               "unparseable": summary.unparseable, "missing_runs": summary.missing_runs,
               "rewards": summary.rewards, "lines": summary.lines()}
    return json.dumps(figures, indent=1, ensure_ascii=False).replace(str(tmp), "<tmp>") + "\n"


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_the_importer_writes_the_golden_bytes(name: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    summary = SCENARIOS[name](tmp_path, out)
    written = {file: (out / file).read_bytes() for file in FILES}
    written["summary.json"] = _summary_text(summary, tmp_path).encode("utf-8")
    folder = GOLDEN / name
    if WRITE:
        folder.mkdir(parents=True, exist_ok=True)
        for file, data in written.items():
            (folder / file).write_bytes(data)
    for file, data in written.items():
        assert data == (folder / file).read_bytes(), f"{name}/{file} differs from the golden file"
