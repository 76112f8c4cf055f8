"""Tool calls encoded in reply text: the three forms are read, anything else is left alone."""

from __future__ import annotations

import json

from toolgrade.importers.text_calls import TextCall, call_fields, text_calls


def _named(calls: list[TextCall] | None) -> list[tuple[str | None, object]]:
    assert calls is not None
    return [(c.name, c.arguments) for c in calls]


def test_tool_calls_object_is_read_as_its_calls() -> None:
    text = json.dumps({"tool_calls": [
        {"name": "get_weather", "arguments": {"city": "Paris"}},
        {"name": "get_time", "arguments": "{\"tz\": \"CET\"}"},
    ]})
    assert _named(text_calls(text)) == [("get_weather", {"city": "Paris"}),
                                        ("get_time", "{\"tz\": \"CET\"}")]


def test_bare_list_of_call_objects_in_a_code_fence() -> None:
    text = "```json\n[{\"name\": \"f\", \"arguments\": {\"a\": 1}}, {\"name\": \"g\"}]\n```"
    assert _named(text_calls(text)) == [("f", {"a": 1}), ("g", {})]


def test_tool_call_blocks_ignore_the_commentary_around_them() -> None:
    text = ("Let me check.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n"
            "</tool_call>\n<tool_call>{\"name\": \"g\", \"arguments\": null}</tool_call>")
    assert _named(text_calls(text)) == [("f", {"a": 1}), ("g", {})]


def test_an_unclosed_last_block_is_still_read() -> None:
    assert _named(text_calls("<tool_call>{\"name\": \"f\", \"arguments\": {}}")) == [("f", {})]


def test_a_block_without_a_call_keeps_its_text() -> None:
    calls = text_calls("<tool_call>f(a=1)</tool_call>")
    assert calls == [TextCall(None, "f(a=1)", "f(a=1)")]


def test_openai_function_items_are_call_objects() -> None:
    item = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    assert call_fields(item) == ("f", "{}")
    assert _named(text_calls(json.dumps({"tool_calls": [item]}))) == [("f", "{}")]


def test_anything_else_is_not_read_as_calls() -> None:
    for text in ("The answer is 42.", "[f(a=1)]", "{\"name\": \"f\", \"arguments\": {}}",
                 "[{\"name\": \"f\", \"arguments\": {}, \"note\": 1}]", "[1, 2]", "[]",
                 "{\"tool_calls\": \"f\"}", "[{\"name\": 3}]", "{not json"):
        assert text_calls(text) is None, text


def test_an_empty_tool_calls_list_is_no_call() -> None:
    assert text_calls("{\"tool_calls\": []}") == []
