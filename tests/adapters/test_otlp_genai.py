"""GenAI-convention traces read as runs: calls, results, errors, groups, messages, agents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders_otlp import (
    calls,
    export,
    genai_agent,
    genai_chat,
    genai_tool,
    one_run,
    span,
    text,
    write_lines,
)
from toolgrade.loaders.otlp import OtlpStats
from toolgrade.loaders.runs import iter_runs
from toolgrade.models import Message, ToolCall, Trajectory


def _one_run(tmp_path: Path, spans: list[dict], **resource: object) -> Trajectory:
    return one_run(tmp_path, spans, resource)


def test_execute_tool_span_is_a_call_with_name_id_arguments_and_result(tmp_path: Path) -> None:
    run = _one_run(tmp_path, [
        genai_agent("a1", "helpdesk"),
        genai_tool("t1", "lookup_order", {"order_id": "A123"}, '{"status": "delivered"}',
                   call_id="call_1", start=10),
    ])
    (call,) = calls(run)
    assert (call.tool, call.id, call.args) == ("lookup_order", "call_1", {"order_id": "A123"})
    assert call.result is not None and call.result.status == "ok"
    assert call.result.content == '{"status": "delivered"}'
    assert (run.case_id, run.trial, run.agent) == ("c1", 0, "helpdesk")


def test_arguments_recorded_as_a_json_string_are_decoded(tmp_path: Path) -> None:
    run = _one_run(tmp_path, [
        genai_agent("a1", "helpdesk"),
        genai_tool("t1", "refund", '{"order_id": "A1", "amount": 25.0}', "ok"),
    ])
    assert calls(run)[0].args == {"order_id": "A1", "amount": 25.0}


def test_an_argument_string_that_is_not_json_is_kept_raw(tmp_path: Path) -> None:
    raw = '{"order_id": "A1", "amount": '
    run = _one_run(tmp_path, [genai_agent("a1", "x"), genai_tool("t1", "refund", raw, "ok")])
    (call,) = calls(run)
    assert call.unparseable and call.raw_arguments == raw and call.args == {}


def test_failed_tool_span_reads_as_an_error_with_the_status_message(tmp_path: Path) -> None:
    run = _one_run(tmp_path, [
        genai_agent("a1", "x"),
        genai_tool("t1", "lookup_order", {"order_id": "A1"}, start=10,
                   status={"code": 2, "message": "503 Service Unavailable"}),
        genai_tool("t2", "lookup_order", {"order_id": "A1"}, '{"ok": true}', start=30),
    ])
    failed, retried = calls(run)
    assert failed.failed and failed.result is not None
    assert failed.result.content == "503 Service Unavailable"
    assert not retried.failed


def test_error_type_alone_marks_a_failure(tmp_path: Path) -> None:
    tool = genai_tool("t1", "lookup_order", {"order_id": "A1"}, "timed out")
    tool["attributes"].append({"key": "error.type", "value": {"stringValue": "timeout"}})
    run = _one_run(tmp_path, [genai_agent("a1", "x"), tool])
    assert calls(run)[0].failed


def test_status_ok_wins_over_content_that_reads_as_an_error(tmp_path: Path) -> None:
    tool = genai_tool("t1", "search_kb", {"q": "x"}, "Error codes explained", status={"code": 1})
    run = _one_run(tmp_path, [genai_agent("a1", "x"), tool])
    assert not calls(run)[0].failed


def test_overlapping_tool_spans_under_one_parent_share_a_group(tmp_path: Path) -> None:
    run = _one_run(tmp_path, [
        genai_agent("a1", "x"),
        genai_tool("t1", "lookup_order", {"order_id": "A"}, "{}", start=10, end=50),
        genai_tool("t2", "verify_identity", {"email": "a@b"}, "{}", start=12, end=40),
        genai_tool("t3", "refund", {"order_id": "A"}, "{}", start=60, end=70),
    ])
    first, second, third = calls(run)
    assert first.group is not None and first.group == second.group
    assert third.group is None


def test_sequential_tool_spans_are_not_a_group(tmp_path: Path) -> None:
    run = _one_run(tmp_path, [
        genai_agent("a1", "x"),
        genai_tool("t1", "lookup_order", {"order_id": "A"}, "{}", start=10, end=20),
        genai_tool("t2", "lookup_order", {"order_id": "B"}, "{}", start=20, end=30),
    ])
    assert [c.group for c in calls(run)] == [None, None]


def test_calls_are_ordered_by_start_time_not_file_order(tmp_path: Path) -> None:
    run = _one_run(tmp_path, [
        genai_tool("t2", "refund", {"order_id": "A"}, "{}", start=50),
        genai_agent("a1", "x"),
        genai_tool("t1", "lookup_order", {"order_id": "A"}, "{}", start=10),
    ])
    assert run.tool_names == ["lookup_order", "refund"]


def test_chat_spans_give_the_user_input_and_the_final_reply_around_thecalls(
    tmp_path: Path,
) -> None:
    user = text("user", "Refund order A1")
    asked = {"role": "assistant", "parts": [
        {"type": "tool_call", "id": "call_1", "name": "lookup_order",
         "arguments": {"order_id": "A1"}}]}
    answered = {"role": "tool", "parts": [
        {"type": "tool_call_response", "id": "call_1", "response": "{}"}]}
    run = _one_run(tmp_path, [
        genai_agent("a1", "x"),
        genai_chat("m1", [user], [asked], start=0, end=10),
        genai_tool("t1", "lookup_order", {"order_id": "A1"}, "{}", call_id="call_1", start=11),
        genai_chat("m2", [user, asked, answered], [text("assistant", "Refunded.")],
                   start=30, end=40),
    ])
    assert run.steps[0] == Message(role="user", content="Refund order A1")
    assert isinstance(run.steps[1], ToolCall)
    assert run.steps[2] == Message(role="assistant", content="Refunded.")
    assert len(run.steps) == 3  # the history repeated in m2 is not read twice
    assert run.final_answer() == (2, "Refunded.")


def test_older_prompt_and_completion_events_give_the_messages(tmp_path: Path) -> None:
    chat = span("m1", "chat gpt-4", {"gen_ai.system": "openai", "gen_ai.request.model": "gpt-4"},
                parent="a1", start=50, events=[
        {"name": "gen_ai.content.prompt", "attributes": [
            {"key": "gen_ai.prompt", "value": {"stringValue": json.dumps(
                [{"role": "user", "content": "Where is my parcel?"}])}}]},
        {"name": "gen_ai.content.completion", "attributes": [
            {"key": "gen_ai.completion", "value": {"stringValue": json.dumps(
                [{"role": "assistant", "content": "It is in transit."}])}}]},
    ])
    run = _one_run(tmp_path, [genai_agent("a1", "x"), chat])
    assert run.steps == [
        Message(role="user", content="Where is my parcel?"),
        Message(role="assistant", content="It is in transit."),
    ]


def test_flattened_prompt_attributes_and_python_literal_prompts_are_read(tmp_path: Path) -> None:
    flat = span("m1", "openai.chat", {
        "gen_ai.system": "openai",
        "gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "Hi",
        "gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": "Hello!",
    }, parent="a1", start=10)
    literal = span("m2", "chat", {
        "gen_ai.operation.name": "chat",
        "gen_ai.prompt": "[{'role': 'user', 'content': 'Bye'}]",
        "gen_ai.completion": "[{'role': 'assistant', 'content': 'Goodbye!'}]",
    }, parent="a1", start=30)
    run = _one_run(tmp_path, [genai_agent("a1", "x"), flat, literal])
    assert [(m.role, m.content) for m in run.steps if isinstance(m, Message)] == [
        ("user", "Hi"), ("assistant", "Hello!"), ("user", "Bye"), ("assistant", "Goodbye!"),
    ]


def test_structured_messages_and_system_instructions_are_read(tmp_path: Path) -> None:
    chat = span("m1", "chat", {
        "gen_ai.operation.name": "chat",
        "gen_ai.system_instructions": [{"type": "text", "content": "Be brief."}],
        "gen_ai.input.messages": [{"role": "user", "parts": [{"type": "text", "content": "Hi"}]}],
        "gen_ai.output.messages": [
            {"role": "assistant", "parts": [{"type": "text", "content": "Hello"}]},
            {"role": "assistant", "parts": [{"type": "text", "content": "second choice"}]},
        ],
    }, parent="a1", start=10)
    run = _one_run(tmp_path, [genai_agent("a1", "x"), chat])
    assert [(m.role, m.content) for m in run.steps if isinstance(m, Message)] == [
        ("system", "Be brief."), ("user", "Hi"), ("assistant", "Hello"),
    ]


def test_agent_span_messages_stand_in_when_no_chat_span_records_any(tmp_path: Path) -> None:
    agent = genai_agent(
        "a1", "x",
        **{"gen_ai.input.messages": json.dumps([text("user", "Cancel B456")]),
           "gen_ai.output.messages": json.dumps([text("assistant", "Cancelled.")])},
    )
    run = _one_run(tmp_path, [agent, genai_tool("t1", "cancel_order", {"id": "B456"}, "{}")])
    assert [type(s).__name__ for s in run.steps] == ["Message", "ToolCall", "Message"]


def test_two_agents_only_the_outermost_agents_calls_are_graded(tmp_path: Path) -> None:
    spans = [
        genai_agent("a1", "triage", start=0, end=1000),
        genai_tool("t1", "lookup_order", {"order_id": "A"}, "{}", parent="a1", start=10),
        # triage hands the refund to a nested agent through a tool call of its own
        genai_tool("t2", "ask_billing_agent", {"task": "refund A"}, "done", parent="a1",
                   start=100, end=500),
        genai_agent("a2", "billing", parent="t2", start=110, end=490, case_id=None),
        genai_tool("t3", "refund", {"order_id": "A"}, "{}", parent="a2", start=120),
        genai_chat("m2", [text("user", "refund A")], [text("assistant", "ok")], parent="a2",
                   start=200),
    ]
    path = write_lines(tmp_path / "t.jsonl", [export(spans)])
    stats = OtlpStats()
    ((_, _, run, problems),) = list(iter_runs([path], stats=stats))
    assert problems == [] and run is not None
    assert run.agent == "triage"
    assert run.tool_names == ["lookup_order", "ask_billing_agent"]
    assert not any(isinstance(s, Message) for s in run.steps)  # billing's chat is its own
    assert stats.left_out == {"another agent": 3}
    assert (stats.traces, stats.spans, stats.tool_calls) == (1, 6, 2)


def test_without_an_agent_name_the_service_name_is_the_agent(tmp_path: Path) -> None:
    spans = [
        span("r1", "handle", {"toolgrade.case_id": "c1"}),
        genai_tool("t1", "lookup_order", {"order_id": "A"}, "{}", parent="r1"),
    ]
    run = _one_run(tmp_path, spans, **{"service.name": "support-bot"})
    assert run.agent == "support-bot" and run.tool_names == ["lookup_order"]


@pytest.mark.parametrize("kind", ["embeddings", "create_agent"])
def test_other_genai_operations_are_left_out_and_counted(tmp_path: Path, kind: str) -> None:
    spans = [
        genai_agent("a1", "x"),
        span("e1", kind, {"gen_ai.operation.name": kind}, parent="a1"),
        span("h1", "GET /orders", {"http.request.method": "GET"}, parent="a1"),
    ]
    path = write_lines(tmp_path / "t.jsonl", [export(spans)])
    stats = OtlpStats()
    list(iter_runs([path], stats=stats))
    assert stats.left_out == {f"gen_ai {kind}": 1, "no GenAI or OpenInference kind": 1}


def test_with_no_tool_span_the_calls_the_model_asked_for_are_read(tmp_path: Path) -> None:
    user = text("user", "Refund F100 and F200")
    asked = {"role": "assistant", "parts": [
        {"type": "tool_call", "id": "call_1", "name": "refund", "arguments": {"order_id": "F100"}},
        {"type": "tool_call", "id": "call_2", "name": "refund", "arguments": '{"order_id": "F2'},
    ]}
    answered = {"role": "tool", "parts": [
        {"type": "tool_call_response", "id": "call_1", "response": "refunded"},
        {"type": "tool_call_response", "id": "call_2", "response": "Error: bad arguments"},
    ]}
    run = _one_run(tmp_path, [
        genai_agent("a1", "x"),
        genai_chat("m1", [user], [asked], start=0, end=10),
        genai_chat("m2", [user, asked, answered], [text("assistant", "Done.")], start=20, end=30),
    ])
    first, second = calls(run)
    assert (first.tool, first.id, first.args) == ("refund", "call_1", {"order_id": "F100"})
    assert first.result is not None and first.result.content == "refunded"
    assert second.unparseable and second.failed  # the answer's text reads as an error
    assert first.group is not None and first.group == second.group
    assert [type(s).__name__ for s in run.steps] == ["Message", "ToolCall", "ToolCall", "Message"]


def test_tool_spans_under_no_agent_in_a_trace_with_one_are_left_out(tmp_path: Path) -> None:
    spans = [
        span("r1", "POST /chat", {"http.request.method": "POST"}),
        genai_agent("a1", "x", parent="r1", start=10, end=500),
        genai_tool("t1", "lookup_order", {"order_id": "A"}, "{}", parent="a1", start=20),
        genai_tool("t2", "audit_log", {"event": "chat"}, "{}", parent="r1", start=600),
    ]
    path = write_lines(tmp_path / "t.jsonl", [export(spans)])
    stats = OtlpStats()
    ((_, _, run, _),) = list(iter_runs([path], stats=stats))
    assert run is not None and run.tool_names == ["lookup_order"]
    assert stats.left_out == {"outside": 1, "no GenAI or OpenInference kind": 1}


def test_older_pydantic_ai_tool_spans_are_read(tmp_path: Path) -> None:
    running = span("t1", "running tool", {
        "gen_ai.tool.name": "multiply", "gen_ai.tool.call.id": "call_C",
        "tool_arguments": '{"a": 15, "b": 7}', "tool_response": "105",
        "logfire.msg": "running tool: multiply",
    }, parent="r1", start=10)
    run = _one_run(tmp_path, [span("r1", "agent run", {"toolgrade.case_id": "c1"}), running])
    (call,) = calls(run)
    assert (call.tool, call.id, call.args) == ("multiply", "call_C", {"a": 15, "b": 7})
    assert call.result is not None and call.result.content == "105"
