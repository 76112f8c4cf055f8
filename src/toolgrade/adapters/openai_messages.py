"""OpenAI chat messages (with `tool_calls` and `tool` messages) to normalised steps."""

from __future__ import annotations

from typing import cast

from toolgrade.adapters.anthropic_messages import CALL_BLOCKS, is_result_block
from toolgrade.adapters.chat_format import OpenAiMessage, OpenAiToolCall
from toolgrade.adapters.common import (
    AdapterError,
    PendingCall,
    check_role,
    error_flag,
    make_result,
    string_id,
    text_of,
)
from toolgrade.jsonio.values import JsonValue
from toolgrade.models import Message, Step


def _calls_of(msg: OpenAiMessage, index: int) -> list[PendingCall]:
    calls = msg.get("tool_calls") or []
    if not isinstance(calls, list):
        raise AdapterError(f"messages[{index}].tool_calls", "must be a list")
    group: int | str | None = f"m{index}" if len(calls) > 1 else None
    pending = []
    for j, call in enumerate(calls):
        where = f"messages[{index}].tool_calls[{j}]"
        tool_call = cast(OpenAiToolCall, call) if isinstance(call, dict) else None
        fn = tool_call.get("function") if tool_call is not None else None
        if (tool_call is None or not isinstance(fn, dict)
                or not isinstance(name := fn.get("name"), str)):
            raise AdapterError(f"{where}.function.name", "a tool call needs function.name")
        call_id = string_id(tool_call.get("id"), f"{where}.id")
        pending.append(PendingCall(
            name, fn.get("arguments"), call_id, group, where=f"{where}.function.arguments"
        ))
    legacy = msg.get("function_call")
    if isinstance(legacy, dict) and isinstance(legacy_name := legacy.get("name"), str):
        pending.append(PendingCall(
            legacy_name, legacy.get("arguments"), None, None,
            where=f"messages[{index}].function_call.arguments",
        ))
    return pending


#: Content parts that carry calls or results in other formats: read here as text they would be
#: dropped, with the calls they hold (Anthropic blocks when `format` says "openai"; the Vercel
#: AI SDK's parts).
_FOREIGN_PARTS = {"tool-call": "Vercel AI SDK", "tool-result": "Vercel AI SDK"}


def _refuse_foreign_calls(msg: OpenAiMessage, index: int) -> None:
    content = msg.get("content")
    if not isinstance(content, list):
        return
    for j, part in enumerate(content):
        kind = part.get("type") if isinstance(part, dict) else None
        if kind in CALL_BLOCKS or is_result_block(kind):
            origin = "Anthropic format: set `format` to 'anthropic' or leave it out"
        elif isinstance(kind, str) and kind in _FOREIGN_PARTS:
            origin = f"{_FOREIGN_PARTS[kind]} format, which is not read: convert it"
        else:
            continue
        raise AdapterError(
            f"messages[{index}].content[{j}].type",
            f"a {kind!r} part in an OpenAI chat message is {origin}; its call would be lost",
        )


def _flag(msg: OpenAiMessage, index: int) -> bool | None:
    # A null flag (SDK dumps write every optional field) is no flag: the content decides.
    flag = error_flag(msg.get("is_error"), f"messages[{index}].is_error")
    if flag is not None:
        return flag
    if msg.get("status") is not None:
        return bool(msg["status"] == "error")
    return None


def openai_to_steps(messages: list[JsonValue]) -> list[Step]:
    """Convert OpenAI chat messages; tool results attach to their call by `tool_call_id`."""
    items: list[Message | PendingCall] = []
    by_id: dict[str, list[PendingCall]] = {}
    last_unanswered: list[PendingCall] = []
    for i, raw in enumerate(messages):
        msg = cast(OpenAiMessage, check_role(raw, i))
        _refuse_foreign_calls(msg, i)
        role = msg["role"]
        if role in ("tool", "function"):
            string_id(msg.get("tool_call_id"), f"messages[{i}].tool_call_id")
            target = _target(msg, by_id, last_unanswered)
            if target is None:
                raise AdapterError(f"messages[{i}].tool_call_id", "matches no earlier tool call")
            target.result = make_result(text_of(msg.get("content")), _flag(msg, i))
            continue
        content = text_of(msg.get("content"))
        if content in (None, "", []) and isinstance(refusal := msg.get("refusal"), str):
            content = refusal  # a refusal is the assistant's reply, given beside `content`
        if content not in (None, "", []):
            items.append(Message(role=role, content=content))
        if role == "assistant":
            calls = _calls_of(msg, i)
            for call in calls:
                items.append(call)
                if call.id:
                    by_id.setdefault(call.id, []).append(call)
            last_unanswered = calls
    return [item.build() if isinstance(item, PendingCall) else item for item in items]


def _target(
    msg: OpenAiMessage,
    by_id: dict[str, list[PendingCall]],
    last_unanswered: list[PendingCall],
) -> PendingCall | None:
    """The call a tool message answers: by its `tool_call_id`, else the next unanswered call.

    An id that names no call is an error, not a cue to guess: the order is used only when the
    message has no id, or when the calls it could answer carry none to match.
    """
    call_id = msg.get("tool_call_id")
    if call_id and any(call.id for call in last_unanswered):
        return _named(by_id, str(call_id))
    return _named(by_id, str(call_id or "")) or _first_open(last_unanswered, msg)


def _named(by_id: dict[str, list[PendingCall]], call_id: str) -> PendingCall | None:
    """The call an id answers. Some servers repeat ids ("call_0" in every message, or in every
    call of one batch): the id then answers the first still unanswered call of the latest
    message holding one, and a repeated answer replaces the last call's result as before.
    """
    calls = by_id.get(call_id)
    if not calls:
        return None
    open_calls = [call for call in calls if call.result is None]
    if not open_calls:
        return calls[-1]
    latest = open_calls[-1]
    if latest.group is None:
        return latest
    return next(call for call in open_calls if call.group == latest.group)


def _first_open(calls: list[PendingCall], msg: OpenAiMessage) -> PendingCall | None:
    """Fallback for results without ids (legacy `function` role): the next unanswered call."""
    for call in calls:
        if call.result is None and (msg.get("name") in (None, call.tool)):
            return call
    return None
