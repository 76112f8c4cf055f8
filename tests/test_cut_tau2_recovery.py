"""scripts/cut_tau2_recovery.py: one candidate per agent tool error, in the judge's shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from builders_importers import tau2_call, tau2_result
from script_modules import load_script
from toolgrade.calibration.calibrate import load_set

CUTTER = load_script(Path(__file__).resolve().parents[1] / "scripts" / "cut_tau2_recovery.py",
                     "cut_tau2_recovery")
LONG_ORDER = json.dumps({"order_id": "#W1", "items": [{"item_id": str(n)} for n in range(200)]})


def _say(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "content": text, "tool_calls": None}


def _calls(*calls: dict[str, Any], role: str = "assistant") -> dict[str, Any]:
    return {"role": role, "content": None, "tool_calls": list(calls)}


def _results_file(tmp_path: Path) -> Path:
    """One retail-like simulation: a not-found order id, corrected by the user and retried;
    and a user-side device call that fails (not a fault of the agent's tools)."""
    messages = [
        _say("user", "Return order W1 please"),
        _calls(tau2_call("a1", "get_order_details", {"order_id": "W1"}, "assistant")),
        tau2_result("a1", "Error: Order not found", "assistant", error=True),
        _say("assistant", "I could not find order W1. Could you check the id?"),
        _calls(tau2_call("u1", "run_speed_test", {}, "user"), role="user"),
        tau2_result("u1", "Error: no connection", "user", error=True),
        _say("user", "Sorry, it is #W1."),
        _calls(tau2_call("a2", "get_order_details", {"order_id": "#W1"}, "assistant")),
        tau2_result("a2", LONG_ORDER, "assistant"),
        _say("assistant", "Found #W1. Which items shall I return?"),
    ]
    task = {"id": "t1", "user_scenario": {"instructions": {"reason_for_call": "return #W1"}},
            "evaluation_criteria": {"actions": None, "reward_basis": ["DB"]}}
    data = {"timestamp": "2025-01-01T00:00:00", "info": {}, "tasks": [task],
            "simulations": [{"id": "s1", "task_id": "t1", "messages": messages,
                             "reward_info": {"reward": 1.0}}]}
    path = tmp_path / "ft-test_retail.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_one_candidate_per_agent_error_with_the_stage_the_check_finds(tmp_path: Path) -> None:
    (candidate,) = list(CUTTER.candidates(_results_file(tmp_path)))
    assert candidate["id"] == "ft-test_retail-00-002"
    assert candidate["reward"] == 1.0
    inputs = candidate["inputs"]
    assert inputs["task"] == "reason_for_call: return #W1"
    assert inputs["fault"] == {"tool": "get_order_details", "nth": 1, "kind": "error",
                               "content": "Error: Order not found"}
    assert inputs["stage"] == "recovered"  # the retry with the corrected id succeeded
    steps = inputs["transcript"]
    assert [s["step"] for s in steps] == list(range(1, len(steps) + 1))
    assert steps[0] == {"step": 1, "role": "assistant",
                        "content": "I could not find order W1. Could you check the id?"}
    retry = next(s for s in steps if s.get("tool") == "get_order_details")
    assert retry["args"] == {"order_id": "#W1"} and retry["status"] == "ok"
    cut = len(LONG_ORDER) - CUTTER.MAX_CONTENT_CHARS
    assert retry["content"].endswith(f" ... [{cut} characters cut]")
    assert len(json.dumps(inputs, ensure_ascii=False)) <= CUTTER.ITEM_BUDGET


def test_a_shortened_transcript_gets_the_stage_of_the_shorter_run(tmp_path: Path) -> None:
    data = json.loads(_results_file(tmp_path).read_text(encoding="utf-8"))
    run = CUTTER.run_of(data["simulations"][0])
    fault = next(i for i, s in enumerate(run.steps) if getattr(s, "tool", None))
    inputs = CUTTER.item_inputs(run, fault, "task", steps=1)
    assert len(inputs["transcript"]) == 1
    assert inputs["stage"] == "missing_escalation"  # the retry is past the cut


def test_candidates_load_as_a_calibration_set_once_labelled(tmp_path: Path) -> None:
    lines = [{"_provenance": {"dimension": "recovery_quality", "method": "test"}}]
    for label, candidate in zip(("pass", "fail"),
                                [*CUTTER.candidates(_results_file(tmp_path))] * 2, strict=True):
        lines.append({"id": f"{candidate['id']}-{label}", "inputs": candidate["inputs"],
                      "label": label, "tags": ["real"], "note": "test"})
    path = tmp_path / "set.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    loaded = load_set(path, "recovery_quality")
    assert [item.label for item in loaded.items] == ["pass", "fail"]
