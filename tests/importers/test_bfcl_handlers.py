"""BFCL's per-model decoders reproduced: each family reads and fails what BFCL's handler does."""

from __future__ import annotations

import string
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.importers.bfcl_ast import NotDecoded, as_arguments, parse_call_list
from toolgrade.importers.bfcl_calls import ExactNames, decode_like_bfcl
from toolgrade.importers.bfcl_handlers import (
    TEXT_DECODERS,
    decode,
    handler_family,
    writes_underscored_names,
)


def _calls(result: Any, family: str) -> list[tuple[str, Any]] | None:
    return decode(result, family).calls


def test_values_are_read_as_bfcl_resolves_them() -> None:
    [call] = parse_call_list(
        "[geo.area(a=1, b=meters, c=-2, d=3 * 10**8, e=(1, 2), f=g(k=1), h=..., i=+5, j=[1.5],"
        " k=data['sales'], m=2 ^ 3)]")
    assert call is not None
    name, args = call
    assert name == "geo.area"
    assert args == {"a": 1, "b": "meters", "c": -2, "d": 300000000, "e": (1, 2),
                    "f": {"g": {"k": 1}}, "h": "...", "i": -5, "j": [1.5],
                    "k": "data['sales']", "m": 1}
    assert as_arguments(args) == {**args, "e": [1, 2]}


def test_positional_arguments_are_dropped_and_a_call_without_keywords_is_no_call() -> None:
    assert parse_call_list("[f(1, 2, a=3)]") == [("f", {"a": 3})]
    # BFCL's 2024 leaderboard counts `f(5)` and `f()` as output in the wrong format
    assert parse_call_list("[f(5), g()]") == [None, None]
    decoding = decode("[math.hypot(4, 5)]", "oss")
    assert decoding.calls is None and decoding.wrong_format


@pytest.mark.parametrize("text", [
    "f(a=1)",                 # a bare call: BFCL's body has no list ('Call' has no 'elts')
    "[f(a=1), 'text']",       # an element that is not a call
    "[f(a=x.y)]",             # an attribute
    "[f(a=lambda: 1)]",       # a lambda (BFCL's own code fails before evaluating it)
    "[f(a=-x)]",              # a unary operator on a name
    "[f(a=2 * pi)]",          # arithmetic on a name (BFCL's evaluation: pi is not defined)
    "[f(a=2 * g(x=1))]",      # arithmetic on a call
    "[f(a={1, 2})]",          # a set
    "[f(a=f'{x}')]",          # an f-string
    "[f(a=1)",                # a syntax error
    "[f(a={**d})]",           # ** in a dict
])
def test_what_bfcls_ast_parse_fails_fails(text: str) -> None:
    with pytest.raises(NotDecoded):
        parse_call_list(text)


def test_each_family_strips_its_models_wrapper() -> None:
    assert _calls("```json\n[f(a=1)]\n```", "openai_prompt") is None  # gpt-4o's fences fail
    assert _calls("[f(a=1)]", "openai_prompt") == [("f", {"a": 1})]
    assert _calls(" f(a=1)", "oss") == [("f", {"a": 1})]
    assert _calls("[calculate\\_area(a=1)", "mistral") == [("calculate_area", {"a": 1})]
    assert _calls("\n\n[f(a=1)]\n", "llama") == [("f", {"a": 1})]
    assert _calls("Sure:\n```python\n[f(a=1)]\n```\nDone.", "gemma") == [("f", {"a": 1})]
    assert _calls("['f(a=1)']", "databricks") == [("f", {"a": 1})]
    assert _calls("f(a=1); g(b=2);", "nexus") == [("f", {"a": 1}), ("g", {"b": 2})]
    assert _calls("```\n[f(a=1)]\n```", "generic") == [("f", {"a": 1})]


def test_json_families_read_their_models_markers() -> None:
    hermes = '<tool_call>\n{"arguments": {"n": 5}, "name": "f"}\n</tool_call>\n'
    assert _calls(hermes, "hermes") == [("f", {"n": 5})]
    assert _calls('<|im_start|>\n{"arguments": {}, "name": "f"}', "hermes") == []
    assert _calls('<function_call> {"name": "f", "arguments": {"a": 1}}', "granite") == [
        ("f", {"a": 1})]
    assert _calls('f\n{"a": 1}\nmore', "glm") == [("f", {"a": 1})]
    assert _calls([{"f": '{"a": 1}'}], "function_calling") == [("f", {"a": 1})]


@pytest.mark.parametrize(("result", "family"), [
    ('<function_call> {"name": "no_function", "arguments": {}}', "granite"),
    ("I cannot help.", "granite"),
    ("one line only", "glm"),
    ('out_of_domain(user_query="hi")', "nexus"),
])
def test_elements_that_are_not_calls_are_a_wrong_format(result: str, family: str) -> None:
    decoding = decode(result, family)
    assert decoding.calls is None
    assert decoding.wrong_format


@pytest.mark.parametrize(("result", "family"), [
    ("Sure! The answer is 120.", "function_calling"),
    ("no brackets here", "gemma"),
    ("", "oss"),
    ('<tool_call>\n{"name": "f"}\n</tool_call>', "hermes"),
    ("f\nnot json", "glm"),
    ([{"f": "{not json"}], "function_calling"),
    (42, "generic"),
])
def test_what_a_handler_cannot_decode_has_no_calls(result: Any, family: str) -> None:
    decoding = decode(result, family)
    assert decoding.calls is None
    assert not decoding.wrong_format


def test_models_map_to_their_handler_family_and_unknown_ones_to_generic() -> None:
    assert handler_family("gpt-4o-2024-08-06") == "openai_prompt"
    assert handler_family("gpt-4o-2024-08-06-FC") == "function_calling"
    assert handler_family("google_gemma-7b-it") == "gemma"       # BFCL's folder spelling
    assert handler_family("google/gemma-7b-it") == "gemma"
    assert handler_family("THUDM_glm-4-9b-chat") == "glm"
    assert handler_family("my-own-model") == "generic"
    assert handler_family(None) == "generic"
    assert writes_underscored_names("gemini-1.0-pro")
    assert not writes_underscored_names("claude-3-opus-20240229")


def test_names_follow_bfcls_checker() -> None:
    exact = ExactNames(["math.factorial", "f"], underscored=False)
    assert exact.resolve("math.factorial") == "math.factorial"
    assert exact.resolve("math_factorial") == "math_factorial"  # BFCL: wrong function name
    underscored = ExactNames(["math.factorial", "f"], underscored=True)
    assert underscored.resolve("math_factorial") == "math.factorial"


def test_steps_fail_what_bfcl_fails_and_pass_no_call_on_relevance() -> None:
    names = ExactNames(["f"], underscored=False)
    fenced = "```json\n[f(a=1)]\n```"
    failed = decode_like_bfcl(fenced, "openai_prompt", names)
    assert failed.unparseable
    assert failed.steps == [{"tool": "(unparsed)", "args": fenced, "group": 0}]
    relevance = decode_like_bfcl(fenced, "openai_prompt", names, no_tool=True)
    assert relevance.steps == [{"role": "assistant", "content": fenced}]
    called = decode_like_bfcl("[f(a=1)]", "openai_prompt", names, no_tool=True)
    assert called.steps == [{"tool": "f", "args": {"a": 1}, "group": 0}]
    nameless = decode_like_bfcl("['f'(a=1)]", "openai_prompt", names)
    assert nameless.steps[0]["tool"] == "(unparsed)"


_PIECES = st.sampled_from([
    "[", "]", "(", ")", "{", "}", "f", "a=", "1", "-", "'x'", '"y"', ",", ";", "\n", " ",
    "<tool_call>", "</tool_call>", "<function_call>", "```", "\\_", "**", "lambda", ":",
    '{"name": "f", "arguments": {}}', "out_of_domain", "no_function", ".", "..."])


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=200), st.text(string.printable, max_size=200),
                 st.lists(_PIECES, max_size=40).map("".join)),
       st.sampled_from(sorted(TEXT_DECODERS)))
def test_no_text_makes_any_decoder_raise(text: str, family: str) -> None:
    decoding = decode(text, family)
    assert decoding.calls is None or isinstance(decoding.calls, list)
    steps = decode_like_bfcl(text, family, ExactNames(["f"], underscored=False)).steps
    assert steps or decoding.calls == []  # calls, or the text kept, or an empty call list
