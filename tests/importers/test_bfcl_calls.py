"""Decoding BFCL results: Python call syntax through `ast`, JSON function calls, raw fallbacks."""

from __future__ import annotations

import json
import keyword
import string
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.adapters.raw_calls import to_json_value
from toolgrade.importers.bfcl_calls import NameResolver, decode_result

RESOLVER = NameResolver(["spotify.play", "math.factorial", "get_weather"])


def test_python_calls_with_nested_lists_dicts_and_keywords() -> None:
    text = ("[get_weather(city='Paris', days=[1, 2, (3, 4)], opts={'unit': 'C', 'alerts': True}, "
            "lat=-48.5, note=None), spotify.play(artist=\"Maroon 5\", duration=15)]")
    decoded = decode_result(text, RESOLVER)
    assert decoded.steps == [
        {"tool": "get_weather", "group": 0,
         "args": {"city": "Paris", "days": [1, 2, [3, 4]], "opts": {"unit": "C", "alerts": True},
                  "lat": -48.5, "note": None}},
        {"tool": "spotify.play", "group": 0, "args": {"artist": "Maroon 5", "duration": 15}},
    ]
    assert not decoded.unparseable
    assert decoded.calls == 2


def test_single_call_without_brackets_and_backticks_is_read_like_bfcl() -> None:
    decoded = decode_result("```\nmath.factorial(number=5)\n```", RESOLVER)
    assert decoded.steps == [{"tool": "math.factorial", "args": {"number": 5}, "group": 0}]


def test_underscored_name_maps_back_to_the_dotted_tool() -> None:
    decoded = decode_result("[spotify_play(artist='x', duration=1)]", RESOLVER)
    assert decoded.steps[0]["tool"] == "spotify.play"


def test_ambiguous_underscored_name_is_left_alone() -> None:
    resolver = NameResolver(["a.b_c", "a_b.c"])
    assert resolver.resolve("a_b_c") == "a_b_c"
    assert resolver.resolve("a.b_c") == "a.b_c"


def test_positional_arguments_make_that_call_unparseable_only() -> None:
    decoded = decode_result("[get_weather('Paris'), math.factorial(number=3)]", RESOLVER)
    assert decoded.steps[0] == {"tool": "get_weather", "args": "get_weather('Paris')", "group": 0}
    assert decoded.steps[1]["args"] == {"number": 3}
    assert decoded.unparseable


def test_non_literal_values_are_never_evaluated() -> None:
    # An expression is kept as the text the model wrote (as BFCL's decoder keeps it);
    # arithmetic on number literals alone is computed.
    text = "[get_weather(city=__import__('os').system('echo pwned'), days=2**3)]"
    decoded = decode_result(text, RESOLVER)
    assert decoded.steps == [{"tool": "get_weather", "group": 0, "args": {
        "city": "__import__('os').system('echo pwned')", "days": 8}}]
    assert not decoded.unparseable


def test_kwargs_unpacking_is_unparseable() -> None:
    decoded = decode_result("[get_weather(**{'city': 'x'})]", RESOLVER)
    assert isinstance(decoded.steps[0]["args"], str)


def test_undecodable_text_is_one_unparsed_step_keeping_the_text() -> None:
    decoded = decode_result("Sure! It is 120.", NameResolver(["math.factorial"]))
    assert decoded.steps == [{"tool": "(unparsed)", "args": "Sure! It is 120.", "group": 0}]
    assert decoded.unparseable


def test_undecodable_text_on_a_no_tool_case_is_the_models_reply() -> None:
    decoded = decode_result("I cannot help with that.", RESOLVER, no_tool=True)
    assert decoded.steps == [{"role": "assistant", "content": "I cannot help with that."}]
    assert not decoded.unparseable
    assert decoded.calls == 0


def test_json_function_calls_decode_strings_and_keep_dicts() -> None:
    result = [{"spotify_play": "{\"artist\": \"A\", \"duration\": 2}"},
              {"get_weather": {"city": "Rome"}}]
    decoded = decode_result(result, RESOLVER)
    assert [s["tool"] for s in decoded.steps] == ["spotify.play", "get_weather"]
    assert decoded.steps[0]["args"] == {"artist": "A", "duration": 2}
    assert decoded.steps[1]["args"] == {"city": "Rome"}


def test_json_call_with_broken_arguments_keeps_the_raw_text() -> None:
    decoded = decode_result([{"get_weather": "{city: Rome"}], RESOLVER)
    assert decoded.steps == [{"tool": "get_weather", "args": "{city: Rome", "group": 0}]
    assert decoded.unparseable


def test_empty_result_is_a_run_without_calls() -> None:
    assert decode_result([], RESOLVER).steps == []
    assert decode_result("[]", RESOLVER).steps == []


def test_json_values_refuse_sets_and_bytes() -> None:
    assert to_json_value((1, (2, 3))) == [1, [2, 3]]
    for bad in ({1, 2}, b"x", 1j):
        try:
            to_json_value(bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad!r} was accepted")


_names = st.text(alphabet=string.ascii_lowercase + "_", min_size=1, max_size=8).filter(
    lambda s: s.isidentifier() and not keyword.iskeyword(s))
_leaves = st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=12) | \
    st.floats(allow_nan=False, allow_infinity=False)
_values = st.recursive(
    _leaves,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                 max_size=3),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(_names, _values, max_size=4))
def test_any_literal_keyword_arguments_round_trip(args: dict[str, Any]) -> None:
    call = "get_weather(" + ", ".join(f"{k}={v!r}" for k, v in args.items()) + ")"
    decoded = decode_result(f"[{call}]", RESOLVER)
    assert decoded.steps == [{"tool": "get_weather", "args": args, "group": 0}]


def test_tool_calls_json_text_is_read_as_its_calls() -> None:
    text = ('{"tool_calls": [{"name": "spotify_play", "arguments": {"artist": "A", '
            '"duration": 2}}, {"name": "get_weather", "arguments": "{\\"city\\": \\"Rome\\"}"}]}')
    decoded = decode_result(text, RESOLVER)
    assert decoded.steps == [
        {"tool": "spotify.play", "args": {"artist": "A", "duration": 2}, "group": 0},
        {"tool": "get_weather", "args": {"city": "Rome"}, "group": 0},
    ]
    assert not decoded.unparseable


def test_bare_json_list_and_tool_call_blocks_are_read_as_calls() -> None:
    listed = '[{"name": "math.factorial", "arguments": {"number": 5}}]'
    blocks = '<tool_call>{"name": "math.factorial", "arguments": "{\\"number\\": 5}"}</tool_call>'
    expected = [{"tool": "math.factorial", "args": {"number": 5}, "group": 0}]
    assert decode_result(listed, RESOLVER).steps == expected
    assert decode_result(blocks, RESOLVER).steps == expected


def test_encoded_calls_on_a_no_tool_case_are_still_calls() -> None:
    text = '[{"name": "get_weather", "arguments": {"city": "Rome"}}]'
    decoded = decode_result(text, RESOLVER, no_tool=True)
    assert decoded.steps == [{"tool": "get_weather", "args": {"city": "Rome"}, "group": 0}]


def test_encoded_call_with_broken_arguments_is_that_call_unparseable() -> None:
    text = ('<tool_call>{"name": "get_weather", "arguments": "{city: Rome"}</tool_call>'
            '<tool_call>not json</tool_call>')
    decoded = decode_result(text, NameResolver(["get_weather"]))
    assert decoded.steps == [{"tool": "get_weather", "args": "{city: Rome", "group": 0},
                             {"tool": "(unparsed)", "args": "not json", "group": 0}]
    assert decoded.unparseable


def test_a_list_result_of_call_objects_is_read_by_name_and_arguments() -> None:
    result = [{"name": "get_weather", "arguments": "{\"city\": \"Rome\"}"}]
    assert decode_result(result, RESOLVER).steps == [
        {"tool": "get_weather", "args": {"city": "Rome"}, "group": 0}]
    # A catalogue function called `name` keeps BFCL's {function_name: arguments} reading.
    named = NameResolver(["name", "arguments"])
    steps = decode_result([{"name": "{\"a\": 1}", "arguments": "{}"}], named).steps
    assert [s["tool"] for s in steps] == ["name", "arguments"]


def test_other_json_text_stays_one_unparsed_step() -> None:
    text = '{"answer": 120}'
    decoded = decode_result(text, NameResolver(["math.factorial"]))
    assert decoded.steps == [{"tool": "(unparsed)", "args": text, "group": 0}]


def test_a_list_of_reply_texts_encoding_calls_is_read_as_those_calls() -> None:
    result = ['{"tool_calls": [{"name": "get_weather", "arguments": {"city": "Rome"}}]}',
              '<tool_call>{"name": "math.factorial", "arguments": {"number": 3}}</tool_call>']
    assert decode_result(result, RESOLVER).steps == [
        {"tool": "get_weather", "args": {"city": "Rome"}, "group": 0},
        {"tool": "math.factorial", "args": {"number": 3}, "group": 0}]
    # Every form of the raw-text reader is read in such a list, Python calls too; a text that
    # holds no call makes the whole result one unparsed step.
    decoded = decode_result(["[get_weather(city='Rome')]"], NameResolver(["get_weather"]))
    assert decoded.steps == [{"tool": "get_weather", "group": 0, "args": {"city": "Rome"}}]
    decoded = decode_result(["Rome it is."], NameResolver(["get_weather"]))
    assert decoded.steps == [{"tool": "(unparsed)", "group": 0,
                              "args": json.dumps(["Rome it is."])}]
