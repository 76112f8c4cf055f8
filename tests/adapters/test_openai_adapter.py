"""OpenAI chat messages to normalised steps."""

from __future__ import annotations

import json

import pytest

from toolgrade.adapters import AdapterError, detect_format, messages_to_steps
from toolgrade.models import Message, ToolCall


def _call(call_id: str, name: str, arguments: object) -> dict[str, object]:
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": raw}}


def test_tool_calls_and_results_by_id() -> None:
    steps = messages_to_steps(
        [
            {"role": "user", "content": "refund A1"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [_call("c1", "lookup", {"id": "A1"})],
            },
            {"role": "tool", "tool_call_id": "c1", "content": '{"status": "delivered"}'},
            {"role": "assistant", "content": "Done."},
        ]
    )
    assert [type(s) for s in steps] == [Message, ToolCall, Message]
    call = steps[1]
    assert isinstance(call, ToolCall)
    assert call.tool == "lookup" and call.args == {"id": "A1"} and call.id == "c1"
    assert call.result is not None and call.result.status == "ok"
    assert call.group is None


def test_parallel_calls_share_a_group_and_results_match_out_of_order() -> None:
    steps = messages_to_steps(
        [
            {"role": "assistant", "tool_calls": [_call("a", "x", {}), _call("b", "y", {})]},
            {"role": "tool", "tool_call_id": "b", "content": "Error: boom"},
            {"role": "tool", "tool_call_id": "a", "content": "fine"},
        ]
    )
    x, y = steps
    assert isinstance(x, ToolCall) and isinstance(y, ToolCall)
    assert x.group == y.group and x.group is not None
    assert x.result is not None and x.result.status == "ok"
    assert y.result is not None and y.result.status == "error"


def test_unparseable_arguments_kept_raw() -> None:
    (call,) = messages_to_steps(
        [{"role": "assistant", "tool_calls": [_call("a", "x", "{'bad': 1}")]}]
    )
    assert isinstance(call, ToolCall)
    assert call.unparseable and call.raw_arguments == "{'bad': 1}"


def test_non_object_json_arguments_are_unparseable() -> None:
    (call,) = messages_to_steps([{"role": "assistant", "tool_calls": [_call("a", "x", "[1, 2]")]}])
    assert isinstance(call, ToolCall) and call.raw_arguments == "[1, 2]"


@pytest.mark.parametrize("arguments", ["", "  ", None])
def test_empty_or_null_arguments_mean_none_not_unparseable(arguments: object) -> None:
    # Some OpenAI-compatible servers send "" for a tool that takes no arguments.
    raw = {"id": "a", "type": "function", "function": {"name": "x", "arguments": arguments}}
    (call,) = messages_to_steps([{"role": "assistant", "tool_calls": [raw]}])
    assert isinstance(call, ToolCall) and call.args == {} and not call.unparseable


@pytest.mark.parametrize(
    ("content", "status"),
    [
        ("503 Service Unavailable", "error"),
        ('{"error": "not found"}', "error"),
        ("Traceback (most recent call last)", "error"),
        ("200 items found", "ok"),
        ('{"error": null, "ok": true}', "ok"),
    ],
)
def test_error_detection(content: str, status: str) -> None:
    (call,) = messages_to_steps(
        [
            {"role": "assistant", "tool_calls": [_call("a", "x", {})]},
            {"role": "tool", "tool_call_id": "a", "content": content},
        ]
    )
    assert isinstance(call, ToolCall) and call.result is not None
    assert call.result.status == status


def test_explicit_error_flag_wins() -> None:
    (call,) = messages_to_steps(
        [
            {"role": "assistant", "tool_calls": [_call("a", "x", {})]},
            {"role": "tool", "tool_call_id": "a", "content": "all fine", "is_error": True},
        ]
    )
    assert isinstance(call, ToolCall) and call.result is not None and call.result.status == "error"


def test_result_for_unknown_call_is_an_error() -> None:
    with pytest.raises(AdapterError) as info:
        messages_to_steps([{"role": "tool", "tool_call_id": "zz", "content": "x"}])
    assert info.value.field == "messages[0].tool_call_id"


def test_result_naming_another_id_is_not_given_to_an_open_call() -> None:
    messages = [
        {"role": "assistant", "tool_calls": [_call("1", "lookup", {"id": "A1"})]},
        {"role": "tool", "tool_call_id": "zzz", "content": "Error: boom"},
    ]
    with pytest.raises(AdapterError) as info:
        messages_to_steps(messages)
    assert (info.value.field, info.value.reason) == (
        "messages[1].tool_call_id",
        "matches no earlier tool call",
    )


def test_result_with_an_id_answers_calls_that_carry_none_in_order() -> None:
    call = {"type": "function", "function": {"name": "lookup", "arguments": "{}"}}
    steps = messages_to_steps(
        [
            {"role": "assistant", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "generated-1", "content": "ok"},
        ]
    )
    (only,) = steps
    assert isinstance(only, ToolCall) and only.result is not None and only.result.content == "ok"


def test_call_without_name_is_an_error() -> None:
    with pytest.raises(AdapterError) as info:
        messages_to_steps([{"role": "assistant", "tool_calls": [{"id": "a", "function": {}}]}])
    assert info.value.field == "messages[0].tool_calls[0].function.name"


def test_detects_openai_for_plain_chat() -> None:
    assert detect_format([{"role": "user", "content": "hi"}]) == "openai"


@pytest.mark.parametrize(
    ("messages", "field"),
    [
        (
            [{"role": "assistant", "tool_calls": [_call(7, "x", {})]}],  # type: ignore[arg-type]
            "messages[0].tool_calls[0].id",
        ),
        (
            [
                {"role": "assistant", "tool_calls": [_call("a", "x", {})]},
                {"role": "tool", "tool_call_id": ["a"], "content": "ok"},
            ],
            "messages[1].tool_call_id",
        ),
    ],
)
def test_id_that_is_not_a_string_is_a_problem_not_a_crash(
    messages: list[object], field: str
) -> None:
    with pytest.raises(AdapterError) as info:
        messages_to_steps(messages, "openai")
    assert info.value.field == field and "string" in info.value.reason


@pytest.mark.parametrize("flag", ["is_error", "status"])
def test_null_error_flag_leaves_the_content_to_decide(flag: str) -> None:
    # Exports that dump every optional field write `"is_error": null`; that is no flag.
    steps = messages_to_steps(
        [
            {"role": "assistant", "tool_calls": [_call("a", "x", {})]},
            {"role": "tool", "tool_call_id": "a", "content": "Error: boom", flag: None},
        ]
    )
    (call,) = steps
    assert isinstance(call, ToolCall) and call.result is not None
    assert call.result.status == "error"


@pytest.mark.parametrize(
    "reply",
    [
        {"role": "assistant", "content": None, "refusal": "I can't help with that."},
        {
            "role": "assistant",
            "content": [{"type": "refusal", "refusal": "I can't help with that."}],
        },
    ],
)
def test_refusal_is_the_final_answer(reply: dict[str, object]) -> None:
    steps = messages_to_steps([{"role": "user", "content": "do it"}, reply])
    assert steps[-1] == Message(role="assistant", content="I can't help with that.")


def test_repeated_id_in_one_batch_answers_its_calls_in_order() -> None:
    # Some OpenAI-compatible servers number ids per message: every call is "call_0".
    steps = messages_to_steps(
        [
            {
                "role": "assistant",
                "tool_calls": [_call("call_0", "weather", {}), _call("call_0", "time", {})],
            },
            {"role": "tool", "tool_call_id": "call_0", "content": "Error: no city"},
            {"role": "tool", "tool_call_id": "call_0", "content": "10:00"},
            {"role": "assistant", "tool_calls": [_call("call_0", "weather", {})]},
            {"role": "tool", "tool_call_id": "call_0", "content": "sunny"},
        ]
    )
    results = [(s.tool, s.result and (s.result.status, s.result.content)) for s in steps
               if isinstance(s, ToolCall)]
    assert results == [
        ("weather", ("error", "Error: no city")),
        ("time", ("ok", "10:00")),
        ("weather", ("ok", "sunny")),
    ]


def test_responses_api_item_is_refused_saying_what_it_is() -> None:
    # The OpenAI Agents SDK's to_input_list() gives Responses items, not chat messages.
    with pytest.raises(AdapterError) as info:
        messages_to_steps(
            [
                {"type": "message", "role": "user", "content": "weather?"},
                {"type": "function_call", "call_id": "c1", "name": "weather", "arguments": "{}"},
            ]
        )
    assert info.value.field == "messages[1].type"
    assert "'function_call'" in info.value.reason and "Responses API" in info.value.reason


@pytest.mark.parametrize(
    ("part", "says"),
    [
        ({"type": "tool_use", "id": "t1", "name": "weather", "input": {}}, "'anthropic'"),
        ({"type": "tool-call", "toolCallId": "a", "toolName": "weather", "input": {}}, "Vercel"),
    ],
)
def test_calls_of_another_format_are_refused_not_dropped(
    part: dict[str, object], says: str
) -> None:
    # An Anthropic trace labelled "format": "openai" (or a Vercel AI SDK one) lost its calls.
    with pytest.raises(AdapterError) as info:
        messages_to_steps(
            [{"role": "assistant", "content": [{"type": "text", "text": "checking"}, part]}],
            "openai",
        )
    assert info.value.field == "messages[0].content[1].type" and says in info.value.reason


@pytest.mark.parametrize("flag", ["false", "true", 1])
def test_an_error_flag_that_is_not_a_boolean_is_a_problem(flag: object) -> None:
    # The string "false" would read as an error if taken as a truth value.
    messages = [
        {"role": "assistant", "tool_calls": [_call("a", "x", {})]},
        {"role": "tool", "tool_call_id": "a", "content": "fine", "is_error": flag},
    ]
    with pytest.raises(AdapterError) as info:
        messages_to_steps(messages, "openai")
    assert info.value.field == "messages[1].is_error" and "true or false" in info.value.reason
