"""A question's schema widened only where one of its own acceptable values would break it."""

from __future__ import annotations

from typing import Any

from toolgrade.importers.bfcl_schema import admit_answer


def _schema(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


def test_the_answers_own_type_is_added_as_bfcls_variable_rule_allows() -> None:
    schema = _schema(mod={"type": "number"}, x={"type": "array", "items": {"type": "number"}},
                     venue={"type": "string"}, n={"type": "integer"})
    admit_answer(schema, {"mod": ["", None], "x": ["data['sales']"], "venue": ["", True],
                          "n": [5.0, 3]})
    props = schema["properties"]
    assert props["mod"]["type"] == ["number", "null"]
    assert props["x"]["type"] == ["array", "string"]
    assert props["venue"]["type"] == ["string", "boolean"]
    assert props["n"]["type"] == "integer"  # 5.0 is an integer in JSON Schema


def test_enum_gains_listed_values_and_broken_constraints_are_dropped() -> None:
    schema = _schema(unit={"type": "string", "enum": ["C", "F"]},
                     day={"type": "string", "format": "date", "description": "d"},
                     k={"type": "integer", "minimum": 1, "maximum": 9},
                     flag={"type": "boolean", "enum": [True]})
    admit_answer(schema, {"unit": ["C", "kelvin"], "day": ["2021-01-15", "Jan 15, 2021"],
                          "k": [0], "flag": [1, True]})
    props = schema["properties"]
    assert props["unit"]["enum"] == ["C", "F", "kelvin"]
    assert props["day"] == {"type": "string", "description": "d"}
    assert props["k"] == {"type": "integer", "maximum": 9}
    assert props["flag"]["enum"] == [True, 1]  # 1 is not True in JSON


def test_valid_answers_leave_the_schema_as_it_was() -> None:
    schema = _schema(unit={"type": "string", "enum": ["C", "F"]},
                     day={"type": "string", "format": "date"}, k={"type": "number"})
    before = repr(schema)
    admit_answer(schema, {"unit": ["C", ""], "day": ["2021-01-15"], "k": [1, 2.5]})
    assert repr(schema) == before


def test_nested_answer_keys_are_declared_so_other_keys_are_flagged() -> None:
    schema = _schema(grades={"type": "object"}, ego={"type": "object", "properties": {
        "position": {"type": "object", "properties": {"lateral": {"type": "integer"}}}}})
    admit_answer(schema, {"grades": [{"math": [90], "art": ["", 80]}],
                          "ego": [{"position": [{"lateral": 10.5, "longitudinal": 50}]}]})
    props = schema["properties"]
    assert props["grades"]["properties"] == {"math": {}, "art": {}}
    position = props["ego"]["properties"]["position"]["properties"]
    assert position == {"lateral": {"type": ["integer", "number"]}, "longitudinal": {}}
