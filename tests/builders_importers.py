"""Shared helpers for the importer tests: fixture paths and reading the written outputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "importers" / "data"
BFCL_QUESTIONS = DATA / "bfcl_questions.json"
BFCL_ANSWERS = DATA / "bfcl_answers.json"
BFCL_RESULTS = DATA / "bfcl_results.json"
TAU_TASKS = DATA / "tau_tasks.json"
TAU_RUNS = DATA / "tau_runs.json"


def read_lines(path: Path) -> list[dict[str, Any]]:
    """Every JSON line of a written file."""
    # Lines end at "\n" only (a JSON string may hold U+2028 or NEL raw).
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.split("\n") if line]


def by_id(rows: list[dict[str, Any]], key: str = "id") -> dict[str, dict[str, Any]]:
    """Rows keyed by their id (the first row wins for repeated ids)."""
    out: dict[str, dict[str, Any]] = {}
    for row in rows:
        out.setdefault(row[key], row)
    return out


def write_lines(path: Path, rows: list[Any]) -> Path:
    """Write rows as JSON Lines and return the path."""
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def tau2_call(call_id: str, name: str, args: dict[str, Any], requestor: str) -> dict[str, Any]:
    """One tool call inside a tau2 message."""
    return {"id": call_id, "name": name, "arguments": args, "requestor": requestor}


def tau2_result(call_id: str, content: str, requestor: str, error: bool = False) -> dict[str, Any]:
    """One tau2 tool message answering the call `call_id`."""
    return {"id": call_id, "role": "tool", "content": content, "requestor": requestor,
            "error": error}


def tau2_action(action_id: str, name: str, args: dict[str, Any], requestor: str = "assistant",
                compare_args: list[str] | None = None) -> dict[str, Any]:
    """One reference action of a tau2 task's evaluation_criteria."""
    return {"action_id": action_id, "requestor": requestor, "name": name, "arguments": args,
            "info": None, "compare_args": compare_args}


def tau2_results() -> dict[str, Any]:
    """A small tau2 results file in the real layout: three tasks, three simulations.

    `roaming`: the agent must enable roaming (all arguments compared), the user toggles it on
    the device. `payment`: a payment request compared on two keys only, and a transfer with
    `compare_args: []`. `nothing`: no action at all (only reads are fine).
    """
    roaming = [tau2_action("enable_0", "enable_roaming", {"customer_id": "C1", "line_id": "L2"}),
               tau2_action("toggle_1", "toggle_roaming", {}, requestor="user")]
    payment = [tau2_action("pay_0", "send_payment_request",
                           {"customer_id": "C1", "bill_id": "B9", "amount": 50.0},
                           compare_args=["customer_id", "bill_id"]),
               tau2_action("transfer_1", "transfer_to_human_agents", {"summary": "overdue"},
                           compare_args=[])]
    tasks = [
        {"id": "[data]roaming", "user_scenario": {"instructions": {
            "reason_for_call": "no data abroad", "known_info": "phone 555-1"}},
         "evaluation_criteria": {"actions": roaming, "reward_basis": ["ACTION"]}},
        {"id": "[bill]payment", "user_scenario": {"instructions": "pay my bill"},
         "evaluation_criteria": {"actions": payment, "reward_basis": ["ACTION"]}},
        {"id": "[misc]nothing", "user_scenario": {"instructions": "just asking"},
         "evaluation_criteria": {"actions": None, "reward_basis": ["DB"]}},
    ]
    roaming_messages = [
        {"role": "assistant", "content": "Hi! How can I help?", "tool_calls": None},
        {"role": "user", "content": "No data, phone 555-1", "tool_calls": None},
        {"role": "assistant", "content": None, "tool_calls": [
            tau2_call("a1", "get_customer_by_phone", {"phone_number": "555-1"}, "assistant")]},
        tau2_result("a1", '{"customer_id": "C1"}', "assistant"),
        {"role": "assistant", "content": None, "tool_calls": [
            tau2_call("a2", "enable_roaming", {"customer_id": "C1", "line_id": "L2"},
                      "assistant"),
            tau2_call("a3", "get_details_by_id", {"id": "L2"}, "assistant")]},
        tau2_result("a2", "Roaming enabled", "assistant"),
        tau2_result("a3", "Error: line busy", "assistant", error=True),
        {"role": "assistant", "content": "Please turn roaming on.", "tool_calls": None},
        {"role": "user", "content": "Doing it.", "tool_calls": [
            tau2_call("u1", "toggle_roaming", {}, "user")]},
        tau2_result("u1", "Roaming is now ON", "user"),
        {"role": "assistant", "content": "All set.", "tool_calls": None},
    ]
    payment_messages = [
        {"role": "user", "content": "pay my bill", "tool_calls": None},
        {"role": "assistant", "content": None, "tool_calls": [
            tau2_call("b1", "send_payment_request",
                      {"customer_id": "C1", "bill_id": "B9", "amount": 75.0}, "assistant")]},
        tau2_result("b1", "sent", "assistant"),
        {"role": "assistant", "content": None, "tool_calls": [
            tau2_call("b2", "transfer_to_human_agents", {"summary": "user wants a human"},
                      "assistant")]},
        tau2_result("b2", "Transfer successful", "assistant"),
    ]
    nothing_messages = [
        {"role": "user", "content": "what plan am I on?", "tool_calls": None},
        {"role": "assistant", "content": None, "tool_calls": [
            tau2_call("c1", "get_details_by_id", {"id": "P1"}, "assistant")]},
        tau2_result("c1", '{"plan": "basic"}', "assistant"),
        {"role": "assistant", "content": "The basic plan.", "tool_calls": None},
    ]

    def checks(actions: list[dict[str, Any]], matches: list[bool]) -> list[dict[str, Any]]:
        return [{"action": a, "action_match": m, "action_reward": float(m)}
                for a, m in zip(actions, matches, strict=True)]

    simulations = [
        {"task_id": "[data]roaming", "trial": 0, "termination_reason": "user_stop",
         "messages": roaming_messages,
         "reward_info": {"reward": 1.0, "action_checks": checks(roaming, [True, True])}},
        {"task_id": "[bill]payment", "trial": 0, "termination_reason": "user_stop",
         "messages": payment_messages,
         "reward_info": {"reward": 1.0, "action_checks": checks(payment, [True, True])}},
        {"task_id": "[misc]nothing", "trial": 0, "termination_reason": "user_stop",
         "messages": nothing_messages, "reward_info": {"reward": 0.0, "action_checks": []}},
    ]
    return {"timestamp": "2025-01-01T00:00:00", "info": {
        "agent_info": {"llm": "gpt-test"}, "environment_info": {"domain_name": "telecom"}},
        "tasks": tasks, "simulations": simulations}
