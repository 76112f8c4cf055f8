"""Builders for OTLP JSON trace exports written as the specifications describe them.

GenAI spans follow the OpenTelemetry GenAI semantic conventions (gen-ai-spans.md: `execute_tool`
spans with `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.call.arguments` / `.result`;
`invoke_agent` with `gen_ai.agent.name`; messages in `gen_ai.input.messages` /
`gen_ai.output.messages` as role + parts). OpenInference spans follow its semantic conventions
(`openinference.span.kind`, `tool.name`, `tool_call.id`, `input.value`, `output.value`,
`llm.input_messages.N.message.role` / `.content`). The envelope is the OTLP protobuf JSON
mapping: AnyValue objects, nanosecond times as strings, hex ids.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolgrade.loaders import load_runs
from toolgrade.models import ToolCall, Trajectory

MS = 1_000_000
TRACE = "5b8efff798038103d269b633813fc60c"


def any_value(v: Any) -> dict[str, Any]:
    """A plain value as an AnyValue (dicts as kvlistValue, lists as arrayValue)."""
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    if isinstance(v, str):
        return {"stringValue": v}
    if isinstance(v, list):
        return {"arrayValue": {"values": [any_value(x) for x in v]}}
    if isinstance(v, dict):
        return {"kvlistValue": {"values": key_values(v)}}
    raise TypeError(v)


def key_values(attrs: dict[str, Any]) -> list[dict[str, Any]]:
    """Attributes as OTLP `{key, value}` items."""
    return [{"key": k, "value": any_value(v)} for k, v in attrs.items()]


def span(
    span_id: str,
    name: str,
    attrs: dict[str, Any],
    *,
    parent: str | None = None,
    start: int = 0,
    end: int | None = None,
    trace: str = TRACE,
    status: dict[str, Any] | None = None,
    events: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """One span; `start` and `end` in milliseconds from an arbitrary origin."""
    out: dict[str, Any] = {
        "traceId": trace,
        "spanId": span_id,
        "name": name,
        "kind": 1,
        "startTimeUnixNano": str(1_700_000_000_000 * MS + start * MS),
        "endTimeUnixNano": str(1_700_000_000_000 * MS + (start + 10 if end is None else end) * MS),
        "attributes": key_values(attrs),
    }
    if parent is not None:
        out["parentSpanId"] = parent
    if status is not None:
        out["status"] = status
    if events is not None:
        out["events"] = events
    return out


def export(spans: list[dict[str, Any]], resource: dict[str, Any] | None = None) -> dict[str, Any]:
    """One ExportTraceServiceRequest holding `spans` under one resource."""
    res = {"service.name": "helpdesk-api", **(resource or {})}
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": key_values(res)},
                "scopeSpans": [{"scope": {"name": "test"}, "spans": spans}],
            }
        ]
    }


def write_lines(path: Path, exports: list[Any]) -> Path:
    """One export per line (strings written verbatim, for malformed lines)."""
    lines = [e if isinstance(e, str) else json.dumps(e) for e in exports]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def one_run(folder: Path, spans: list[dict[str, Any]], resource: dict[str, Any]) -> Trajectory:
    """The single run of an export of `spans` written into `folder`."""
    path = write_lines(folder / "traces.jsonl", [export(spans, resource)])
    (run,) = load_runs([path])
    return run


def calls(run: Trajectory) -> list[ToolCall]:
    """The run's tool calls, in order."""
    return [call for _, call in run.calls]


# --- GenAI ---------------------------------------------------------------------------------


def genai_agent(span_id: str, agent: str, *, parent: str | None = None, start: int = 0,
                end: int = 1000, case_id: str | None = "c1", **extra: Any) -> dict[str, Any]:
    attrs: dict[str, Any] = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": agent}
    if case_id is not None:
        attrs["toolgrade.case_id"] = case_id
    return span(span_id, f"invoke_agent {agent}", {**attrs, **extra}, parent=parent,
                start=start, end=end)


def genai_tool(span_id: str, tool: str, arguments: Any, result: Any = None, *,
               parent: str | None = "a1", start: int = 0, end: int | None = None,
               call_id: str | None = None, status: dict[str, Any] | None = None,
               **extra: Any) -> dict[str, Any]:
    attrs: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": tool,
        "gen_ai.tool.type": "function",
        "gen_ai.tool.call.arguments": arguments,
    }
    if call_id is not None:
        attrs["gen_ai.tool.call.id"] = call_id
    if result is not None:
        attrs["gen_ai.tool.call.result"] = result
    return span(span_id, f"execute_tool {tool}", {**attrs, **extra}, parent=parent,
                start=start, end=end, status=status)


def genai_chat(span_id: str, inputs: list[dict[str, Any]], outputs: list[dict[str, Any]], *,
               parent: str | None = "a1", start: int = 0, end: int | None = None
               ) -> dict[str, Any]:
    attrs = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.input.messages": json.dumps(inputs),
        "gen_ai.output.messages": json.dumps(outputs),
    }
    return span(span_id, "chat gpt-4o", attrs, parent=parent, start=start, end=end)


def text(role: str, content: str) -> dict[str, Any]:
    """A GenAI message of one text part."""
    return {"role": role, "parts": [{"type": "text", "content": content}]}


# --- OpenInference -------------------------------------------------------------------------


def oi_agent(span_id: str, name: str | None = None, *, parent: str | None = None,
             start: int = 0, end: int = 1000, **extra: Any) -> dict[str, Any]:
    attrs: dict[str, Any] = {"openinference.span.kind": "AGENT", **extra}
    if name is not None:
        attrs["agent.name"] = name
    return span(span_id, name or "agent", attrs, parent=parent, start=start, end=end)


def oi_tool(span_id: str, tool: str, input_value: str, output_value: str | None = None, *,
            parent: str | None = "a1", start: int = 0, end: int | None = None,
            call_id: str | None = None, status: dict[str, Any] | None = None,
            events: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    attrs: dict[str, Any] = {
        "openinference.span.kind": "TOOL",
        "tool.name": tool,
        "input.value": input_value,
        "input.mime_type": "application/json",
    }
    if output_value is not None:
        attrs["output.value"] = output_value
    if call_id is not None:
        attrs["tool_call.id"] = call_id
    return span(span_id, tool, attrs, parent=parent, start=start, end=end, status=status,
                events=events)


def oi_llm(span_id: str, inputs: list[tuple[str, str]], output: str | None, *,
           parent: str | None = "a1", start: int = 0, end: int | None = None,
           tool_calls: tuple[tuple[str, str, str], ...] = ()) -> dict[str, Any]:
    attrs: dict[str, Any] = {"openinference.span.kind": "LLM", "llm.model_name": "gpt-4o"}
    for i, (role, content) in enumerate(inputs):
        attrs[f"llm.input_messages.{i}.message.role"] = role
        attrs[f"llm.input_messages.{i}.message.content"] = content
    attrs["llm.output_messages.0.message.role"] = "assistant"
    if output is not None:
        attrs["llm.output_messages.0.message.content"] = output
    for j, (call_id, name, arguments) in enumerate(tool_calls):
        prefix = f"llm.output_messages.0.message.tool_calls.{j}.tool_call."
        attrs[prefix + "id"] = call_id
        attrs[prefix + "function.name"] = name
        attrs[prefix + "function.arguments"] = arguments
    return span(span_id, "ChatOpenAI", attrs, parent=parent, start=start, end=end)
