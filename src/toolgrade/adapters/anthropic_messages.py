"""Anthropic messages (`tool_use` / `tool_result` content blocks) to normalised steps."""

from __future__ import annotations

from collections import Counter
from typing import cast

from toolgrade.adapters.chat_format import AnthropicBlock, AnthropicMessage
from toolgrade.adapters.common import (
    AdapterError,
    PendingCall,
    check_role,
    error_flag,
    make_result,
    string_id,
    text_of,
)
from toolgrade.jsonio.values import JsonObject, JsonValue
from toolgrade.models import Message, Step

#: Blocks that are calls: the client's tools, and those the API ran itself (`server_tool_use`:
#: web search, web fetch, code execution) or on an MCP server (`mcp_tool_use`).
CALL_BLOCKS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})


def is_result_block(kind: JsonValue) -> bool:
    """`tool_result`, `mcp_tool_result` and the server tools' `web_search_tool_result` & co."""
    return isinstance(kind, str) and kind.endswith("tool_result")


def _server_error(block: AnthropicBlock) -> bool | None:
    """A server tool's error: its content is `{"type": "web_search_tool_result_error", ...}`."""
    content = block.get("content")
    if isinstance(content, dict) and str(content.get("type", "")).endswith("_error"):
        return True
    return None


def _groups(blocks: list[JsonValue], index: int) -> list[str | None]:
    """For each block of message `index`, the parallel group of its call: None for a block
    that is no call, or for a call issued alone.

    Calls answered in a later message were issued together. A server or MCP tool's result
    comes inside the same assistant message, and the model saw it before going on: a result
    block ends the batch, so calls on either side of it are not parallel.
    """
    batches: list[int | None] = []
    batch = 0
    for block in blocks:
        kind = block.get("type") if isinstance(block, dict) else None
        batches.append(batch if kind in CALL_BLOCKS else None)
        if is_result_block(kind):
            batch += 1
    sizes = Counter(b for b in batches if b is not None)
    return [
        None if b is None or sizes[b] < 2 else (f"m{index}" if b == 0 else f"m{index}.{b}")
        for b in batches
    ]


def _refuse_openai_calls(msg: JsonObject, index: int) -> None:
    """OpenAI call carriers in a run whose `format` says "anthropic": read here, the calls and
    their results would be dropped (or kept as plain text)."""
    where = None
    if msg.get("tool_calls") or msg.get("function_call"):
        where = f"messages[{index}].{'tool_calls' if msg.get('tool_calls') else 'function_call'}"
    elif msg["role"] in ("tool", "function"):
        where = f"messages[{index}].role"
    if where is not None:
        raise AdapterError(
            where,
            "OpenAI chat format in an Anthropic run: set `format` to 'openai' or leave it out;"
            " its calls would be lost",
        )


def _blocks(msg: AnthropicMessage) -> list[JsonValue]:
    content = msg.get("content")
    if isinstance(content, list):
        return content
    text: JsonValue = {"type": "text", "text": content}
    return [text] if content else []


def anthropic_to_steps(messages: list[JsonValue]) -> list[Step]:
    """Convert Anthropic messages; a `tool_result` attaches to its `tool_use` by id."""
    items: list[Message | PendingCall] = []
    by_id: dict[str, PendingCall] = {}
    for i, raw in enumerate(messages):
        value = check_role(raw, i)
        _refuse_openai_calls(value, i)
        msg = cast(AnthropicMessage, value)
        blocks = _blocks(msg)
        groups = _groups(blocks, i)
        texts: list[str] = []
        for j, entry in enumerate(blocks):
            if not isinstance(entry, dict):
                continue  # no block type: nothing to read
            where = f"messages[{i}].content[{j}]"
            block = cast(AnthropicBlock, entry)
            kind = block.get("type")
            group = groups[j]
            if kind == "text":
                texts.append(str(block.get("text") or ""))
            elif kind in CALL_BLOCKS:
                if not isinstance(name := block.get("name"), str):
                    raise AdapterError(f"{where}.name", f"a {kind} block needs a name")
                call_id = string_id(block.get("id"), f"{where}.id")
                call = PendingCall(
                    name, block.get("input"), call_id, group, where=f"{where}.input"
                )
                _flush(items, msg["role"], texts)
                items.append(call)
                if call.id:
                    by_id[call.id] = call
            elif is_result_block(kind):
                use_id = string_id(block.get("tool_use_id"), f"{where}.tool_use_id")
                target = by_id.get(use_id or "")
                if target is None:
                    raise AdapterError(f"{where}.tool_use_id", "matches no earlier tool_use")
                flag = error_flag(block.get("is_error"), f"{where}.is_error")
                flag = _server_error(block) if flag is None else flag
                target.result = make_result(
                    text_of(block.get("content")), None if flag is None else bool(flag)
                )
        _flush(items, msg["role"], texts)
    return [item.build() if isinstance(item, PendingCall) else item for item in items]


def _flush(items: list[Message | PendingCall], role: str, texts: list[str]) -> None:
    text = "\n".join(t for t in texts if t)
    if text:
        items.append(Message(role=role, content=text))
    texts.clear()
