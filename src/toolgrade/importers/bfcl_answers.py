"""BFCL possible answers as toolgrade argument comparators.

A possible answer lists, for each parameter, every acceptable value; `""` among them means the
parameter may be left out. A dict among the acceptable values is a nested answer whose fields
list their own acceptable values, at any depth. Inside a nested answer a field may also hold a
bare value (`position: [{"lateral": 10.5, "longitudinal": 50}]`): BFCL's checker compares it as
written, so it is read as that field's one acceptable value. Only a parameter's own values must
be a list; a bare value there is refused (BFCL's checker would test membership in it).
Strings are compared with BFCL's leniency, except a parameter's "variable" values (its first
acceptable value has another type than the parameter's), which BFCL's checker compares as
written.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping, Sequence
from typing import cast

from toolgrade.importers.common import infer_json_type
from toolgrade.importers.written import ExpectedCallLine
from toolgrade.jsonio.values import JsonObject, JsonValue

#: The marker BFCL puts among acceptable values when a parameter may be left out.
OPTIONAL = ""

#: Keys that make a mapping a comparator in the case format (docs/comparators.md), options included.
_COMPARATOR_KEYS = frozenset({
    "exact", "one_of", "approx", "tol", "rel", "date", "tz", "casefold", "regex", "semantic",
    "rubric", "any", "absent", "unordered", "normalize", "strict",
})
_MAX_EXPANSION = 64


class _Omit(enum.Enum):
    """A field left out in one literal form of a nested answer."""

    FIELD = 0


def values_reason(values: JsonValue) -> str:
    """Why `values` cannot be a BFCL list of acceptable values (a bare value is not one)."""
    return f"acceptable values must be a list, e.g. [{json.dumps(values, ensure_ascii=False)}]"


def _as_list(values: JsonValue) -> list[JsonValue]:
    """A parameter's acceptable values as a list; ValueError when they are not one."""
    if not isinstance(values, list):
        raise ValueError(values_reason(values))
    return values


def field_values(values: JsonValue) -> list[JsonValue]:
    """A nested answer field's acceptable values: a bare value is its one acceptable value."""
    return values if isinstance(values, list) else [values]


def value_problems(values: JsonValue, where: str) -> list[tuple[str, str]]:
    """(field, reason) when a parameter's acceptable values are not a list, so a bare value
    is never taken as an exact one (nested answer fields may be bare: `field_values`)."""
    if not isinstance(values, list):
        return [(where, values_reason(values))]
    return []


def _has_string(value: JsonValue) -> bool:
    if isinstance(value, str):
        return True
    if isinstance(value, list):
        return any(_has_string(v) for v in value)
    if isinstance(value, dict):
        return any(_has_string(v) for v in value.values())
    return False


def _nested(value: JsonValue) -> JsonValue:
    """One acceptable value, with BFCL's nested dicts turned into field-by-field comparators."""
    if isinstance(value, dict):
        if _COMPARATOR_KEYS & set(value):
            return _literal_dict(value)
        return {key: _acceptable(field_values(vals)) for key, vals in value.items()}
    if isinstance(value, list) and any(isinstance(v, dict) for v in value):
        return [_nested(v) for v in value]
    return value


def _literal_forms(value: JsonValue) -> Sequence[JsonValue]:
    """Every literal a BFCL nested-answer value stands for (dicts expand field by field)."""
    if not isinstance(value, dict):
        return [value]
    per_field: list[list[tuple[str, JsonValue | _Omit]]] = []
    for key, vals in value.items():
        forms: list[tuple[str, JsonValue | _Omit]] = []
        for option in field_values(vals):
            if option == OPTIONAL:
                forms.append((key, _Omit.FIELD))
            else:
                forms.extend((key, form) for form in _literal_forms(option))
        per_field.append(forms)
    combos: list[JsonObject] = [{}]
    for options in per_field:
        combos = [_with(c, key, form) for c in combos for key, form in options]
        if len(combos) > _MAX_EXPANSION:
            raise ValueError("a nested answer with a field named like a comparator has too "
                             f"many acceptable combinations (over {_MAX_EXPANSION})")
    return combos


def _with(combo: JsonObject, key: str, form: JsonValue | _Omit) -> JsonObject:
    """A copy of one literal form with `key` set to `form`, or left out."""
    return {**combo} if isinstance(form, _Omit) else {**combo, key: form}


def _literal_dict(value: JsonObject) -> JsonValue:
    """A nested answer whose field names clash with comparator keys (say a field `date`):
    the comparator language cannot hold it field by field, so list its literal forms."""
    forms: list[JsonValue] = [
        {"exact": form, "normalize": True} if _has_string(form) else {"exact": form}
        for form in _literal_forms(value)]
    return forms[0] if len(forms) == 1 else {"one_of": forms}


def acceptable(values: JsonValue, lenient: bool = True) -> JsonValue:
    """A BFCL list of acceptable values as a toolgrade comparator.

    `""` among the values means the parameter may be left out ({absent: true} inside one_of).
    Strings are compared with `normalize: true`, BFCL's leniency (case, spaces, punctuation),
    unless `lenient` is False. A bare value instead of a list is a ValueError, never read as an
    exact value.
    """
    return _acceptable(_as_list(values), lenient)


#: What BFCL's checker accepts as given where `""` (left out) is among the acceptable values,
#: by the parameter's declared type: the empty string, which it finds in the list, and the
#: empty list, as its list check reads each acceptable value as a list and `""` as `[]`.
EMPTY_GIVEN: dict[str, JsonValue] = {"string": "", "array": []}


def _acceptable(values: list[JsonValue], lenient: bool = True, empty: JsonValue = None
                ) -> JsonValue:
    """The comparator; `empty` (when not None) is also accepted where `""` is listed."""
    optional = OPTIONAL in values
    rest = [v for v in values if v != OPTIONAL]
    if not rest:
        return {"one_of": [{"absent": True}, empty]} if empty is not None else {"absent": True}
    if len(rest) == 1 and not optional:
        return _single(rest[0], lenient)
    options = [_nested(v) for v in rest]
    if optional:
        options.append({"absent": True})
        if empty is not None:
            options.append(empty)
    comparator: JsonObject = {"one_of": options}
    if lenient and _has_string(rest):
        comparator["normalize"] = True
    return comparator


def _single(value: JsonValue, lenient: bool) -> JsonValue:
    nested = _nested(value)
    if nested is not value:
        return nested  # a dict, or a list holding dicts: compared field by field, in order
    comparator: JsonObject = {"exact": value}
    if lenient and _has_string(value):
        comparator["normalize"] = True
    return comparator


def is_variable(values: JsonValue, declared: JsonValue) -> bool:
    """BFCL's "variable" rule: the first acceptable value has another type than the parameter
    declares (`"dontcare"` for an integer, `"data['sales']"` for an array, `false` for a
    string). BFCL's checker then compares the values as written, with no string leniency."""
    rest = [v for v in values if v != OPTIONAL] if isinstance(values, list) else []
    return bool(rest) and isinstance(declared, str) and infer_json_type(rest[0]) != declared


def integer_valued(values: JsonValue, declared: JsonValue) -> bool:
    """Whether BFCL checks these acceptable values as Python ints: the parameter is declared
    `integer` (or an array of `integer`) and every value is an int (a list of ints). BFCL
    fails 5.0 there (its type check is `type(value) == int`), where JSON Schema and toolgrade's
    default accept it."""
    if not isinstance(values, list) or not isinstance(declared, dict):
        return False
    rest = [v for v in values if v != OPTIONAL]
    kind = declared.get("type")
    items = declared.get("items")
    if kind == "array" and isinstance(items, dict) and items.get("type") == "integer":
        return bool(rest) and all(isinstance(v, list) and all(_is_int(x) for x in v)
                                  for v in rest)
    return kind == "integer" and bool(rest) and all(_is_int(v) for v in rest)


def float_items(values: JsonValue, declared: JsonValue) -> bool:
    """Whether BFCL checks these acceptable values as lists of Python floats: the parameter is
    an array of `float`, the parameter may not be left out, and every acceptable value is a
    list of floats. BFCL's checker then fails an int item (`[1, 3]` for `[1.0, 3.0]`: its
    nested type check is `type(item) == float`, with no int-to-float allowance as at the top
    level), where JSON Schema and toolgrade's default accept it."""
    if not isinstance(values, list) or not isinstance(declared, dict) or OPTIONAL in values:
        return False
    items = declared.get("items")
    if declared.get("type") != "array" or not isinstance(items, dict) or items.get(
            "type") != "number":
        return False
    return bool(values) and all(
        isinstance(v, list) and bool(v) and all(isinstance(x, float) for x in v)
        for v in values)


def _is_int(value: JsonValue) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _typed(comparator: JsonValue, values: JsonValue, declared: JsonValue) -> JsonValue:
    """The comparator with `strict: true` (integers and floats kept apart) where BFCL checks
    the values' Python type (`integer_valued`, `float_items`)."""
    if ((integer_valued(values, declared) or float_items(values, declared))
            and isinstance(comparator, dict)
            and ("exact" in comparator or "one_of" in comparator)):
        return {**comparator, "strict": True}
    return comparator


def _comparator(values: JsonValue, declared: JsonObject) -> JsonValue:
    """A parameter's comparator. An optional string parameter also takes `""` and an optional
    array parameter `[]` (EMPTY_GIVEN): BFCL's checker finds them among the acceptable values,
    where `""` marks the parameter optional, so `mission=''` and `deck=[]` pass there as if
    they were left out."""
    kind = declared.get("type")
    return _acceptable(_as_list(values), lenient=not is_variable(values, kind),
                       empty=EMPTY_GIVEN.get(kind) if isinstance(kind, str) else None)


def expected_call(name: str, params: Mapping[str, JsonValue], schema: JsonObject
                  ) -> ExpectedCallLine:
    """One expected call from the question's declared (not yet widened) schema. Parameters
    the answer does not mention must be left out, as in BFCL."""
    # `bfcl.map_schema` made the schema: its `properties`, when set, are each an object.
    properties = cast(dict[str, JsonObject], schema.get("properties", {}))
    args = {param: _typed(_comparator(values, properties.get(param, {})), values,
                          properties.get(param, {}))
            for param, values in params.items()}
    for prop in properties:
        args.setdefault(prop, {"absent": True})
    return {"tool": name, "args": args}
