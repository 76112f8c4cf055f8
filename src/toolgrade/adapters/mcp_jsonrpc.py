"""MCP JSON-RPC message logs to normalised steps.

A run's `messages` may be the JSON-RPC messages of an MCP session (what `toolgrade mcp record`
writes): each `tools/call` request is a call, paired with its response by id. A result with
`isError: true`, or a JSON-RPC error response, is a tool error (recovery reads it). Notifications,
other requests (`initialize`, `tools/list`, ...) and their responses are ignored. Chat messages
(`{role, content}`) may stand between them, for the user's request and the agent's answer that
the protocol does not carry. Calls in flight together (a request sent before an earlier call
was answered) share a group, as calls issued in one chat message do.
"""

from __future__ import annotations

from typing import cast

from toolgrade.adapters.common import AdapterError, PendingCall, check_role, make_result, text_of
from toolgrade.jsonio.values import JsonObject, JsonValue
from toolgrade.models import Message, Step

#: The method of the calls graded.
TOOLS_CALL = "tools/call"


def is_jsonrpc(messages: list[JsonValue]) -> bool:
    """Whether a run's messages are a JSON-RPC log (some message carries `jsonrpc`)."""
    return any(isinstance(m, dict) and "jsonrpc" in m for m in messages)


class _Session:
    """The calls of one log, in request order, and those still waiting for a response."""

    def __init__(self) -> None:
        self.items: list[Message | PendingCall] = []
        self.open: dict[str, PendingCall] = {}
        self.groups = 0

    def request(self, msg: JsonObject, where: str) -> None:
        params = msg.get("params")
        name = params.get("name") if isinstance(params, dict) else None
        if not isinstance(name, str) or not name:
            raise AdapterError(f"{where}.params.name", "a tools/call request needs a tool name")
        key = _id_key(msg.get("id"), where)
        if key in self.open:
            raise AdapterError(f"{where}.id", f"request id {key} is already waiting for a response")
        arguments = cast(JsonObject, params).get("arguments")
        group = self._group_for_new_call()
        call = PendingCall(name, arguments, key, group)
        self.items.append(call)
        self.open[key] = call

    def _group_for_new_call(self) -> str | None:
        # A call sent while others are open runs concurrently with them: one group.
        if not self.open:
            return None
        others = list(self.open.values())
        if others[0].group is None:
            self.groups += 1
            for other in others:
                other.group = f"g{self.groups}"
        return cast(str, others[0].group)

    def response(self, msg: JsonObject, where: str) -> None:
        key = _id_key(msg.get("id"), where)
        call = self.open.pop(key, None)
        if call is None:
            return  # the response to a request that is not a tools/call
        error = msg.get("error")
        if error is not None:
            text = error.get("message") if isinstance(error, dict) else error
            call.result = make_result(text, True)
            return
        result = msg.get("result")
        if not isinstance(result, dict):
            raise AdapterError(f"{where}.result", "a response needs a result or an error object")
        call.result = make_result(_content(result), _is_error(result, where))


def _id_key(value: JsonValue, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise AdapterError(f"{where}.id", "a request or response id is a string or an integer")
    return str(value)


def _is_error(result: JsonObject, where: str) -> bool | None:
    flag = result.get("isError")
    if flag is None:
        return None
    if not isinstance(flag, bool):
        raise AdapterError(f"{where}.result.isError", "must be true or false")
    return flag


def _content(result: JsonObject) -> JsonValue:
    """What the agent read: the text blocks' text, else the structured content, else the blocks."""
    blocks = result.get("content")
    if isinstance(blocks, list) and blocks:
        return text_of(blocks)
    structured = result.get("structuredContent")
    return structured if structured is not None else blocks


def jsonrpc_to_steps(messages: list[JsonValue]) -> list[Step]:
    """The `tools/call` calls of a JSON-RPC log with their results, and its chat messages."""
    session = _Session()
    for i, raw in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(raw, dict):
            raise AdapterError(where, "a message must be a JSON object")
        if "jsonrpc" not in raw:
            msg = check_role(raw, i)
            content = text_of(msg.get("content"))
            session.items.append(Message(role=str(msg["role"]), content=content))
            continue
        if raw.get("jsonrpc") != "2.0":
            raise AdapterError(f"{where}.jsonrpc", "must be \"2.0\"")
        method = raw.get("method")
        if method is not None:
            if not isinstance(method, str):
                raise AdapterError(f"{where}.method", "must be a string")
            if method == TOOLS_CALL and "id" in raw:
                session.request(raw, where)
            continue  # notifications and other requests
        if "id" not in raw:
            raise AdapterError(where, "a JSON-RPC message needs a method (request, notification) "
                                      "or an id (response)")
        session.response(raw, where)
    return [item.build() if isinstance(item, PendingCall) else item for item in session.items]
