"""A BFCL parameter schema widened so that every value the possible answer accepts is valid.

BFCL's checker never looks at `enum`, `format`, bounds or patterns, and lets a value through its
type check when it has the type of the possible answer itself (its "variable" rule: an answer
`"data['sales']"` for an array parameter, `null` for a float, `true` for a string). toolgrade
grades schema validity apart, so an answer BFCL accepts would fail as `type_mismatch` or
`out_of_range`. The question's schema is therefore widened where, and only where, one of its
own acceptable values would break it: the value's type added to `type`, the value added to
`enum`, and a `format`, bound or pattern it breaks dropped. Any value the answer does not list
is still wrong by value, so the verdicts stay BFCL's. The keys of a nested answer become the
nested object's declared `properties`, so a key the answer does not list is flagged, as BFCL
rejects it.
"""

from __future__ import annotations

from collections.abc import Mapping

from toolgrade.importers.bfcl_answers import OPTIONAL, field_values
from toolgrade.importers.common import infer_json_type
from toolgrade.json_schema import Draft202012Validator, SchemaError
from toolgrade.jsonio.values import JsonObject, JsonValue

#: Constraints a widening may drop (BFCL checks none of them).
_DROPPABLE = frozenset({
    "format", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "minLength", "maxLength", "minItems", "maxItems", "multipleOf", "uniqueItems",
})


def admit_answer(schema: JsonObject, params: Mapping[str, JsonValue]) -> None:
    """Widen a tool's parameters schema (in place) so every acceptable value of `params`
    (one possible-answer call, `{param: [values]}`) is valid against it."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    for param, values in params.items():
        sub = properties.get(param)
        if isinstance(sub, dict) and isinstance(values, list):
            for value in values:
                if value != OPTIONAL:
                    admit_value(sub, value)


def admit_value(schema: JsonObject, value: JsonValue) -> None:
    """Widen one schema (in place) so that `value` (one acceptable value, nested answers
    included) is valid against it at this level and below."""
    _admit_here(schema, value)
    if isinstance(value, dict):
        _admit_fields(schema, value)
    elif isinstance(value, list) and isinstance(items := schema.get("items"), dict):
        for item in value:
            admit_value(items, item)


def _admit_fields(schema: JsonObject, answer: JsonObject) -> None:
    """A nested answer's fields: each declared (BFCL rejects a key the answer does not list,
    and toolgrade flags a key outside `properties` once a level has them), and each of its
    acceptable values admitted by its sub-schema."""
    properties = schema.setdefault("properties", {})
    if not isinstance(properties, dict):
        return
    for key, values in answer.items():
        sub = properties.setdefault(key, {})
        if isinstance(sub, dict):
            for value in field_values(values):
                if value != OPTIONAL:
                    admit_value(sub, value)


def _admit_here(schema: JsonObject, value: JsonValue) -> None:
    """Fix what `value` breaks at this level of `schema`: type, enum, droppable constraints."""
    if not _type_admits(schema.get("type"), value):
        _add_type(schema, value)
    if isinstance(value, dict):
        return  # a nested answer is not a literal: its fields are admitted one by one
    if isinstance(enum := schema.get("enum"), list) and not _listed(value, enum):
        schema["enum"] = [*enum, value]
    here = {k: schema[k] for k in _DROPPABLE if k in schema}
    if here and "type" in schema:
        here["type"] = schema["type"]
    if not here:
        return
    try:
        Draft202012Validator.check_schema(here)
    except SchemaError:
        return  # a broken schema is the suite loader's to report, not to widen
    validator = Draft202012Validator(here, format_checker=Draft202012Validator.FORMAT_CHECKER)
    for error in validator.iter_errors(value):
        if not error.path and error.validator in _DROPPABLE:
            schema.pop(str(error.validator), None)


def _json_type(value: JsonValue) -> str:
    return infer_json_type(value) or "null"


def _kinds(declared: JsonValue) -> list[JsonValue]:
    """A schema's `type` as a list of type names (`bfcl.map_schema` writes one name, a
    widening a list of them)."""
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list | dict):
        return list(declared)
    raise TypeError(f"a schema type is a name or a list of names, not {declared!r}")


def _type_admits(declared: JsonValue, value: JsonValue) -> bool:
    if declared is None:
        return True
    kinds = set(_kinds(declared))
    kind = _json_type(value)
    if kind == "integer" and "number" in kinds:
        return True
    if kind == "number" and "integer" in kinds and isinstance(value, float) and value.is_integer():
        return True
    return kind in kinds


def _add_type(schema: JsonObject, value: JsonValue) -> None:
    schema["type"] = [*_kinds(schema["type"]), _json_type(value)]


def _listed(value: JsonValue, enum: list[JsonValue]) -> bool:
    """Whether `value` is in `enum` with JSON types respected (True is not 1)."""
    return any(type(value) is type(v) and value == v for v in enum) or (
        _json_type(value) in ("integer", "number")
        and any(_json_type(v) in ("integer", "number") and value == v for v in enum))
