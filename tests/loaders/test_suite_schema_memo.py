"""The catalogue schema check is remembered per schema, with the same messages as unremembered."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from toolgrade.loaders.suite import _checked_text, _schema_error
from toolgrade.models import Case


def direct(schema: Any) -> str | None:
    """The message `check_schema` gives without any memo."""
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return str(exc.message)
    return None


BROKEN = {"type": "objekt", "properties": {"a": {"type": "string", "minLength": -1}}}


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"type": "string"}}},
        BROKEN,
        {"properties": {"n": {"minimum": "zero"}}},
        {"properties": {"n": {"minimum": True}}},
        {"required": "a"},
        {},
    ],
)
def test_remembered_verdict_equals_a_fresh_check(schema: dict[str, Any]) -> None:
    assert _schema_error(schema) == direct(schema)
    assert _schema_error(schema) == direct(schema)  # second time from the memo


def test_one_catalogue_is_checked_once_across_cases() -> None:
    _checked_text.cache_clear()
    catalogue = {"t": {"parameters": BROKEN}, "u": {"parameters": {"type": "object"}}}
    cases = [Case.model_validate({"id": f"c{i}", "tools": catalogue}) for i in range(5)]
    messages = [_schema_error(c.tools["t"].parameters) for c in cases]
    assert len(set(messages)) == 1 and messages[0] == direct(BROKEN)
    for c in cases:
        _schema_error(c.tools["u"].parameters)
    info = _checked_text.cache_info()
    assert (info.misses, info.hits) == (2, 8)


def test_non_json_values_are_checked_afresh_with_their_own_message() -> None:
    with_date = {"properties": {"n": {"minimum": datetime.date(2024, 1, 1)}}}
    as_text = {"properties": {"n": {"minimum": "2024-01-01"}}}
    assert _schema_error(with_date) == direct(with_date)
    assert _schema_error(as_text) == direct(as_text)
    assert _schema_error(with_date) != _schema_error(as_text)
