"""MCP spans in OTLP exports: OpenInference tool spans with MCP context propagation
(openinference-instrumentation-mcp) and spans of the OpenTelemetry MCP conventions."""

from __future__ import annotations

from pathlib import Path

from builders_otlp import calls, export, oi_agent, oi_tool, span, write_lines
from toolgrade.loaders.otlp import OtlpStats
from toolgrade.loaders.runs import iter_runs
from toolgrade.models import Trajectory

CASE = {"toolgrade.case_id": "c1"}


def _run_and_left_out(tmp_path: Path, spans: list[dict]) -> tuple[Trajectory, dict[str, int]]:
    path = write_lines(tmp_path / "traces.jsonl", [export(spans, CASE)])
    stats = OtlpStats()
    ((_, _, run, problems),) = list(iter_runs([path], stats=stats))
    assert problems == [] and run is not None
    return run, dict(stats.left_out)


def test_the_servers_span_under_the_clients_is_one_call_not_two(tmp_path: Path) -> None:
    # With context propagation the server's TOOL span joins the trace under the client's.
    run, left_out = _run_and_left_out(tmp_path, [
        oi_agent("a1", "helpdesk"),
        oi_tool("t1", "lookup_order", '{"order_id": "A1"}', '{"status": "ok"}', start=10,
                end=60),
        oi_tool("s1", "lookup_order", '{"order_id": "A1"}', '{"status": "ok"}', parent="t1",
                start=20, end=50),
        oi_tool("t2", "refund", '{"order_id": "A1"}', '{"refund_id": "R1"}', start=100),
    ])
    assert [c.tool for c in calls(run)] == ["lookup_order", "refund"]
    assert left_out == {"mcp server side of a call": 1}


def test_a_tool_that_calls_another_tool_keeps_both_calls(tmp_path: Path) -> None:
    run, left_out = _run_and_left_out(tmp_path, [
        oi_agent("a1", "helpdesk"),
        oi_tool("t1", "plan_refund", "{}", "done", start=10, end=90),
        oi_tool("t2", "lookup_order", '{"order_id": "A1"}', "ok", parent="t1", start=20),
    ])
    assert [c.tool for c in calls(run)] == ["plan_refund", "lookup_order"]
    assert left_out == {}


def _mcp_span(span_id: str, method: str, tool: str | None = None, **attrs: object) -> dict:
    attributes: dict[str, object] = {"mcp.method.name": method, **attrs}
    if tool is not None:
        attributes["gen_ai.tool.name"] = tool
    name = f"{method} {tool}" if tool else method
    return span(span_id, name, attributes, parent="a1", start=int(span_id[1:]) * 10)


def test_mcp_convention_spans_tools_call_is_a_call_and_the_rest_is_left_out(
    tmp_path: Path,
) -> None:
    run, left_out = _run_and_left_out(tmp_path, [
        oi_agent("a1", "helpdesk"),
        _mcp_span("m1", "initialize"),
        _mcp_span("m2", "tools/list"),
        _mcp_span("m3", "tools/call", "lookup_order",
                  **{"gen_ai.tool.call.arguments": '{"order_id": "C7"}',
                     "error.type": "tool_error"}),
        _mcp_span("m4", "tools/call", "lookup_order",
                  **{"gen_ai.tool.call.arguments": '{"order_id": "C7"}',
                     "gen_ai.tool.call.result": '{"status": "lost"}'}),
    ])
    first, second = calls(run)
    assert (first.tool, first.args, first.failed) == ("lookup_order", {"order_id": "C7"}, True)
    assert not second.failed
    assert left_out == {"mcp initialize": 1, "mcp tools/list": 1}
