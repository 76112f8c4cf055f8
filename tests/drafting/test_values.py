"""Drafted comparators by value kind, and the YAML flow text they are written in."""

from __future__ import annotations

import math
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from toolgrade.drafting.values import draft_value, kind_of
from toolgrade.drafting.yaml_text import flow


@pytest.mark.parametrize(("value", "kind"), [
    ("A123", "id"), ("TRK-700001", "id"), ("jane@example.com", "email"),
    ("2025-03-05", "date"), ("2025-03-05T10:00:00Z", "date"), ("the item arrived damaged", "text"),
    ("Paris", "word"), (25.0, "number"), (3, "number"), (True, "boolean"), (None, "null"),
    ({"a": 1}, "object"), ([1, 2], "list"),
])
def test_a_value_is_read_by_its_kind(value: Any, kind: str) -> None:
    assert kind_of(value) == kind


def test_an_enum_value_is_exact() -> None:
    drafted = draft_value(["email_code"] * 3, enum=["email_code", "sms_code"])
    assert (drafted.value, drafted.kind) == ("email_code", "enum")


@pytest.mark.parametrize(("values", "expected"), [
    (["A123", "A123"], "A123"),
    ([25.0, 25], {"approx": 25.0, "tol": 0.01}),
    (["Jane@Example.com", "jane@example.com"], {"casefold": "Jane@Example.com"}),
    (["2025-03-05"], {"date": "2025-03-05"}),
    (["refund it", "please refund"], {"semantic": "refund it"}),
    (["A1", "B2"], {"one_of": ["A1", "B2"]}),
    ([{"city": "Paris", "zip": "75001"}], {"city": {"casefold": "Paris"}, "zip": "75001"}),
    ([{"date": "2025-01-01"}], {"exact": {"date": "2025-01-01"}}),  # a comparator-like object
    ([[1, 2]], {"exact": [1, 2]}),
])
def test_the_comparator_fits_what_the_runs_gave(values: list[Any], expected: Any) -> None:
    assert draft_value(values).value == expected


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text()
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12)


@given(json_values)
def test_flow_text_reads_back_as_the_same_value(value: Any) -> None:
    read = yaml.safe_load(f"key: {flow(value)}  # review: a comment\n")["key"]
    assert read == value and _types(read) == _types(value)


def _types(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _types(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_types(v) for v in value]
    return type(value).__name__


def test_flow_keeps_yaml_1_1_traps_as_strings() -> None:
    for text in ("no", "yes", "01234", "1:30", "2024-03-01", "null", "~"):
        assert yaml.safe_load(flow(text)) == text
    assert yaml.safe_load(flow(1e-05)) == 1e-05
    assert math.isinf(yaml.safe_load(flow(float("inf"))))
