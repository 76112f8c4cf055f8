"""Anthropic messages (`tool_use` / `tool_result` content blocks) to normalised steps."""

from __future__ import annotations

from typing import Any

from toolgrade.adapters.common import (
    AdapterError,
    PendingCall,
    make_result,
    string_id,
    text_of,
)
from toolgrade.models import Message, Step


def _blocks(msg: dict[str, Any]) -> list[Any]:
    content = msg.get("content")
    if isinstance(content, list):
        return content
    return [{"type": "text", "text": content}] if content else []


def anthropic_to_steps(messages: list[Any]) -> list[Step]:
    """Convert Anthropic messages; a `tool_result` attaches to its `tool_use` by id."""
    items: list[Message | PendingCall] = []
    by_id: dict[str, PendingCall] = {}
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict) or not isinstance(msg.get("role"), str):
            raise AdapterError(f"messages[{i}]", "a message needs a string 'role'")
        blocks = _blocks(msg)
        uses = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"]
        group: int | str | None = f"m{i}" if len(uses) > 1 else None
        texts: list[str] = []
        for j, block in enumerate(blocks):
            where = f"messages[{i}].content[{j}]"
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text":
                texts.append(str(block.get("text") or ""))
            elif kind == "tool_use":
                if not isinstance(block.get("name"), str):
                    raise AdapterError(f"{where}.name", "a tool_use block needs a name")
                call_id = string_id(block.get("id"), f"{where}.id")
                call = PendingCall(block["name"], block.get("input"), call_id, group)
                _flush(items, msg["role"], texts)
                items.append(call)
                if call.id:
                    by_id[call.id] = call
            elif kind == "tool_result":
                use_id = string_id(block.get("tool_use_id"), f"{where}.tool_use_id")
                target = by_id.get(use_id or "")
                if target is None:
                    raise AdapterError(f"{where}.tool_use_id", "matches no earlier tool_use")
                flag = block.get("is_error")
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
