"""Schema validity of one tool call: would the tool's runtime reject these arguments?

*Invalid* (this module) is kept apart from *wrong* (valid, but not what the reference asks for):
the fixes differ. Validation uses jsonschema's Draft 2020-12 validator, and each error becomes a
failure named as in docs/contract.md, with the dotted field path, the value and the step:

- `required` (and `dependentRequired`) -> `missing_required`
- `type` -> `type_mismatch`
- value constraints (minimum, maximum, exclusive bounds, enum, const, pattern, lengths, item
  counts, format, multipleOf, ...) -> `out_of_range`
- keys not in the schema's `properties` at their level -> `hallucinated_param`, whether or not
  `additionalProperties` is false (a level with no `properties`, or whose `additionalProperties`
  is itself a schema, is a free-form map and flags nothing)
- arguments that were not a JSON object -> `unparseable_arguments`
- a step of model text that could not be read as calls at all (tool `(unparsed)`, written by
  the raw-text call reader, docs/importers.md) -> `unparseable_call`

A tool without a catalogue entry is not validated (selection reports `unknown_tool`); a broken
schema never crashes grading: the tool's schema is then treated as unknown and the error is
returned so the check can list it in `figures["schema_errors"]`.

Speed: each `ToolSpec` is prepared once (its schema checked and compiled, remembered by the
spec's identity). A call its one-pass checker accepts (a flat object schema of scalar
properties, `schema_fastpath.one_pass_checker`) is valid at once: jsonschema would report no
error and no key is undeclared. A call its fast checker (`schema_fastpath`) accepts skips
jsonschema: it would report no error, so the verdict is the same. Every other call goes
through jsonschema.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from toolgrade.checks.arguments.comparators import join_path, jsonable
from toolgrade.checks.arguments.schema_fastpath import FastCheck, fast_checker, one_pass_checker
from toolgrade.json_schema import Draft202012Validator, SchemaError, ValidationError, best_match
from toolgrade.models import Failure, FailureName, ToolCall, ToolSpec
from toolgrade.vocabulary import UNPARSED_TOOL

_OUT_OF_RANGE = frozenset(
    {
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "enum", "const", "pattern",
        "minLength", "maxLength", "minItems", "maxItems", "format", "multipleOf", "uniqueItems",
        "minProperties", "maxProperties", "contains", "minContains", "maxContains",
    }
)  # fmt: skip
#: Reported from the walk over `properties` instead, so every undeclared key is named once.
_UNDECLARED = frozenset({"additionalProperties", "unevaluatedProperties"})
_BRANCHES = frozenset({"anyOf", "oneOf", "allOf"})


@dataclass(frozen=True)
class Validity:
    """The verdict on one call: `valid` is None when the schema is unknown or broken."""

    valid: bool | None
    failures: list[Failure] = field(default_factory=list)
    schema_error: str | None = None


def validate_call(
    call: ToolCall, step: int, spec: ToolSpec | None, *, fast: bool = True
) -> Validity:
    """Validate one call's arguments against its tool's schema (`spec` None: not in catalogue).

    `fast=False` skips the fast checker and always asks jsonschema (the verdict is the same;
    tests compare the two).
    """
    if call.tool == UNPARSED_TOOL:
        failure = Failure(
            name="unparseable_call",
            step=step,
            message="the model's text could not be read as tool calls",
            evidence={"tool": None, "field": None, "value": call.raw_arguments},
        )
        return Validity(False, [failure])
    if call.unparseable:
        failure = Failure(
            name="unparseable_arguments",
            step=step,
            message=f"{call.tool}: arguments are not a JSON object",
            evidence={"tool": call.tool, "field": None, "value": call.raw_arguments},
        )
        return Validity(False, [failure])
    if spec is None:
        return _UNKNOWN
    prepared, plan = _prepared(spec)
    if prepared.validator is None:
        return Validity(None, schema_error=prepared.problem)
    if fast and prepared.one_pass is not None and prepared.one_pass(call.args):
        return _VALID  # jsonschema would find no error, and every key is declared
    errors = _errors(prepared, prepared.validator, call.args, fast)
    if isinstance(errors, str):
        return Validity(None, schema_error=errors)
    undeclared = (
        list(undeclared_keys(call.args, spec.parameters))
        if plan is None or not fast
        else _flat_undeclared(plan, call.args)
    )
    if not errors and not undeclared:
        return _VALID
    failures = _dedupe(
        [f for error in errors for f in _failures(error, call, step)]
        + [_undeclared(path, value, call, step) for path, value in undeclared]
    )
    return Validity(not failures, failures)


def _errors(
    prepared: _Prepared, validator: Draft202012Validator, args: Any, fast: bool
) -> list[ValidationError] | str:
    """jsonschema's errors for the arguments (none when the fast checker accepts them), or the
    text of what broke jsonschema (then the schema counts as broken).

    After a one-pass rejection the fast checker is not asked: such a call is nearly always
    invalid, which it would only confirm.
    """
    if fast and prepared.one_pass is None and prepared.fast is not None and prepared.fast(args):
        return []  # fast-valid implies jsonschema-valid
    try:
        return list(validator.iter_errors(args))
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


#: The two verdicts without failures, shared by every call that has one (nine calls in ten):
#: a `Validity` is frozen and its callers only read its failures.
_VALID = Validity(True, [])
_UNKNOWN = Validity(None)


@dataclass(frozen=True)
class _Prepared:
    """A schema made ready once: its validator (None when broken, with the problem), its
    fast checker (None when the schema is outside the fast path's allow-list) and its one-pass
    checker (None unless the schema is a flat object of scalar properties)."""

    validator: Draft202012Validator | None
    problem: str | None = None
    fast: FastCheck | None = None
    one_pass: FastCheck | None = None


#: A schema whose undeclared keys can only sit at the top level: (described, properties).
_FlatPlan = tuple[bool, Mapping[str, Any]]
#: Prepared schemas by `id(spec)`, each entry holding its spec so that the id stays its own.
_BY_SPEC: dict[int, tuple[ToolSpec, _Prepared, _FlatPlan | None]] = {}
_BY_SPEC_LIMIT = 4096


def _prepared(spec: ToolSpec) -> tuple[_Prepared, _FlatPlan | None]:
    """The prepared schema of a spec and its flat plan, computed once per spec object."""
    hit = _BY_SPEC.get(id(spec))
    if hit is not None and hit[0] is spec:
        return hit[1], hit[2]
    prepared = _prepare(json.dumps(spec.parameters, sort_keys=True, default=str))
    plan = _flat_plan(spec.parameters)
    if len(_BY_SPEC) >= _BY_SPEC_LIMIT:
        _BY_SPEC.clear()  # bounded: a long-lived process grading many suites
    _BY_SPEC[id(spec)] = (spec, prepared, plan)
    return prepared, plan


def _flat_plan(schema: Any) -> _FlatPlan | None:
    """When `undeclared_keys` on this schema can only ever name top-level keys, what it needs
    to name them; None when nested levels or patterns could matter (the full walk decides).

    That holds when the top level has no pattern properties and no schema for additional
    properties, and no property's schema declares anything below it (`_inert`).
    """
    if not isinstance(schema, Mapping):
        return (False, {})
    props = schema.get("properties")
    props = props if isinstance(props, Mapping) else {}
    extra = schema.get("additionalProperties")
    if isinstance(extra, Mapping) or _patterns(schema.get("patternProperties")):
        return None
    if not all(_inert(sub) for sub in props.values()):
        return None
    return ("properties" in schema or extra is False, props)


def _inert(schema: Any) -> bool:
    """Whether `_undeclared_inside` can never yield anything under this schema."""
    if not isinstance(schema, Mapping):
        return True
    extra = schema.get("additionalProperties")
    items = schema.get("items")
    return (
        "properties" not in schema
        and extra is not False
        and not isinstance(extra, Mapping)
        and (not isinstance(items, Mapping) or _inert(items))
    )


def _flat_undeclared(plan: _FlatPlan, args: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """`undeclared_keys` for a schema with a flat plan: the top-level keys it does not declare."""
    described, props = plan
    if not described or args.keys() <= props.keys():  # the usual call: one set test, in C
        return []
    return [(str(key), value) for key, value in args.items() if key not in props]


@lru_cache(maxsize=512)
def _prepare(schema_text: str) -> _Prepared:
    """A cached validator for a schema (catalogues repeat across cases), or why it is broken."""
    schema = json.loads(schema_text)
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return _Prepared(None, f"invalid JSON Schema: {exc.message}")
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    fresh = json.loads(schema_text)  # the checkers keep no reference to the validator's copy
    return _Prepared(validator, None, fast_checker(fresh), one_pass_checker(fresh))


def _failures(error: ValidationError, call: ToolCall, step: int) -> Iterator[Failure]:
    """The failures one validation error stands for."""
    keyword = str(error.validator)
    if keyword in _UNDECLARED:
        return
    if keyword in _BRANCHES and error.context:
        yield from _failures(best_match(error.context), call, step)
        return
    path = _path(error)
    if keyword in ("required", "dependentRequired"):
        for missing in _missing_names(error):
            field_path = join_path(path, missing)
            # jsonschema words each error after one name; each failure here names its own.
            reason = f"{missing!r} is a required property"
            yield _failure("missing_required", call, step, field_path, None, keyword, error, reason)
        return
    kind: FailureName = "type_mismatch" if keyword == "type" else "out_of_range"
    yield _failure(kind, call, step, path or None, error.instance, keyword, error)


def _missing_names(error: ValidationError) -> list[str]:
    """The property names a `required` / `dependentRequired` error is about."""
    instance = error.instance if isinstance(error.instance, Mapping) else {}
    limit = error.validator_value
    if error.validator == "dependentRequired" and isinstance(limit, Mapping):
        needed = [d for key, deps in limit.items() if key in instance for d in deps]
    else:
        needed = list(limit) if isinstance(limit, list) else []
    return [str(n) for n in needed if n not in instance]


def _path(error: ValidationError) -> str:
    out = ""
    for part in error.absolute_path:
        out = join_path(out, part if isinstance(part, int) else str(part))
    return out


def _failure(
    name: FailureName,
    call: ToolCall,
    step: int,
    field_path: str | None,
    value: Any,
    keyword: str,
    error: ValidationError,
    reason: str | None = None,
) -> Failure:
    said = error.message if reason is None else reason
    message = f"{call.tool}.{field_path}: {said}" if field_path else f"{call.tool}: {said}"
    evidence = {
        "tool": call.tool,
        "field": field_path,
        "value": jsonable(value),
        "constraint": keyword,
        "limit": jsonable(error.validator_value),
    }
    return Failure(name=name, step=step, message=message, evidence=evidence)


def _undeclared(field_path: str, value: Any, call: ToolCall, step: int) -> Failure:
    return Failure(
        name="hallucinated_param",
        step=step,
        message=f"{call.tool}.{field_path}: not a parameter in the tool's schema",
        evidence={"tool": call.tool, "field": field_path, "value": jsonable(value)},
    )


def _dedupe(failures: list[Failure]) -> list[Failure]:
    """One failure per (name, field, constraint): `required` errors can repeat through branches."""
    seen: set[tuple[str, Any, Any]] = set()
    out = []
    for f in failures:
        key = (f.name, f.evidence.get("field"), f.evidence.get("constraint"))
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def undeclared_keys(args: Any, schema: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """(dotted path, value) of every argument key its object schema does not declare."""
    if not isinstance(args, Mapping) or not isinstance(schema, Mapping):
        return
    props = schema.get("properties")
    props = props if isinstance(props, Mapping) else {}
    extra = schema.get("additionalProperties")
    described = "properties" in schema or extra is False
    patterns = _patterns(schema.get("patternProperties"))
    for key, value in args.items():
        sub = join_path(path, str(key))
        if key in props:
            yield from _undeclared_inside(value, props[key], sub)
        elif any(p.search(str(key)) for p in patterns):
            continue
        elif isinstance(extra, Mapping):
            yield from _undeclared_inside(value, extra, sub)
        elif described:
            yield sub, value


def _undeclared_inside(value: Any, schema: Any, path: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, Mapping):
        yield from undeclared_keys(value, schema, path)
    elif isinstance(value, list) and isinstance(schema, Mapping):
        items = schema.get("items")
        if isinstance(items, Mapping):
            for i, item in enumerate(value):
                yield from _undeclared_inside(item, items, join_path(path, i))


def _patterns(spec: Any) -> list[re.Pattern[str]]:
    if not isinstance(spec, Mapping):
        return []
    out = []
    for pattern in spec:
        try:
            out.append(re.compile(str(pattern)))
        except re.error:
            continue  # check_schema does not vet regexes; a bad one declares nothing
    return out
