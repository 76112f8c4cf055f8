"""The records of recorded chat runs, as the OpenAI and Anthropic adapters read them.

Upstream: OpenAI's Chat Completions API (`ChatCompletionMessageParam`: assistant messages with
`tool_calls`, `tool` messages answering them by `tool_call_id`, and the legacy
`function_call` / `function` role) and Anthropic's Messages API (`MessageParam`, whose
`content` is a string or a list of content blocks: `text`, `tool_use`, `tool_result`, and the
server and MCP tools' `server_tool_use`, `mcp_tool_use`, `*_tool_result`).

Every message must be an object with a string `role` (`common.check_role`); it is cast to
these types then, and each field is still checked where it is read (an `AdapterError` names the
message and field), since SDK dumps and hand-written runs put anything there.
"""

from __future__ import annotations

from typing import Required, TypedDict

from toolgrade.jsonio.values import JsonValue


class OpenAiFunction(TypedDict, total=False):
    """A tool call's `function`, or the legacy `function_call`."""

    name: str
    #: The arguments as the model wrote them: JSON text, usually of an object.
    arguments: JsonValue


class OpenAiToolCall(TypedDict, total=False):
    """One item of an assistant message's `tool_calls`."""

    id: str
    function: OpenAiFunction


class OpenAiMessage(TypedDict, total=False):
    """One chat message: system, user, assistant, tool (or legacy function)."""

    role: Required[str]
    #: A string or a list of content parts (`text`, `refusal`, ...).
    content: JsonValue
    #: Each an `OpenAiToolCall` (checked one by one).
    tool_calls: list[JsonValue] | None
    function_call: JsonValue
    #: A tool message: the id of the call it answers.
    tool_call_id: str | None
    #: A legacy `function` message: the function it answers.
    name: str | None
    #: The assistant's refusal, given beside an empty `content`.
    refusal: str | None
    #: Not OpenAI's: a result's error flag some harnesses record (`is_error`, or `status`
    #: "error"); without one, the content decides.
    is_error: JsonValue
    status: JsonValue


class AnthropicBlock(TypedDict, total=False):
    """One content block of an Anthropic message."""

    type: str
    #: A `text` block.
    text: JsonValue
    #: A call block (`tool_use`, `server_tool_use`, `mcp_tool_use`): id, tool name, arguments.
    id: str
    name: str
    input: JsonValue
    #: A result block (`tool_result`, `web_search_tool_result`, ...): the call it answers, and
    #: its content (text, a list of blocks, or a server tool's `{type: ..._error}` object).
    tool_use_id: str
    content: JsonValue
    is_error: JsonValue


class AnthropicMessage(TypedDict, total=False):
    """One Anthropic message: a role and a string or a list of content blocks."""

    role: Required[str]
    #: A string, or content blocks (each an `AnthropicBlock`, checked one by one).
    content: JsonValue
