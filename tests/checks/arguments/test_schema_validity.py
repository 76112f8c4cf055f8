"""Schema validity: jsonschema errors mapped to the contract's failure names, field and value."""

from __future__ import annotations

from typing import Any

import pytest

from builders_arguments import REFUND_SCHEMA
from toolgrade.checks.arguments.schema import Validity, undeclared_keys, validate_call
from toolgrade.models import ToolCall, ToolSpec

GOOD = {"order_id": "A123", "amount": 25.0}


def validate(args: dict[str, Any], schema: dict[str, Any] | None = REFUND_SCHEMA) -> Validity:
    """Validate a refund call at step 3."""
    spec = None if schema is None else ToolSpec(parameters=schema)
    return validate_call(ToolCall(tool="refund", args=args), 3, spec)


def only(validity: Validity) -> dict[str, Any]:
    """The single failure of an invalid call, as output JSON."""
    assert validity.valid is False
    assert len(validity.failures) == 1, validity.failures
    return validity.failures[0].to_json()


def test_a_valid_call_has_no_failure() -> None:
    assert validate(GOOD) == Validity(True, [])


def test_missing_required_names_the_field() -> None:
    failure = only(validate({"order_id": "A123"}))
    assert (failure["name"], failure["field"], failure["step"]) == ("missing_required", "amount", 3)


def test_each_missing_field_is_worded_after_itself() -> None:
    failures = [f.to_json() for f in validate({}).failures]
    assert [(f["field"], f["message"]) for f in failures] == [
        ("order_id", "refund.order_id: 'order_id' is a required property"),
        ("amount", "refund.amount: 'amount' is a required property"),
    ]


def test_type_mismatch_names_field_and_value() -> None:
    failure = only(validate({**GOOD, "amount": "25"}))
    assert (failure["name"], failure["field"], failure["value"]) == (
        "type_mismatch",
        "amount",
        "25",
    )
    assert failure["limit"] == "number"


@pytest.mark.parametrize(
    ("args", "field", "constraint"),
    [
        ({**GOOD, "amount": -1}, "amount", "minimum"),
        ({**GOOD, "speed": "overnight"}, "speed", "enum"),
        ({**GOOD, "order_id": "a123"}, "order_id", "pattern"),
        ({**GOOD, "reason": "x" * 41}, "reason", "maxLength"),
    ],
)
def test_value_constraints_are_out_of_range(
    args: dict[str, Any], field: str, constraint: str
) -> None:
    failure = only(validate(args))
    assert (failure["name"], failure["field"], failure["constraint"]) == (
        "out_of_range",
        field,
        constraint,
    )
    assert failure["value"] == args[field]


def test_undeclared_key_is_hallucinated_whatever_additional_properties_says() -> None:
    failure = only(validate({**GOOD, "coupon": "X"}))
    assert (failure["name"], failure["field"], failure["value"]) == (
        "hallucinated_param",
        "coupon",
        "X",
    )
    closed = {**REFUND_SCHEMA, "additionalProperties": False}
    assert only(validate({**GOOD, "coupon": "X"}, closed))["name"] == "hallucinated_param"


def test_unparseable_arguments() -> None:
    call = ToolCall(tool="refund", raw_arguments='{"order_id": "A1', args={})
    result = validate_call(call, 0, ToolSpec(parameters=REFUND_SCHEMA))
    assert result.valid is False
    assert [f.name for f in result.failures] == ["unparseable_arguments"]
    assert result.failures[0].evidence["value"] == '{"order_id": "A1'
    assert validate_call(call, 0, None).valid is False  # invalid even without a catalogue entry


def test_nested_paths_are_dotted() -> None:
    schema = {
        "type": "object",
        "properties": {
            "address": {
                "type": "object",
                "properties": {"zip": {"type": "string"}},
                "required": ["zip"],
            },
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"qty": {"type": "integer", "minimum": 1}},
                },
            },
        },
    }
    result = validate(
        {"address": {"zipcode": "1"}, "items": [{"qty": 1}, {"qty": 0, "gift": True}]}, schema
    )
    got = sorted((f.name, f.evidence["field"]) for f in result.failures)
    assert got == [
        ("hallucinated_param", "address.zipcode"),
        ("hallucinated_param", "items[1].gift"),
        ("missing_required", "address.zip"),
        ("out_of_range", "items[1].qty"),
    ]


def test_free_form_maps_declare_any_key() -> None:
    schema = {
        "type": "object",
        "properties": {
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "meta": {"type": "object"},
            "env": {"type": "object", "properties": {}, "patternProperties": {"^X_": {}}},
        },
    }
    args = {"labels": {"any": "x"}, "meta": {"k": 1}, "env": {"X_A": 1, "B": 2}}
    assert list(undeclared_keys(args, schema)) == [("env.B", 2)]
    assert list(undeclared_keys({"a": 1}, {"type": "object"})) == []  # nothing declared


def test_any_of_reports_the_best_matching_branch() -> None:
    schema = {
        "type": "object",
        "properties": {"n": {"anyOf": [{"type": "integer"}, {"type": "null"}]}},
    }
    assert only(validate({"n": "3"}, schema))["name"] == "type_mismatch"


def test_dependent_required_is_missing_required() -> None:
    schema = {
        "type": "object",
        "properties": {"card": {"type": "string"}, "cvv": {"type": "string"}},
        "dependentRequired": {"card": ["cvv"]},
    }
    failure = only(validate({"card": "4111"}, schema))
    assert (failure["name"], failure["field"]) == ("missing_required", "cvv")


def test_declared_formats_are_checked() -> None:
    schema = {"type": "object", "properties": {"day": {"type": "string", "format": "date"}}}
    assert validate({"day": "2024-03-01"}, schema).valid is True
    failure = only(validate({"day": "2024-13-45"}, schema))
    assert (failure["name"], failure["constraint"]) == ("out_of_range", "format")


@pytest.mark.parametrize(
    ("fmt", "good", "bad"),
    [
        ("date-time", "2024-03-01T10:00:00Z", "yesterday"),
        ("time", "10:00:00Z", "ten o'clock"),
        ("uri", "https://example.com/a", "not a uri"),
        ("hostname", "example.com", "-bad-.example..com"),
        ("duration", "P3D", "three days"),
        ("email", "a@example.com", "not an email"),
        ("uuid", "0b7f8f4c-4a7e-4b8e-9a63-1b2c3d4e5f60", "1234"),
    ],
)
def test_common_tool_formats_are_checked(fmt: str, good: str, bad: str) -> None:
    # date-time, time, uri, hostname and duration need jsonschema's format extras: a
    # dependency, so that no declared format is skipped without a word.
    schema = {"type": "object", "properties": {"x": {"type": "string", "format": fmt}}}
    assert validate({"x": good}, schema).valid is True
    failure = only(validate({"x": bad}, schema))
    assert (failure["name"], failure["constraint"]) == ("out_of_range", "format")


def test_unknown_tool_is_not_validated() -> None:
    assert validate({"anything": 1}, None) == Validity(None)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "dict", "properties": {"a": {"type": "string"}}},  # BFCL's type names
        {"type": "object", "properties": {"a": {"type": "string", "pattern": "("}}},  # bad regex
    ],
)
def test_a_broken_schema_never_crashes(schema: dict[str, Any]) -> None:
    result = validate({"a": "x"}, schema)
    assert result.valid is None
    assert result.failures == []
    assert result.schema_error
