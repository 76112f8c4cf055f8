"""Adapters from recorded chat formats to the normalised steps (docs/case-format.md, Runs)."""

from __future__ import annotations

from typing import Literal

from toolgrade.adapters.anthropic_messages import CALL_BLOCKS, anthropic_to_steps, is_result_block
from toolgrade.adapters.common import AdapterError, build_call, decode_arguments
from toolgrade.adapters.mcp_jsonrpc import is_jsonrpc, jsonrpc_to_steps
from toolgrade.adapters.openai_messages import openai_to_steps
from toolgrade.jsonio.values import JsonValue
from toolgrade.models import Step

MessageFormat = Literal["openai", "anthropic", "mcp"]


def detect_format(messages: list[JsonValue]) -> MessageFormat:
    """MCP when any message is a JSON-RPC message; Anthropic when any content block is a call
    or a result (tool_use, tool_result, server_tool_use, web_search_tool_result, ...); OpenAI
    otherwise."""
    if is_jsonrpc(messages):
        return "mcp"
    for msg in messages:
        content = msg.get("content") if isinstance(msg, dict) else None
        if isinstance(content, list) and any(
            isinstance(b, dict) and (b.get("type") in CALL_BLOCKS or is_result_block(b.get("type")))
            for b in content
        ):
            return "anthropic"
    return "openai"


def messages_to_steps(
    messages: list[JsonValue], fmt: MessageFormat | None = None
) -> list[Step]:
    """Normalised steps from chat messages in the named or detected format."""
    chosen = fmt or detect_format(messages)
    if chosen == "mcp":
        return jsonrpc_to_steps(messages)
    return anthropic_to_steps(messages) if chosen == "anthropic" else openai_to_steps(messages)


__all__ = [
    "AdapterError",
    "MessageFormat",
    "build_call",
    "decode_arguments",
    "detect_format",
    "messages_to_steps",
]
