"""The one-pass checker of flat schemas: what it accepts, jsonschema accepts with every key
declared, and the verdict of a call is the same with it or without it."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from builders_arguments import NUMBERS
from toolgrade.checks.arguments.schema import Validity, undeclared_keys, validate_call
from toolgrade.checks.arguments.schema_fastpath import one_pass_checker
from toolgrade.models import ToolCall, ToolSpec

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-12, max_value=12)
    | st.integers(min_value=-12, max_value=12).map(float)
    | st.floats(min_value=-3, max_value=3, allow_nan=False)
    | st.sampled_from([10**21, -(10**21), 1e300, 2.5, 1.5, 0.0, -0.0])
    | st.text(max_size=6)
)

FLAT = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "pattern": "^[A-Z][0-9]+$", "description": "an order"},
        "mode": {"type": "string", "enum": ["a", "b", "ab"]},
        "fixed": {"const": "x"},
        "note": {"type": ["string", "null"], "minLength": 2, "maxLength": 4},
        "n": {"type": ["integer", "string"], "minimum": -1, "exclusiveMaximum": 3},
        "x": {"type": "number", "exclusiveMinimum": 0, "maximum": 2.5},
        "flag": {"type": "boolean"},
        "free": {},
        "end": {"pattern": "b$"},
    },
    "required": ["id"],
    "additionalProperties": False,
}
OPEN = {"properties": {"q": {"type": "string", "minLength": 3}}, "required": ["q"]}
ONE_PASS = {"flat": FLAT, "open": OPEN, "numbers": NUMBERS}
KEYS = {"flat": [*FLAT["properties"], "other"], "open": ["q", "other"],
        "numbers": ["n", "x", "big", "other"]}
VALUES = SCALARS | st.sampled_from(["A1", "A1\n", "a1", "b", "ab", "x", "xy", "ab\n", "2"]) | (
    st.lists(SCALARS, max_size=2)
    | st.dictionaries(st.sampled_from(["k"]), SCALARS, max_size=1)
    | st.sampled_from([float("nan"), float("inf"), 10**30])
)


def both(schema: dict[str, Any], args: dict[str, Any]) -> tuple[Validity, Validity]:
    """The verdict with the fast paths and without them, for one call at step 2."""
    spec = ToolSpec(parameters=schema)
    call = ToolCall(tool="t", args=args)
    return validate_call(call, 2, spec), validate_call(call, 2, spec, fast=False)


#: Values at the edges of each property's keywords, per schema, drawn half of the time.
NEAR: dict[str, dict[str, list[Any]]] = {
    "flat": {
        "id": ["A1", "A12", "a1", "A", "A1\n", "AB1", 1],
        "mode": ["a", "b", "ab", "c", "A", None],
        "fixed": ["x", "X", "xx", True],
        "note": [None, "a", "ab", "abcd", "abcde", 2],
        "n": [-2, -1, 0, 2, 3, 2.0, True, "s", -1.5],
        "x": [0, 0.0, 1e-9, 2.5, 2.6, 3, False, float("nan")],
        "flag": [True, False, 0, 1, None],
        "end": ["b", "ab", "ab\n", "ba", 5],
    },
    "open": {"q": ["abc", "ab", "", 123]},
    "numbers": {
        "n": [0, 10, 11, -1, True, False, 5.0, 2.5],
        "x": [0, 1.5, 1.4, 1e-9, True, float("inf")],
        "big": [-(10**20), -(10**20) - 1, 0, 1.0],
    },
}


@st.composite
def schema_and_args(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """A schema name and arguments: its required keys (so that a verdict often rests on one
    value) and some others, each value near a keyword's edge half of the time."""
    name = draw(st.sampled_from(sorted(ONE_PASS)))
    drawn = draw(st.lists(st.sampled_from(KEYS[name]), unique=True, max_size=4))
    keys = dict.fromkeys([*ONE_PASS[name].get("required", []), *drawn])
    near = NEAR[name]
    return name, {k: draw(st.sampled_from(near.get(k, [None])) | VALUES) for k in keys}


@pytest.mark.parametrize("name", sorted(ONE_PASS))
def test_flat_scalar_schemas_take_the_one_pass(name: str) -> None:
    assert one_pass_checker(ONE_PASS[name]) is not None


def test_an_undeclared_key_is_left_to_the_other_paths() -> None:
    check = one_pass_checker(OPEN)
    assert check is not None and not check({"q": "refund", "extra": 1})
    fast, slow = both(OPEN, {"q": "refund", "extra": 1})
    assert fast == slow and [f.name for f in fast.failures] == ["hallucinated_param"]


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"a": {"type": "array"}}},
    {"type": "object", "properties": {"a": {"type": "string", "format": "email"}}},
    {"type": "object", "properties": {"a": {"enum": [1, "a"]}}},
    {"type": "object", "properties": {"a": {"const": True}}},
    {"type": "object", "properties": {"a": {"type": "string"}}, "minProperties": 1},
    {"type": "object", "additionalProperties": {"type": "string"}},
    {"type": "object", "properties": {"a": {"multipleOf": 2}}},
    {"type": "object", "properties": {"a": {"minLength": 2.0}}},
])
def test_anything_else_is_left_to_the_other_paths(schema: dict[str, Any]) -> None:
    assert one_pass_checker(schema) is None


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema_and_args())
def test_one_pass_valid_implies_jsonschema_valid_and_declared(
    case: tuple[str, dict[str, Any]],
) -> None:
    name, args = case
    check = one_pass_checker(ONE_PASS[name])
    assert check is not None
    if check(args):
        assert Draft202012Validator(ONE_PASS[name]).is_valid(args)
        assert list(undeclared_keys(args, ONE_PASS[name])) == []


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema_and_args())
def test_verdicts_are_identical_with_and_without_it(case: tuple[str, dict[str, Any]]) -> None:
    name, args = case
    fast, slow = both(ONE_PASS[name], args)
    assert fast == slow


@pytest.mark.parametrize(("name", "args"), [
    ("flat", {"id": "A12", "mode": "ab", "fixed": "x", "note": None, "n": 2, "x": 2.5,
              "flag": False, "free": [1, {"k": 2}], "end": 3}),
    ("flat", {"id": "B7", "n": "not a number: bounds skip it", "note": "abcd", "end": "ab"}),
    ("open", {"q": "refund"}),
    ("numbers", {"n": 0, "x": 1.4, "big": 10**21}),
])
def test_valid_calls_pass_in_one_pass(name: str, args: dict[str, Any]) -> None:
    check = one_pass_checker(ONE_PASS[name])
    assert check is not None and check(args)
    fast, slow = both(ONE_PASS[name], args)
    assert fast == slow and fast.valid is True


#: A valid call of each schema, to which one edge value at a time is added.
BASE: dict[str, dict[str, Any]] = {"flat": {"id": "A1"}, "open": {"q": "abc"}, "numbers": {"n": 0}}
EDGES = [(name, {**BASE[name], key: value})
         for name, near in NEAR.items() for key, values in near.items() for value in values]


@pytest.mark.parametrize(("name", "args"), EDGES)
def test_every_edge_value_alone(name: str, args: dict[str, Any]) -> None:
    check = one_pass_checker(ONE_PASS[name])
    assert check is not None
    if check(args):
        assert Draft202012Validator(ONE_PASS[name]).is_valid(args)
    fast, slow = both(ONE_PASS[name], args)
    assert fast == slow
