"""scripts/cut_tau2_items.py: the candidates it cuts from a tau2 results file, per dimension."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


@pytest.fixture(scope="module")
def cutter() -> Iterator[Any]:
    sys.path.insert(0, str(SCRIPTS))
    try:
        import cut_tau2_items
        yield cut_tau2_items
    finally:
        sys.path.remove(str(SCRIPTS))


def _call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": arguments}


def _results(tmp_path: Path, messages: list[dict[str, Any]],
             actions: list[dict[str, Any]]) -> Path:
    """A tau2 results file with one task and one simulation of it."""
    task = {"id": "7", "ticket": None, "evaluation_criteria": {"actions": actions}}
    simulation = {"task_id": "7", "messages": messages, "reward_info": {"reward": 0.0}}
    path = tmp_path / "ft-model_retail.json"
    path.write_text(json.dumps({"tasks": [task], "simulations": [simulation]}), "utf-8")
    return path


def _two_orders(tmp_path: Path) -> Path:
    """The reference modifies two orders; the agent modifies one right, one to the wrong item,
    after an exchange call that failed."""
    ref = [
        {"name": "modify_pending_order_items",
         "arguments": {"order_id": "#W1", "item_ids": ["1"], "new_item_ids": ["2"]}},
        {"name": "modify_pending_order_items",
         "arguments": {"order_id": "#W2", "item_ids": ["3"], "new_item_ids": ["4"]}},
    ]
    messages = [
        {"role": "user", "content": "Change both my orders please."},
        {"role": "assistant", "tool_calls": [_call("c1", "find_user_id_by_email", email="a@b")]},
        {"role": "tool", "id": "c1", "content": "user_1"},
        {"role": "assistant", "tool_calls": [
            _call("c2", "exchange_delivered_order_items", order_id="#W2")]},
        {"role": "tool", "id": "c2", "content": "Error: Non-delivered order cannot be exchanged"},
        {"role": "assistant", "tool_calls": [_call(
            "c3", "modify_pending_order_items", order_id="#W2", item_ids=["3"],
            new_item_ids=["4"])]},
        {"role": "tool", "id": "c3", "content": "{}"},
        {"role": "user", "content": "And the first one too."},
        {"role": "assistant", "tool_calls": [_call(
            "c4", "modify_pending_order_items", order_id="#W1", item_ids=["1"],
            new_item_ids=["9"])]},
        {"role": "tool", "id": "c4", "content": "{}"},
        {"role": "assistant", "content": "Done: both orders are changed."},
    ]
    return _results(tmp_path, messages, ref)


def test_arguments_pair_each_reference_call_with_the_call_on_the_same_order(
    cutter: Any, tmp_path: Path
) -> None:
    found = list(cutter.CUTTERS["argument_equivalence"](_two_orders(tmp_path)))
    assert [c["id"] for c in found] == ["ae-real-retail-00-008-new_item_ids"]
    inputs = found[0]["inputs"]
    assert inputs["expected"] == '["2"]' and inputs["actual"] == '["9"]'
    assert inputs["task"] == "Change both my orders please.\nAnd the first one too."
    assert inputs["tool"] == "modify_pending_order_items" and inputs["rubric"] is None


def test_a_number_written_another_way_is_a_candidate(cutter: Any, tmp_path: Path) -> None:
    messages = [{"role": "user", "content": "Add 2 GB."},
                {"role": "assistant", "tool_calls": [_call("c1", "refuel_data", gb_amount=2)]}]
    path = _results(tmp_path, messages, [{"name": "refuel_data",
                                          "arguments": {"gb_amount": 2.0}}])
    [found] = cutter.CUTTERS["argument_equivalence"](path)
    assert (found["inputs"]["expected"], found["inputs"]["actual"]) == ("2.0", "2")


def test_routes_leave_failed_calls_out_and_describe_every_tool(
    cutter: Any, tmp_path: Path
) -> None:
    [found] = cutter.CUTTERS["alternate_route"](_two_orders(tmp_path))
    inputs = found["inputs"]
    assert found["id"] == "ar-real-retail-00"
    assert inputs["actual_route"] == ["find_user_id_by_email", "modify_pending_order_items",
                                      "modify_pending_order_items"]
    assert inputs["expected_routes"] == [["modify_pending_order_items"] * 2]
    assert set(inputs["tool_descriptions"]) == {"find_user_id_by_email",
                                                "modify_pending_order_items"}
    assert "side effect" in inputs["tool_descriptions"]["modify_pending_order_items"]


def test_a_route_equal_to_the_reference_or_with_undescribed_tools_is_no_candidate(
    cutter: Any, tmp_path: Path
) -> None:
    same = [{"role": "assistant", "tool_calls": [_call("c1", "get_order_details", order_id="1")]}]
    path = _results(tmp_path, same, [{"name": "get_order_details",
                                      "arguments": {"order_id": "1"}}])
    assert list(cutter.CUTTERS["alternate_route"](path)) == []
    other = [{"role": "assistant", "tool_calls": [_call("c1", "toggle_roaming")]}]
    path = _results(tmp_path, other, [{"name": "enable_roaming", "arguments": {}}])
    assert list(cutter.CUTTERS["alternate_route"](path)) == []


def test_result_interpretation_stays_the_default(cutter: Any, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out.jsonl"
    monkeypatch.setattr(sys, "argv", ["cut", str(_two_orders(tmp_path)), "--out", str(out)])
    cutter.main()
    lines = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [c["id"] for c in lines] == ["ft-model_retail-00-010"]
    assert lines[0]["inputs"]["final_answer"] == "Done: both orders are changed."
