"""The fault-injection harness: faults fire on the named calls, every call is recorded."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from builders_recovery import case, ctx, fault, recovery
from toolgrade.checks.recovery import RecoveryCheck
from toolgrade.harness import FaultInjector, ToolFault, malformed
from toolgrade.models import FaultSpec, Message, ToolCall, Trajectory


def lookup(order_id: str) -> dict[str, Any]:
    return {"id": order_id, "status": "delivered", "total": 25.0}


def search(query: str) -> list[dict[str, Any]]:
    return [lookup("A1")]


def handoff(reason: str) -> str:
    return "ticket-7"


TOOLS: dict[str, Callable[..., Any]] = {"lookup": lookup, "search": search, "handoff": handoff}


def agent(tools: Mapping[str, Callable[..., Any]], retries: int = 1) -> str:
    """A tiny agent: look up, retry on failure, fall back to search, else hand off."""
    for _ in range(1 + retries):
        try:
            result = tools["lookup"](order_id="A1")
        except (ToolFault, TimeoutError):
            continue
        if isinstance(result, dict) and "error" not in result:
            return f"Order {result['id']} is {result['status']}."
    try:
        found = tools["search"](query="A1")
        return f"Found {len(found)} order."
    except ToolFault:
        tools["handoff"]("lookup is down")
        return "A human will follow up."


def calls(steps: list[Any]) -> list[ToolCall]:
    return [s for s in steps if isinstance(s, ToolCall)]


def test_no_fault_records_plain_calls() -> None:
    inj = FaultInjector([], TOOLS)
    assert agent(inj.tools) == "Order A1 is delivered."
    [only] = calls(inj.steps)
    assert (only.tool, only.args, only.id) == ("lookup", {"order_id": "A1"}, "call_1")
    assert only.result is not None and only.result.status == "ok"
    assert only.result.content == {"id": "A1", "status": "delivered", "total": 25.0}


def test_error_on_first_call_is_raised_then_retry_succeeds() -> None:
    c = case(recovery(fault("lookup", content="503 Service Unavailable")))
    inj = FaultInjector(c, TOOLS)
    assert agent(inj.tools) == "Order A1 is delivered."
    first, second = calls(inj.steps)
    assert first.result is not None and first.result.status == "error"
    assert first.result.content == "503 Service Unavailable"
    assert second.result is not None and second.result.status == "ok"


def test_error_in_return_mode_hands_back_an_error_value() -> None:
    inj = FaultInjector([FaultSpec(tool="lookup", content="boom")], TOOLS, on_error="return")
    assert inj.tools["lookup"](order_id="A1") == {"error": "boom"}
    [call] = calls(inj.steps)
    assert call.failed


def test_nth_two_fires_only_on_the_second_call() -> None:
    inj = FaultInjector([FaultSpec(tool="lookup", nth=2)], TOOLS)
    inj.tools["lookup"](order_id="A1")
    with pytest.raises(ToolFault):
        inj.tools["lookup"](order_id="A1")
    inj.tools["lookup"](order_id="A1")
    assert [c.failed for c in calls(inj.steps)] == [False, True, False]


def test_all_with_fallback_and_escalation() -> None:
    faults = [FaultSpec(tool="lookup", nth="all"), FaultSpec(tool="search", nth="all")]
    inj = FaultInjector(faults, TOOLS)
    assert agent(inj.tools, retries=2) == "A human will follow up."
    assert [c.tool for c in calls(inj.steps)] == ["lookup"] * 3 + ["search", "handoff"]
    assert [c.failed for c in calls(inj.steps)] == [True] * 4 + [False]


def test_timeout_raises_and_records_timeout() -> None:
    inj = FaultInjector([FaultSpec(tool="lookup", kind="timeout")], TOOLS)
    with pytest.raises(TimeoutError):
        inj.tools["lookup"]("A1")
    [call] = calls(inj.steps)
    assert call.result is not None and (call.result.status, call.result.content) == (
        "error", "timeout")
    assert call.args == {"order_id": "A1"}  # positional arguments recorded by name


def test_empty_returns_empty_without_calling_the_tool() -> None:
    seen: list[str] = []

    def tracked(order_id: str) -> str:
        seen.append(order_id)
        return "real"

    inj = FaultInjector([FaultSpec(tool="t", kind="empty")], {"t": tracked}, empty_value=None)
    assert inj.tools["t"](order_id="A1") is None
    assert seen == []
    [call] = calls(inj.steps)
    assert call.result is not None and call.result.status == "ok" and call.result.content is None
    assert call.result.fault == "empty"  # the run says it was a fault all the same


def test_malformed_returns_truncated_non_json_of_the_real_result() -> None:
    inj = FaultInjector([FaultSpec(tool="lookup", kind="malformed")], TOOLS)
    out = inj.tools["lookup"](order_id="A1")
    assert isinstance(out, str)
    full = json.dumps(lookup("A1"))
    assert out.startswith(full[:10]) and len(out) < len(full)
    with pytest.raises(json.JSONDecodeError):
        json.loads(out)


@pytest.mark.parametrize("value", [5, "x", None, [], {"a": [1, 2]}, True])
def test_malformed_is_never_valid_json(value: Any) -> None:
    with pytest.raises(json.JSONDecodeError):
        json.loads(malformed(value))


def test_malformed_with_content_uses_it() -> None:
    inj = FaultInjector([FaultSpec(tool="lookup", kind="malformed", content='{"id": "A')], TOOLS)
    assert inj.tools["lookup"](order_id="A1") == '{"id": "A'


def test_real_tool_exception_is_recorded_and_reraised() -> None:
    def broken(x: int) -> int:
        raise ValueError("bad x")

    inj = FaultInjector([], {"broken": broken})
    with pytest.raises(ValueError):
        inj.call("broken", x=1)
    [call] = calls(inj.steps)
    assert call.result is not None and (call.result.status, call.result.content) == (
        "error", "bad x")


def test_async_tools_are_wrapped() -> None:
    async def fetch(url: str) -> str:
        return "page"

    inj = FaultInjector([FaultSpec(tool="fetch", nth=1)], {"fetch": fetch})

    async def go() -> str:
        with contextlib.suppress(ToolFault):
            await inj.tools["fetch"](url="u")
        result: str = await inj.tools["fetch"](url="u")
        return result

    assert asyncio.run(go()) == "page"
    assert [c.failed for c in calls(inj.steps)] == [True, False]


def test_a_tool_object_with_an_async_call_is_wrapped_as_async() -> None:
    class Search:
        async def __call__(self, query: str) -> list[str]:
            return [query]

    inj = FaultInjector(None, {"search": Search()})
    assert asyncio.run(inj.tools["search"]("shoes")) == ["shoes"]
    [call] = calls(inj.steps)
    assert call.args == {"query": "shoes"}
    assert call.result is not None and call.result.content == ["shoes"]  # not "<coroutine ...>"


def test_an_async_call_the_agent_cancels_is_still_recorded() -> None:
    async def refund(order_id: str) -> str:
        await asyncio.sleep(5)
        return "done"

    inj = FaultInjector(None, {"refund": refund})

    async def go() -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(inj.tools["refund"](order_id="A1"), 0.01)

    asyncio.run(go())
    [call] = calls(inj.steps)  # the call was made (and may have acted): it stays in the run
    assert call.args == {"order_id": "A1"} and call.result is not None
    assert (call.result.status, call.result.content) == ("error", "CancelledError")


def test_trajectory_and_jsonl_round_trip_and_grade() -> None:
    c = case(recovery(fault("lookup", nth="all"), fallbacks={"lookup": ["search"]}))
    inj = FaultInjector(c, TOOLS)
    answer = agent(inj.tools)
    inj.message("user", "thanks")
    line = inj.to_jsonl_line(trial=2, agent="tiny", final_state={"done": True},
                             final_answer=answer)
    data = json.loads(line)
    assert (data["case_id"], data["trial"], data["agent"]) == ("c1", 2, "tiny")
    assert data["final_state"] == {"done": True}
    assert data["steps"][0] == {"tool": "lookup", "args": {"order_id": "A1"}, "id": "call_1",
                                "result": {"status": "error", "content": "error",
                                           "fault": "error"}}  # marked as injected
    assert data["steps"][-1] == {"role": "assistant", "content": "Found 1 order."}
    run = Trajectory.model_validate(data)
    assert run == inj.trajectory(trial=2, agent="tiny", final_state={"done": True},
                                 final_answer=answer)
    assert isinstance(run.steps[-2], Message)
    result = RecoveryCheck().grade(c, run, ctx())
    assert [f["stage"] for f in result.figures["faults"]] == ["recovered"]


def test_reset_starts_a_new_trial_with_the_same_faults() -> None:
    inj = FaultInjector([FaultSpec(tool="lookup")], TOOLS)
    agent(inj.tools)
    inj.reset()
    assert inj.steps == []
    agent(inj.tools)
    assert [c.failed for c in calls(inj.steps)] == [True, False]


def test_trajectory_needs_a_case_id_without_a_case() -> None:
    inj = FaultInjector([], TOOLS)
    with pytest.raises(ValueError):
        inj.trajectory()
    assert inj.trajectory("x").case_id == "x"


def test_unknown_tool_by_name() -> None:
    with pytest.raises(KeyError):
        FaultInjector([], TOOLS).call("nope")


def test_unserialisable_values_are_recorded_as_text() -> None:
    class Thing:
        def __str__(self) -> str:
            return "thing"

    inj = FaultInjector([], {"make": lambda obj: Thing()})
    inj.tools["make"](obj=Thing())
    [call] = calls(inj.steps)
    assert call.args == {"obj": "thing"}
    assert call.result is not None and call.result.content == "thing"
    json.loads(inj.to_jsonl_line("c"))


def test_overlapping_calls_are_recorded_in_the_order_they_started() -> None:
    # The slow first call is the faulted one (nth 1); it finishes last. Recording by completion
    # had made the clean second call look like the faulted one and the corrupted one a retry.
    gate = threading.Event()

    def slow_or_fast(order_id: str) -> dict[str, Any]:
        if order_id == "slow":
            gate.wait(5)
        return {"id": order_id}

    injector = FaultInjector([FaultSpec(tool="lookup", nth=1, kind="malformed")],
                             {"lookup": slow_or_fast})
    worker = threading.Thread(target=lambda: injector.tools["lookup"]("slow"))
    worker.start()
    while not injector._slots:  # the slow call has started and taken its slot
        time.sleep(0.001)
    injector.tools["lookup"]("fast")
    assert [c.args for c in calls(injector.steps)] == [{"order_id": "fast"}]  # slow in flight
    gate.set()
    worker.join()
    recorded = calls(injector.steps)
    order = [(c.id, c.args["order_id"]) for c in recorded]
    assert order == [("call_1", "slow"), ("call_2", "fast")]
    assert isinstance(recorded[0].result.content, str)  # the corrupted one
    assert recorded[1].result.content == {"id": "fast"}


def test_keyword_arguments_are_recorded_flat_however_the_call_is_made() -> None:
    def varkw(a: int, *rest: int, **kw: int) -> int:
        return a

    injector = FaultInjector(None, {"varkw": varkw})
    injector.tools["varkw"](1, b=2)
    injector.tools["varkw"](a=1, b=2)
    injector.tools["varkw"](1, 5, 6, b=2)
    assert [c.args for c in calls(injector.steps)] == [
        {"a": 1, "b": 2}, {"a": 1, "b": 2}, {"a": 1, "_args": [5, 6], "b": 2}
    ]


def test_recorded_runs_are_always_lines_toolgrade_reads(tmp_path: Any) -> None:
    from toolgrade.loaders.runs import read_line

    deep: Any = "x"
    for _ in range(300):
        deep = [deep]
    tools = {
        "numbers": lambda: {"nan": float("nan"), "inf": float("inf")},
        "text": lambda: {"s": "caf\udce9"},
        "nested": lambda: deep,
    }
    injector = FaultInjector(None, tools)
    for name in tools:
        injector.tools[name]()
    injector.message("user", b"\xff")
    with pytest.raises(ValueError, match="unknown role 'bot'"):
        injector.message("bot", "hi")
    line = injector.to_jsonl_line(case_id="c1", final_answer="caf\udce9")
    line.encode("utf-8")  # writable to a UTF-8 file
    run, problems = read_line(line, tmp_path / "runs.jsonl", 1)
    assert problems == [] and run is not None
    numbers, text, nested = (call.result.content for _, call in run.calls)
    assert numbers == {"nan": "NaN", "inf": "Infinity"}  # not null
    assert text == "{'s': 'caf\\udce9'}"  # its string form, writable as UTF-8
    assert isinstance(nested, str)
