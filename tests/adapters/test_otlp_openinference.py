"""OpenInference traces (Arize Phoenix) read as runs: TOOL, LLM and AGENT spans."""

from __future__ import annotations

from pathlib import Path

from builders_otlp import calls, export, oi_agent, oi_llm, oi_tool, one_run, span, write_lines
from toolgrade.loaders.otlp import OtlpStats
from toolgrade.loaders.runs import iter_runs
from toolgrade.models import Message, Trajectory

CASE = {"toolgrade.case_id": "c1"}


def _one_run(tmp_path: Path, spans: list[dict], **resource: object) -> Trajectory:
    return one_run(tmp_path, spans, {**CASE, **resource})


def test_tool_span_is_a_call_with_name_id_input_and_output(tmp_path: Path) -> None:
    run = _one_run(tmp_path, [
        oi_agent("a1", "helpdesk"),
        oi_tool("t1", "get_weather", '{"location": "Paris"}', '{"temp": 18}', call_id="call_9",
                start=10, status={"code": 1}),
    ])
    (call,) = calls(run)
    assert (call.tool, call.id, call.args) == ("get_weather", "call_9", {"location": "Paris"})
    assert call.result is not None and call.result.content == '{"temp": 18}'
    assert not call.failed
    assert run.agent == "helpdesk"


def test_input_value_that_is_not_json_is_kept_raw(tmp_path: Path) -> None:
    run = _one_run(tmp_path, [oi_agent("a1"), oi_tool("t1", "search_kb", "router reset", "[]")])
    (call,) = calls(run)
    assert call.unparseable and call.raw_arguments == "router reset"


def test_failed_tool_span_takes_the_exception_message(tmp_path: Path) -> None:
    exception = {"name": "exception", "attributes": [
        {"key": "exception.type", "value": {"stringValue": "TimeoutError"}},
        {"key": "exception.message", "value": {"stringValue": "upstream timed out after 30s"}},
    ]}
    run = _one_run(tmp_path, [
        oi_agent("a1"),
        oi_tool("t1", "lookup_order", '{"order_id": "G555"}', status={"code": "STATUS_CODE_ERROR"},
                events=[exception]),
    ])
    (call,) = calls(run)
    assert call.failed and call.result is not None
    assert call.result.content == "upstream timed out after 30s"


def test_overlapping_tool_spans_share_a_group_and_other_parents_do_not(tmp_path: Path) -> None:
    run = _one_run(tmp_path, [
        oi_agent("a1"),
        span("c1", "chain", {"openinference.span.kind": "CHAIN"}, parent="a1", start=5, end=90),
        oi_tool("t1", "refund", '{"order_id": "F100"}', "{}", parent="c1", start=10, end=40),
        oi_tool("t2", "refund", '{"order_id": "F200"}', "{}", parent="c1", start=10, end=30),
        # overlaps in time but under another parent: not issued together
        oi_tool("t3", "send_email", '{"to": "kim"}', "{}", parent="a1", start=20, end=35),
    ])
    f100, f200, email = calls(run)
    assert f100.group is not None and f100.group == f200.group
    assert email.group is None
    assert run.tool_names == ["refund", "refund", "send_email"]


def test_llm_spans_give_messages_from_flattened_attributes(tmp_path: Path) -> None:
    run = _one_run(tmp_path, [
        oi_agent("a1"),
        oi_llm("m1", [("system", "Be kind."), ("user", "Reset my password")], None, start=0,
               end=10, tool_calls=(("call_1", "reset_password", '{"email": "sam"}'),)),
        oi_tool("t1", "reset_password", '{"email": "sam"}', '{"sent": true}', start=11),
        oi_llm("m2", [("system", "Be kind."), ("user", "Reset my password")], "Link sent.",
               start=30, end=40),
    ])
    assert [(type(s).__name__, getattr(s, "role", None)) for s in run.steps] == [
        ("Message", "system"), ("Message", "user"), ("ToolCall", None), ("Message", "assistant"),
    ]
    assert run.final_answer() == (3, "Link sent.")


def test_message_contents_parts_are_joined(tmp_path: Path) -> None:
    llm = span("m1", "llm", {
        "openinference.span.kind": "LLM",
        "llm.input_messages.0.message.role": "user",
        "llm.input_messages.0.message.contents.0.message_content.type": "text",
        "llm.input_messages.0.message.contents.0.message_content.text": "Where is",
        "llm.input_messages.0.message.contents.1.message_content.type": "image",
        "llm.input_messages.0.message.contents.2.message_content.type": "text",
        "llm.input_messages.0.message.contents.2.message_content.text": "my parcel?",
    }, parent="a1")
    run = _one_run(tmp_path, [oi_agent("a1"), llm])
    assert run.steps == [Message(role="user", content="Where is\nmy parcel?")]


def test_agent_input_and_output_stand_in_for_messages(tmp_path: Path) -> None:
    agent = oi_agent("a1", **{"input.value": "Cancel B456", "output.value": "Cancelled."})
    run = _one_run(tmp_path, [agent, oi_tool("t1", "cancel_order", '{"id": "B456"}', "{}",
                                             start=10)])
    assert run.steps[0] == Message(role="user", content="Cancel B456")
    assert run.steps[-1] == Message(role="assistant", content="Cancelled.")


def test_two_agents_nested_agent_calls_are_left_out_and_counted(tmp_path: Path) -> None:
    spans = [
        oi_agent("a1", "router", start=0, end=1000),
        oi_tool("t1", "lookup_order", '{"order_id": "A"}', "{}", parent="a1", start=10),
        oi_agent("a2", "researcher", parent="a1", start=100, end=500),
        oi_tool("t2", "search_kb", '{"q": "returns"}', "[]", parent="a2", start=110),
        oi_llm("m2", [("user", "find returns policy")], "30 days", parent="a2", start=200),
        span("r1", "retrieve", {"openinference.span.kind": "RETRIEVER"}, parent="a2", start=300),
    ]
    path = write_lines(tmp_path / "t.jsonl", [export(spans, CASE)])
    stats = OtlpStats()
    ((_, _, run, problems),) = list(iter_runs([path], stats=stats))
    assert problems == [] and run is not None
    assert (run.agent, run.tool_names) == ("router", ["lookup_order"])
    assert run.steps == [calls(run)[0]]
    assert stats.left_out == {"another agent": 3, "openinference RETRIEVER": 1}


def test_the_resource_service_name_names_an_unnamed_agent(tmp_path: Path) -> None:
    run = _one_run(tmp_path, [oi_agent("a1"), oi_tool("t1", "x", "{}", "{}")],
                   **{"service.name": "weak-agent"})
    assert run.agent == "weak-agent"


def test_with_no_tool_span_the_calls_the_llm_asked_for_are_read(tmp_path: Path) -> None:
    answer = oi_llm("m2", [("user", "Track E321")], "In transit.", start=20, end=30)
    answer["attributes"] += [
        {"key": "llm.input_messages.1.message.role", "value": {"stringValue": "tool"}},
        {"key": "llm.input_messages.1.message.tool_call_id", "value": {"stringValue": "c1"}},
        {"key": "llm.input_messages.1.message.content", "value": {"stringValue": "in transit"}},
    ]
    run = _one_run(tmp_path, [
        oi_agent("a1"),
        oi_llm("m1", [("user", "Track E321")], None, start=0, end=10,
               tool_calls=(("c1", "get_shipping_status", '{"tracking_id": "TRK-1"}'),)),
        answer,
    ])
    (call,) = calls(run)
    assert (call.tool, call.id, call.args) == ("get_shipping_status", "c1",
                                               {"tracking_id": "TRK-1"})
    assert call.result is not None and call.result.content == "in transit"
    assert run.final_answer() == (2, "In transit.")
