"""Tool calls in a model's raw text: every form read, anything else None, never an exception."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.adapters.raw_calls import RawCall, parse_raw_calls
from toolgrade.importers.bfcl_calls import NameResolver, decode_result


def _named(text: str) -> list[tuple[str, object]]:
    calls = parse_raw_calls(text)
    assert calls is not None, text
    return [(c.name, c.arguments) for c in calls]


F_G = [("f", {"a": 1}), ("g", {"b": "x"})]


def test_python_call_lists_bare_calls_and_separators() -> None:
    for text in ("[f(a=1), g(b='x')]", "f(a=1); g(b=\"x\");", "f(a=1)\ng(b='x')",
                 "\n\n[f(a=1),\n g(b='x'),]", "(f(a=1), g(b='x'))"):
        assert _named(text) == F_G, text


def test_quoted_call_lists() -> None:
    assert _named("['f(a=1)', \"g(b='x')\"]") == F_G


def test_json_forms_behind_markers() -> None:
    one = '{"name": "f", "arguments": {"a": 1}}'
    two = '{"name": "g", "parameters": {"b": "x"}}'
    for text in (f"<function_call> {one} <function_call> {two}",
                 f"<tool_call>\n{one}\n</tool_call>\n<tool_call>{two}</tool_call>",
                 f"[TOOL_CALLS] [{one}, {two}]", f"<|python_tag|>{one}; {two}<|eot_id|>",
                 json.dumps({"tool_calls": [json.loads(one), json.loads(two)]}),
                 f"[{one}, {two}]"):
        assert _named(text) == F_G, text


def test_name_line_then_json_arguments() -> None:
    assert _named('f\n{"a": 1}') == [("f", {"a": 1})]


def test_code_fences_and_prose_around_them() -> None:
    assert _named("```python\n    [f(a=1), g(b='x')]\n```") == F_G
    assert _named("```\nf(a=1)\n```") == [("f", {"a": 1})]  # a fence alone is the text
    assert _named("Here you go:\n```json\n[f(a=1), g(b='x')]\n```\nDone.") == F_G
    assert _named("[f(a=1), g(b='x')]\n\nThis calls f and g.") == F_G
    assert _named("[f(a=1), g(b='x')]. This calls f and g.") == F_G
    assert _named(r"[calculate\_area(a=1)]") == [("calculate_area", {"a": 1})]
    # A bare call beside prose is an example, not a call.
    assert parse_raw_calls("You could run:\n```python\nf(a=1)\n```\nto see.") is None


def test_values_read_as_bfcl_reads_them() -> None:
    assert _named("[f(a=3 * 10**6, b=data, c=data['x'], d=np.array(x), e=(1, 2), g=-2.5)]") == [
        ("f", {"a": 3000000, "b": "data", "c": "data['x']", "d": "np.array(x)", "e": [1, 2],
               "g": -2.5})]
    for text in ("[f(a=m.x)]", "[f(a=lambda x: x)]", "[f(a=x**2)]", "[f(1)]", "[f(**k)]",
                 "[f(a={1, 2})]", "[f(a=10**10**10)]"):
        calls = parse_raw_calls(text)
        assert calls == [RawCall("f", None, text[1:-1])], text


def test_a_made_up_next_turn_is_not_read_and_an_unclosed_list_is() -> None:
    # What follows a turn-start token is a turn the model made up, not its reply.
    assert parse_raw_calls('<|im_start|>\n{"name": "f", "arguments": {}}\n<|im_start|>') is None
    assert _named('<tool_call>{"name": "f", "arguments": {}}\n<|im_start|>assistant\n'
                  '<tool_call>{"name": "g", "arguments": {}}') == [("f", {})]
    assert _named("\n\n[f(a=1), g(b='x')") == F_G  # the closing bracket left out


def test_bitwise_on_integers_and_number_keys_read_as_python_does() -> None:
    assert _named("[f(c=3 * 10^8, d={1: 0})]") == [("f", {"c": 22, "d": {"1": 0}})]


def test_empty_lists_are_no_call_and_prose_is_none() -> None:
    assert parse_raw_calls("[]") == []
    assert parse_raw_calls("[None]") == []
    for text in ("The answer is 42.", "", "{\"answer\": 1}", "[1, 2]", "x = f(a=1)",
                 "[{'name': 'f', 'arguments': {}}]", '{"name": "f", "a": 1}'):
        assert parse_raw_calls(text) is None, text


def test_a_tool_call_block_without_a_call_is_a_nameless_call() -> None:
    assert parse_raw_calls('<tool_call>{"name": "f"}</tool_call><tool_call>oops</tool_call>') \
        == [RawCall("f", {}, '{"name": "f"}'), RawCall("", None, "oops")]


def test_names_map_to_the_catalogue_when_unambiguous() -> None:
    resolver = NameResolver(["math.factorial", "spotify_play", "a.b", "a_b"])
    steps = decode_result("[math_factorial(n=1), spotify.play(x=1), a.b(y=1)]", resolver).steps
    assert [s.get("tool") for s in steps] == ["math.factorial", "spotify_play", "a.b"]


def test_declining_calls_are_no_call() -> None:
    steps = decode_result("out_of_domain(user_query='x')", NameResolver(["f"]),
                          no_tool=True).steps
    assert steps == []


_PIECES = st.sampled_from([
    "[", "]", "(", ")", "{", "}", "'", '"', "`", "```", "```python\n", ",", ";", "=", ":", "\n",
    " ", "\\_", "f", "math.factorial", "a=1", "x", "**", "lambda", "None", "<tool_call>",
    "</tool_call>", "<function_call>", "[TOOL_CALLS]", "<|python_tag|>", "<|im_start|>",
    '"name"', '"arguments"', "1e999", "-", "#", "\\", "\x00", "é"])


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=200), st.lists(_PIECES, max_size=40).map("".join)))
def test_random_text_never_raises(text: str) -> None:
    calls = parse_raw_calls(text)
    assert calls is None or all(isinstance(c, RawCall) for c in calls)
    for no_tool in (False, True):
        decoded = decode_result(text, NameResolver(["f", "math.factorial"]), no_tool=no_tool)
        assert decoded.steps or calls is not None
