"""The bounds JSON and YAML inputs are read within: each refused with a reason, none a crash."""

from __future__ import annotations

import json

import pytest

from toolgrade.jsonio.bounds import (
    MAX_DEPTH,
    MAX_INT_DIGITS,
    BoundsError,
    loads_bounded,
    loads_or_none,
)
from toolgrade.loaders.yaml_lines import MAX_ALIAS_NODES, YamlBoundsError, load_yaml_with_lines


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), f"nested deeper than {MAX_DEPTH} levels"),
        ("[" * 100_000 + "]" * 100_000, f"nested deeper than {MAX_DEPTH} levels"),
        ('{"a": ' + "7" * (MAX_INT_DIGITS + 1) + "}", "an integer of 4,301 digits at column 7"),
        ('{"a":\n -' + "7" * 9000 + "}", "an integer of 9,000 digits at line 2, column 3"),
    ],
)
def test_json_past_a_bound_is_refused_with_its_reason(text: str, reason: str) -> None:
    with pytest.raises(BoundsError) as caught:
        loads_bounded(text)
    assert reason in caught.value.reason
    assert loads_or_none(text) is None  # text that only may hold JSON stays text


def test_json_within_the_bounds_reads_as_json_does() -> None:
    nested = "[" * (MAX_DEPTH - 2) + "]" * (MAX_DEPTH - 2)
    nested = "[" * (MAX_DEPTH - 2) + "]" * (MAX_DEPTH - 2)
    text = '{"a": [' + nested + '], "n": ' + "9" * 4300 + "}"
    assert loads_bounded(text) == json.loads(text)


def test_malformed_json_is_still_a_decode_error() -> None:
    with pytest.raises(json.JSONDecodeError):
        loads_bounded('{"a": ')


def test_a_string_past_the_size_bound_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("toolgrade.jsonio.bounds.MAX_STRING_CHARS", 10)
    with pytest.raises(BoundsError, match="a string of 11 characters"):
        loads_bounded(json.dumps({"k": ["x" * 11]}))
    assert loads_bounded(json.dumps({"k": "x" * 10})) == {"k": "x" * 10}


def _bomb(levels: int) -> str:
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]" for n in range(1, levels)]
    return "\n".join(lines) + "\n"


def test_a_yaml_alias_bomb_is_refused_at_the_anchor_before_it_expands() -> None:
    with pytest.raises(YamlBoundsError) as caught:
        load_yaml_with_lines(_bomb(30))  # 9**30 nodes if expanded: refused, never built
    assert caught.value.problem_mark is not None
    assert caught.value.problem_mark.line + 1 == 6  # a5, 9**6 strings, is the first past it
    assert f"past {MAX_ALIAS_NODES:,} nodes" in str(caught.value.problem)


def test_shared_specs_through_aliases_and_merges_still_load() -> None:
    data, _, _ = load_yaml_with_lines(_bomb(4) + "m: {<<: {x: 1}, y: *a3}\n")
    assert len(data["m"]["y"]) == 9 and data["m"]["x"] == 1


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("a:\n  b: " + "9" * 5000 + "\n", "an integer of more than 4300 digits"),
        ("a:\n  b: " + ":".join(["59"] * 3000) + "\n", "an integer of more than 4300 digits"),
        ('a:\n  b: "x\\udfff"\n', "a string holds a lone surrogate (\\udfff)"),
        ("a:\n  b: &b [1, *b]\n", "an alias names a node that holds it"),
        ("a:\n  b: &b {c: [*b]}\n", "an alias names a node that holds it"),
        ("a:\n  b: " + "[" * 300 + "]" * 300 + "\n", "nested deeper than 256 levels"),
    ],
)
def test_yaml_values_no_output_could_write_are_refused_at_their_line(
    text: str, reason: str
) -> None:
    with pytest.raises(YamlBoundsError) as caught:
        load_yaml_with_lines(text)
    assert reason in str(caught.value.problem)
    assert caught.value.problem_mark is not None and caught.value.problem_mark.line + 1 == 2
