"""MCP JSON-RPC logs: tools/call requests paired with responses by id, detected with no flag."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders_foundation import write_jsonl
from builders_mcp import call, reply
from toolgrade.adapters import AdapterError, detect_format, messages_to_steps
from toolgrade.errors import InputError
from toolgrade.loaders.runs import load_runs
from toolgrade.models import Message, ToolCall

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}
INIT_REPLY = {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18"}}
NOTE = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _calls(messages: list[object]) -> list[ToolCall]:
    return [s for s in messages_to_steps(messages) if isinstance(s, ToolCall)]  # type: ignore[arg-type]


def test_calls_pair_with_responses_by_id_and_the_rest_is_ignored() -> None:
    log = [INIT, INIT_REPLY, NOTE, call(1, "lookup_order", {"order_id": "A1"}),
           {"jsonrpc": "2.0", "method": "notifications/progress", "params": {}},
           reply(1, {"status": "delivered"})]
    assert detect_format(log) == "mcp"  # type: ignore[arg-type]
    (only,) = _calls(log)
    assert (only.tool, only.args, only.id) == ("lookup_order", {"order_id": "A1"}, "1")
    assert only.result is not None and only.result.status == "ok"
    assert only.result.content == '{"status": "delivered"}'


def test_is_error_and_protocol_errors_are_tool_errors() -> None:
    log = [call(1, "lookup_order", {}), reply(1, "503 Service Unavailable", is_error=True),
           call("b", "refund", {}),
           {"jsonrpc": "2.0", "id": "b", "error": {"code": -32602, "message": "Unknown tool"}}]
    first, second = _calls(log)
    assert first.failed and first.result is not None
    assert first.result.content == "503 Service Unavailable"
    assert second.failed and second.result is not None and second.result.content == "Unknown tool"


def test_calls_in_flight_together_share_a_group_and_keep_request_order() -> None:
    log = [call(1, "a", {}), call(2, "b", {}), reply(2, "B"), reply(1, "A"), call(3, "c", {}),
           reply(3, "C")]
    a, b, c = _calls(log)
    assert a.group == b.group is not None and c.group is None
    assert [a.result.content, b.result.content] == ["A", "B"]  # type: ignore[union-attr]


def test_chat_messages_between_calls_are_kept() -> None:
    log = [{"role": "user", "content": "refund A1"}, call(1, "refund", {}), reply(1, "ok"),
           {"role": "assistant", "content": "Refunded."}]
    steps = messages_to_steps(log)  # type: ignore[arg-type]
    assert isinstance(steps[0], Message) and isinstance(steps[-1], Message)
    assert steps[-1].content == "Refunded."


@pytest.mark.parametrize(("log", "field"), [
    ([{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {}}],
     "messages[0].params.name"),
    ([{"jsonrpc": "1.0", "id": 1, "method": "tools/call"}], "messages[0].jsonrpc"),
    ([call(1, "a", {}), {"jsonrpc": "2.0", "id": 1}], "messages[1].result"),
    ([{"jsonrpc": "2.0"}], "messages[0]"),
    ([call(1, "a", {}), call(1, "b", {})], "messages[1].id"),
])
def test_a_malformed_log_names_the_message(log: list[object], field: str) -> None:
    with pytest.raises(AdapterError) as caught:
        messages_to_steps(log)  # type: ignore[arg-type]
    assert caught.value.field == field


def test_a_run_line_of_jsonrpc_reads_with_no_flag_and_keeps_its_stamp(tmp_path: Path) -> None:
    stamp = {"hash": "sha256:x", "tools": {"refund": "sha256:y"}}
    runs = write_jsonl(tmp_path / "runs.jsonl", [
        {"case_id": "c", "catalogue": stamp, "messages": [call(1, "refund", {}), reply(1, "ok")]}
    ])
    (run,) = load_runs([runs])
    assert run.tool_names == ["refund"]
    assert run.catalogue is not None and run.catalogue.tools == {"refund": "sha256:y"}


def test_a_malformed_log_line_is_one_problem_with_file_and_line(tmp_path: Path) -> None:
    runs = write_jsonl(tmp_path / "runs.jsonl", [
        {"case_id": "c", "messages": [{"jsonrpc": "2.0", "id": 1, "method": "tools/call"}]}
    ])
    with pytest.raises(InputError) as caught:
        load_runs([runs])
    assert str(caught.value).splitlines() == [
        f"{runs}:1: messages[0].params.name: a tools/call request needs a tool name"
    ]
