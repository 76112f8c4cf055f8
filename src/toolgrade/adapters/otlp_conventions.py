"""What a span means under the OpenTelemetry GenAI conventions and under OpenInference.

Both conventions are read, old and new attribute names alike (docs/otel.md has the mapping):

- GenAI: `gen_ai.operation.name` (`execute_tool`, `chat` / `text_completion` /
  `generate_content`, `invoke_agent`), `gen_ai.tool.name`, `gen_ai.tool.call.id`,
  `gen_ai.tool.call.arguments` / `.result`, messages in `gen_ai.input.messages` /
  `gen_ai.output.messages` (parts) or the older `gen_ai.prompt` / `gen_ai.completion`
  (attributes, `gen_ai.content.prompt` / `.completion` events, or flattened
  `gen_ai.prompt.N.role` as OpenLLMetry writes them), `gen_ai.agent.name`.
- OpenInference: `openinference.span.kind` (`TOOL`, `LLM`, `AGENT`), `tool.name`,
  `tool_call.id`, `input.value` / `output.value`, `llm.input_messages.N.message.role` /
  `.content` / `.contents.M.message_content.text`, `llm.output_messages...`, `agent.name`.
- MCP: `mcp.method.name` (`tools/call` is a call, other methods are not) with the GenAI tool
  attributes.

Message contents are judged data: they are only read as text, never interpreted.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Sequence
from typing import Literal

from toolgrade.adapters.common import AdapterError, make_result, string_id, text_of
from toolgrade.adapters.otlp_spans import Span
from toolgrade.jsonio.bounds import loads_or_none
from toolgrade.jsonio.values import JsonObject, JsonValue
from toolgrade.models import ToolResult

SpanRole = Literal["tool", "llm", "agent", "other"]
#: A chat message as (role, text).
ChatText = tuple[str, str]

_GENAI_ROLES: dict[str, SpanRole] = {
    "execute_tool": "tool",
    "chat": "llm",
    "text_completion": "llm",
    "generate_content": "llm",
    "invoke_agent": "agent",
}
_OPENINFERENCE_ROLES: dict[str, SpanRole] = {"TOOL": "tool", "LLM": "llm", "AGENT": "agent"}
#: The MCP method whose spans are tool calls (`mcp.method.name`).
MCP_TOOLS_CALL = "tools/call"
#: Attributes of GenAI model calls recorded before `gen_ai.operation.name` existed.
_OLD_GENAI_MODEL_KEYS = ("gen_ai.system", "gen_ai.provider.name", "gen_ai.request.model")


def _first(attrs: JsonObject, *keys: str) -> tuple[str | None, JsonValue]:
    """The first of `keys` the span sets, and its value."""
    for key in keys:
        if key in attrs:
            return key, attrs[key]
    return None, None


def classify(span: Span) -> tuple[SpanRole, str]:
    """The span's role in a run, and the kind it is counted under when it is left out."""
    attrs = span.attributes
    kind = attrs.get("openinference.span.kind")
    if isinstance(kind, str) and kind.upper() in _OPENINFERENCE_ROLES:
        return _OPENINFERENCE_ROLES[kind.upper()], f"openinference {kind.upper()}"
    operation = attrs.get("gen_ai.operation.name")
    if isinstance(operation, str) and operation in _GENAI_ROLES:
        return _GENAI_ROLES[operation], f"gen_ai {operation}"
    method = attrs.get("mcp.method.name")
    if isinstance(method, str):
        # The MCP conventions: a tools/call span is a call; initialize, tools/list, ... are not.
        if method == MCP_TOOLS_CALL:
            return "tool", "mcp tools/call"
        return "other", f"mcp {method}"
    if isinstance(kind, str):
        return "other", f"openinference {kind.upper()}"
    if isinstance(operation, str):
        return "other", f"gen_ai {operation}"
    if "gen_ai.tool.name" in attrs:
        return "tool", "gen_ai execute_tool"
    if any(key in attrs for key in _OLD_GENAI_MODEL_KEYS):
        return "llm", "gen_ai chat"
    return "other", "no GenAI or OpenInference kind"


def agent_name(span: Span) -> str | None:
    """The agent an agent span names (`gen_ai.agent.name`, else OpenInference `agent.name`)."""
    _, name = _first(span.attributes, "gen_ai.agent.name", "agent.name")
    return name if isinstance(name, str) and name else None


def _where(span: Span, key: str) -> str:
    return f"{span.path}.attributes[{key}] (span {span.span_id})"


def tool_name(span: Span) -> str:
    """`gen_ai.tool.name` or `tool.name`, else the span name less its `execute_tool ` (GenAI) or
    `tools/call ` (MCP) prefix."""
    key, name = _first(span.attributes, "gen_ai.tool.name", "tool.name")
    if key is not None:
        if not isinstance(name, str) or not name:
            raise AdapterError(_where(span, key), "a tool name must be a non-empty string")
        return name
    fallback = span.name.removeprefix("execute_tool").removeprefix(MCP_TOOLS_CALL).strip()
    if not fallback:
        raise AdapterError(
            f"{span.path}.attributes (span {span.span_id})",
            "a tool span needs gen_ai.tool.name (GenAI) or tool.name (OpenInference)",
        )
    return fallback


def tool_call_fields(span: Span) -> tuple[str, str | None, JsonValue, ToolResult]:
    """(tool name, call id, raw arguments, result) of a tool span.

    The result is an error when the span's status is ERROR or it sets `error.type`; OK status
    makes it ok; an unset status leaves it to the content, as for chat messages. A failed span
    seldom records a result: its status message (else the exception's, else the error type)
    is the content then.
    """
    attrs = span.attributes
    key, recorded_id = _first(attrs, "gen_ai.tool.call.id", "tool_call.id")
    call_id = string_id(recorded_id, _where(span, key or "gen_ai.tool.call.id"))
    # `tool_arguments` / `tool_response`: pydantic-ai's "running tool" spans before it wrote
    # the GenAI names.
    _, raw_args = _first(attrs, "gen_ai.tool.call.arguments", "input.value", "tool_arguments")
    _, content = _first(attrs, "gen_ai.tool.call.result", "output.value", "tool_response")
    failed = True if "error.type" in attrs else span.status_error
    if content is None and failed:
        content = span.status_message or _exception_message(span) or attrs.get("error.type")
    return tool_name(span), call_id, raw_args, make_result(content, failed)


def _exception_message(span: Span) -> str | None:
    for event in span.events:
        if event.name == "exception":
            message = event.attributes.get("exception.message")
            if isinstance(message, str) and message:
                return message
    return None


#: The longest recorded text tried as a Python literal (judged content: parsing it costs time).
_LITERAL_LIMIT = 1 << 20


def _parse_text(value: JsonValue) -> object:
    """A recorded structure: JSON, or the Python literal some old instrumentations wrote (which
    may hold a tuple or a set: whatever it is, it is only read through `isinstance`)."""
    if not isinstance(value, str):
        return value
    decoded: JsonValue = loads_or_none(value)
    if decoded is not None or value.strip() == "null":
        return decoded
    if len(value) > _LITERAL_LIMIT:
        return value
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return value


def _message_text(message: object) -> str:
    """The text of one message: GenAI `parts`, or an OpenAI-style `content`."""
    if not isinstance(message, dict):
        return message if isinstance(message, str) else ""
    if isinstance(message.get("message"), dict):  # a `choice` wrapping its message
        return _message_text(message["message"])
    parts = message.get("parts")
    if isinstance(parts, list):
        texts = [
            str(p.get("content") or "")
            for p in parts
            if isinstance(p, dict) and p.get("type") == "text"
        ]
        return "\n".join(t for t in texts if t)
    content = text_of(message.get("content"))
    return content if isinstance(content, str) else ""


def _as_messages(value: JsonValue, default_role: str) -> list[ChatText]:
    """Recorded messages as (role, text): tool results and call-only messages are left out
    (the tool spans carry those)."""
    parsed = _parse_text(value)
    if isinstance(parsed, dict):
        parsed = [parsed]
    if isinstance(parsed, str):
        return [(default_role, parsed)] if parsed else []
    if not isinstance(parsed, list):
        return []
    out = []
    for message in parsed:
        role = message.get("role", default_role) if isinstance(message, dict) else default_role
        text = _message_text(message)
        if isinstance(role, str) and role not in ("tool", "function") and text:
            out.append((role, text))
    return out


_INDEXED = re.compile(r"^(\d+)\.(.+)$")


def _flattened(attrs: JsonObject, prefix: str) -> list[JsonObject]:
    """`prefix.N.rest` attributes as one dict of `rest` per N, in N's order."""
    by_index: dict[int, JsonObject] = defaultdict(dict)
    for key, value in attrs.items():
        if key.startswith(prefix + "."):
            match = _INDEXED.match(key[len(prefix) + 1 :])
            if match:
                by_index[int(match.group(1))][match.group(2)] = value
    return [by_index[i] for i in sorted(by_index)]


def _nested(fields: JsonObject, prefix: str) -> list[JsonObject]:
    """The `prefix.M.rest` entries among one flattened message's fields."""
    return _flattened({k: v for k, v in fields.items() if k.startswith(prefix + ".")}, prefix)


def _openinference_messages(attrs: JsonObject, prefix: str,
                            default_role: str) -> list[JsonValue]:
    messages: list[JsonValue] = []
    for fields in _flattened(attrs, prefix):
        content = fields.get("message.content")
        if not isinstance(content, str):
            texts = [
                str(part.get("message_content.text") or "")
                for part in _nested(fields, "message.contents")
                if part.get("message_content.type", "text") == "text"
            ]
            content = "\n".join(t for t in texts if t)
        calls: list[JsonValue] = [
            {
                "id": call.get("tool_call.id"),
                "function": {
                    "name": call.get("tool_call.function.name"),
                    "arguments": call.get("tool_call.function.arguments"),
                },
            }
            for call in _nested(fields, "message.tool_calls")
        ]
        messages.append({
            "role": fields.get("message.role", default_role),
            "content": content,
            "tool_calls": calls,
            "tool_call_id": fields.get("message.tool_call_id"),
        })
    return messages


def _openllmetry_messages(attrs: JsonObject, prefix: str,
                          default_role: str) -> list[JsonValue]:
    return [
        {
            "role": fields.get("role", default_role),
            "content": fields.get("content"),
            "tool_calls": [*_nested(fields, "tool_calls")],
            "tool_call_id": fields.get("tool_call_id"),
        }
        for fields in _flattened(attrs, prefix)
    ]


def _event_attribute(span: Span, event_name: str, key: str) -> JsonValue:
    for event in span.events:
        if event.name == event_name and key in event.attributes:
            return event.attributes[key]
    return None


def _recorded(span: Span, side: Literal["input", "output"]) -> JsonValue:
    """The messages of one side as recorded, in whichever convention the span uses."""
    attrs = span.attributes
    role = "user" if side == "input" else "assistant"
    new_key = f"gen_ai.{side}.messages"
    if new_key in attrs:
        return attrs[new_key]
    openinference = _openinference_messages(attrs, f"llm.{side}_messages", role)
    if openinference:
        return openinference
    old = "gen_ai.prompt" if side == "input" else "gen_ai.completion"
    if old in attrs:
        return attrs[old]
    event = _event_attribute(span, f"gen_ai.content.{old.split('.')[1]}", old)
    if event is not None:
        return event
    return _openllmetry_messages(attrs, old, role)


def _side(span: Span, side: Literal["input", "output"]) -> list[ChatText]:
    return _as_messages(_recorded(span, side), "user" if side == "input" else "assistant")


def _message_dicts(span: Span, side: Literal["input", "output"]) -> list[JsonObject]:
    value = _parse_text(_recorded(span, side))
    items = value if isinstance(value, list) else [value]
    out: list[JsonObject] = []
    for item in items:
        if isinstance(item, dict):
            out.append(item["message"] if isinstance(item.get("message"), dict) else item)
    return out


def _id_text(value: JsonValue) -> str | None:
    return None if value is None else str(value)


def _items(value: object) -> Sequence[object]:
    """The items of a recorded list (a tuple, when it was a Python literal). Nothing else
    recorded there can hold an object: a string's characters, a mapping's keys are none."""
    return value if isinstance(value, list | tuple) else ()


def requested_calls(span: Span) -> list[tuple[str | None, str, JsonValue]]:
    """(call id, tool name, raw arguments) of the calls a model call's reply asks for: GenAI
    `tool_call` parts, or OpenAI-style `tool_calls` (OpenInference and older GenAI)."""
    out: list[tuple[str | None, JsonValue, JsonValue]] = []
    for message in _message_dicts(span, "output")[:1]:
        for part in _items(message.get("parts")):
            if isinstance(part, dict) and part.get("type") == "tool_call":
                out.append((_id_text(part.get("id")), part.get("name"), part.get("arguments")))
        for call in _items(message.get("tool_calls")):
            if isinstance(call, dict):
                nested = call.get("function")
                fn: JsonObject = nested if isinstance(nested, dict) else call
                out.append((_id_text(call.get("id")), fn.get("name"), fn.get("arguments")))
    return [(i, name, args) for i, name, args in out if isinstance(name, str) and name]


def tool_responses(span: Span) -> dict[str, JsonValue]:
    """Call id -> the result a model call was given for it (in its input messages)."""
    out: dict[str, JsonValue] = {}
    for message in _message_dicts(span, "input"):
        for part in _items(message.get("parts")):
            if isinstance(part, dict) and part.get("type") == "tool_call_response":
                answer = part["response"] if "response" in part else part.get("result")
                out[str(part.get("id"))] = answer
        if message.get("role") in ("tool", "function") and message.get("tool_call_id"):
            out[str(message["tool_call_id"])] = text_of(message.get("content"))
    return out


def model_messages(span: Span) -> tuple[list[ChatText], list[ChatText]]:
    """(input messages, output messages) a model-call span records, system instructions first.

    Each output message is one choice; only the first is the reply the agent went on with.
    """
    inputs = _side(span, "input")
    system = span.attributes.get("gen_ai.system_instructions")
    if system is not None:
        parsed = _parse_text(system)
        text = parsed if isinstance(parsed, str) else _message_text({"parts": parsed})
        inputs = ([("system", text)] if text else []) + inputs
    return inputs, _side(span, "output")[:1]


def agent_messages(span: Span) -> tuple[list[ChatText], list[ChatText]]:
    """What an agent span says it was asked and answered: its messages, else (OpenInference)
    its `input.value` and `output.value` text."""
    inputs, outputs = model_messages(span)
    if inputs or outputs:
        return inputs, outputs
    attrs = span.attributes
    asked, answered = attrs.get("input.value"), attrs.get("output.value")
    return (
        [("user", asked)] if isinstance(asked, str) and asked else [],
        [("assistant", answered)] if isinstance(answered, str) and answered else [],
    )
