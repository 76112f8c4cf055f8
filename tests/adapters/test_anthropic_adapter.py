"""Anthropic messages with tool_use / tool_result blocks to normalised steps."""

from __future__ import annotations

import pytest

from toolgrade.adapters import AdapterError, detect_format, messages_to_steps
from toolgrade.models import Message, ToolCall

MESSAGES = [
    {"role": "user", "content": "Where is E1?"},
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "t1", "name": "lookup", "input": {"id": "E1"}},
            {"type": "tool_use", "id": "t2", "name": "track", "input": {"id": "E1"}},
        ],
    },
    {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "t1",
                "content": [{"type": "text", "text": "shipped"}],
            },
            {"type": "tool_result", "tool_use_id": "t2", "content": "timeout", "is_error": True},
        ],
    },
    {"role": "assistant", "content": [{"type": "text", "text": "It shipped."}]},
]


def test_detected_and_converted() -> None:
    assert detect_format(MESSAGES) == "anthropic"
    steps = messages_to_steps(MESSAGES)
    kinds = [(type(s).__name__, getattr(s, "tool", getattr(s, "role", None))) for s in steps]
    assert kinds == [
        ("Message", "user"),
        ("Message", "assistant"),
        ("ToolCall", "lookup"),
        ("ToolCall", "track"),
        ("Message", "assistant"),
    ]


def test_parallel_tool_use_share_group_and_results_attach() -> None:
    steps = messages_to_steps(MESSAGES)
    lookup, track = (s for s in steps if isinstance(s, ToolCall))
    assert lookup.group == track.group and lookup.group is not None
    assert lookup.result is not None and lookup.result.content == "shipped"
    assert lookup.result.status == "ok"
    assert track.result is not None and track.result.status == "error"


def test_final_answer() -> None:
    steps = messages_to_steps(MESSAGES)
    last = steps[-1]
    assert isinstance(last, Message) and last.content == "It shipped."


def test_string_input_is_unparseable() -> None:
    (call,) = messages_to_steps(
        [
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "a", "name": "x", "input": '{"broken": '}],
            }
        ]
    )
    assert isinstance(call, ToolCall) and call.raw_arguments == '{"broken": '


def test_unmatched_tool_result() -> None:
    with pytest.raises(AdapterError) as info:
        messages_to_steps(
            [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "q"}]}]
        )
    assert info.value.field == "messages[0].content[0].tool_use_id"


@pytest.mark.parametrize(
    ("messages", "field"),
    [
        (
            [{"role": "assistant", "content": [
                {"type": "tool_use", "id": 5, "name": "x", "input": {}}
            ]}],
            "messages[0].content[0].id",
        ),
        (
            [
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "t", "name": "x", "input": {}}
                ]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": ["t"]}]},
            ],
            "messages[1].content[0].tool_use_id",
        ),
    ],
)
def test_id_that_is_not_a_string_is_a_problem_not_a_crash(
    messages: list[object], field: str
) -> None:
    with pytest.raises(AdapterError) as info:
        messages_to_steps(messages, "anthropic")
    assert info.value.field == field and "string" in info.value.reason


SERVER_TOOLS = [
    {"role": "user", "content": "News about E1?"},
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Searching."},
            {
                "type": "server_tool_use",
                "id": "srvtoolu_1",
                "name": "web_search",
                "input": {"query": "E1"},
            },
            {
                "type": "web_search_tool_result",
                "tool_use_id": "srvtoolu_1",
                "content": {"type": "web_search_tool_result_error", "error_code": "unavailable"},
            },
            {
                "type": "mcp_tool_use",
                "id": "mcptoolu_1",
                "name": "lookup",
                "server_name": "orders",
                "input": {"id": "E1"},
            },
            {
                "type": "mcp_tool_result",
                "tool_use_id": "mcptoolu_1",
                "is_error": False,
                "content": [{"type": "text", "text": "shipped"}],
            },
            {"type": "text", "text": "It shipped."},
        ],
    },
]


def test_server_and_mcp_tool_calls_are_read_not_dropped() -> None:
    assert detect_format(SERVER_TOOLS[1:]) == "anthropic"
    steps = messages_to_steps(SERVER_TOOLS)
    search, lookup = (s for s in steps if isinstance(s, ToolCall))
    assert (search.tool, search.args, search.id) == ("web_search", {"query": "E1"}, "srvtoolu_1")
    assert search.result is not None and search.result.status == "error"
    assert (lookup.tool, lookup.args) == ("lookup", {"id": "E1"})
    assert lookup.result is not None and lookup.result.status == "ok"
    assert lookup.result.content == "shipped"
    assert steps[-1] == Message(role="assistant", content="It shipped.")


def test_calls_on_either_side_of_a_server_result_are_not_parallel() -> None:
    # The API ran the search and the model read its result before calling the MCP tool.
    steps = messages_to_steps(SERVER_TOOLS)
    search, lookup = (s for s in steps if isinstance(s, ToolCall))
    assert search.group is None and lookup.group is None


def test_openai_calls_in_an_anthropic_run_are_refused_not_dropped() -> None:
    # An OpenAI trace labelled "format": "anthropic" lost its calls and kept results as text.
    call = {"id": "a", "type": "function", "function": {"name": "x", "arguments": "{}"}}
    with pytest.raises(AdapterError) as info:
        messages_to_steps(
            [
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "a", "content": "ok"},
            ],
            "anthropic",
        )
    assert info.value.field == "messages[0].tool_calls" and "'openai'" in info.value.reason


@pytest.mark.parametrize("flag", ["false", 0])
def test_an_error_flag_that_is_not_a_boolean_is_a_problem(flag: object) -> None:
    messages = [
        {"role": "assistant",
         "content": [{"type": "tool_use", "id": "t", "name": "x", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t", "content": "fine", "is_error": flag}]},
    ]
    with pytest.raises(AdapterError) as info:
        messages_to_steps(messages, "anthropic")
    assert info.value.field == "messages[1].content[0].is_error"
    assert "true or false" in info.value.reason
