"""A fast "valid" for tool schemas: fastjsonschema, only where it cannot disagree with jsonschema.

jsonschema's Draft 2020-12 validator is authoritative and produces the detailed failures, but
walking every call through `iter_errors` dominates grading. Most tool schemas use a handful of
keywords whose meaning is the same in fastjsonschema's draft-07 code generator, so for those a
compiled function answers the common question (is this call valid?) at a fraction of the cost.

Soundness is one-sided and that is all we need: when the fast function accepts, jsonschema would
accept too; when it rejects, or when the schema is outside the allow-list, the caller runs
jsonschema, whose verdict stands. The allow-list is deliberately narrow:

- `type`, `required`, `properties`, `additionalProperties`, `items` (a single schema),
  `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` (numbers), `minLength`,
  `maxLength`, `minItems`, `maxItems`, `uniqueItems`, `minProperties`, `maxProperties`, and the
  annotations `description`, `title`, `default`, `examples`;
- `enum` / `const` with scalar values only (both libraries keep `True` apart from `1` there);
- `pattern` unless it holds `$` together with a `(?` group: fastjsonschema rewrites `$` to `\\Z`,
  which only narrows a match, except inside a lookaround or conditional, where it could widen it.

Left out on purpose: `multipleOf` (fastjsonschema divides floats through Decimal, jsonschema
through float, so 19.01 / 0.01 differs), `format`, `$ref`, the `*Of` branches, `prefixItems`,
`patternProperties`, boolean sub-schemas other than `additionalProperties`, and property names
outside a plain character set (fastjsonschema pastes them into generated source).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

import fastjsonschema

#: Keywords whose value is a number, a count or a flag: nothing nested to walk.
_PLAIN = frozenset(
    {
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
        "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties",
    }
)  # fmt: skip
_ANNOTATIONS = frozenset({"description", "title", "default", "examples"})
_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})
#: Property names fastjsonschema can paste into generated code without escaping trouble.
_SAFE_NAME = re.compile(r"[A-Za-z0-9_\-.]+")

FastCheck = Callable[[Any], bool]


def fast_checker(schema: Any) -> FastCheck | None:
    """A function answering True only for values jsonschema also accepts, or None when the
    schema uses anything outside the allow-list (or fastjsonschema cannot compile it).

    `schema` must already have passed `Draft202012Validator.check_schema`.
    """
    if not eligible(schema):
        return None
    try:
        validate = fastjsonschema.compile(schema, use_default=False, use_formats=False)
    except Exception:  # anything it cannot compile is simply left to jsonschema
        return None

    def is_valid(value: Any) -> bool:
        try:
            validate(value)
        except Exception:  # a rejection, or generated code tripping on a value: ask jsonschema
            return False
        return True

    return is_valid


def eligible(schema: Any) -> bool:
    """Whether every keyword of `schema`, at every depth, is on the allow-list."""
    if not isinstance(schema, Mapping):
        return False
    return all(_keyword_ok(key, value) for key, value in schema.items())


def _keyword_ok(key: str, value: Any) -> bool:
    if key in _ANNOTATIONS:
        return True
    if key in _PLAIN:
        return _number(value) or (key == "uniqueItems" and isinstance(value, bool))
    if key == "type":
        types = value if isinstance(value, list) else [value]
        return all(isinstance(t, str) and t in _TYPES for t in types)
    if key == "required":
        return isinstance(value, list) and all(_safe_name(n) for n in value)
    if key == "properties":
        return isinstance(value, Mapping) and all(
            _safe_name(name) and eligible(sub) for name, sub in value.items()
        )
    if key == "additionalProperties":
        return isinstance(value, bool) or eligible(value)
    if key == "items":
        return eligible(value)
    if key == "enum":
        return isinstance(value, list) and all(_scalar(v) for v in value)
    if key == "const":
        return _scalar(value)
    if key == "pattern":
        return isinstance(value, str) and _safe_pattern(value)
    return False


def _number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    # Ints are checked apart: math.isfinite would overflow on a very large one.
    return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | bool) or _number(value)


def _safe_name(name: Any) -> bool:
    return isinstance(name, str) and _SAFE_NAME.fullmatch(name) is not None


def _safe_pattern(pattern: str) -> bool:
    return "$" not in pattern or "(?" not in pattern


# --- one pass: a flat object schema of scalar properties -------------------------------------
#
# Most tool schemas are one object of scalar properties. For those, a valid call is decided in
# one pass over its arguments by a test per property, built once per schema from the keywords
# jsonschema applies (`_keywords.py`: `type`, `enum`, `const`, `pattern`, lengths and bounds),
# each test accepting only what jsonschema accepts; anything else falls back to the fast
# checker above and then jsonschema, whose verdict stands.

#: Top-level keywords a one-pass schema may hold.
_ONE_PASS_TOP = frozenset({"type", "properties", "required", "additionalProperties"})
#: What a JSON type is to a one-pass test, by the Python types taken as that type without
#: asking jsonschema (an integral float is an integer to jsonschema; that is left to it).
_PY_TYPES: dict[str, frozenset[type]] = {
    "string": frozenset({str}),
    "number": frozenset({int, float}),
    "integer": frozenset({int}),
    "boolean": frozenset({bool}),
    "null": frozenset({type(None)}),
}
_NUMBERS = (int, float)

#: One test of one argument value: True only when jsonschema accepts it for that keyword.
ValueTest = Callable[[Any], bool]


def one_pass_checker(schema: Any) -> FastCheck | None:
    """For an object schema whose properties are all scalars with the keywords above, a
    function answering True only for arguments jsonschema accepts and whose every key the
    schema declares (so nothing is `hallucinated_param`); None for any other schema.

    `schema` must already have passed `Draft202012Validator.check_schema`.
    """
    if not isinstance(schema, Mapping) or not schema.keys() <= _ONE_PASS_TOP:
        return None
    props = schema.get("properties", {})
    required = schema.get("required", [])
    if schema.get("type", "object") != "object" or not isinstance(props, Mapping):
        return None
    if not isinstance(schema.get("additionalProperties", True), bool):
        return None
    if not isinstance(required, list) or not all(isinstance(name, str) for name in required):
        return None
    tests: dict[str, ValueTest] = {}
    for name, sub in props.items():
        test = _property_test(sub)
        if test is None:
            return None
        tests[name] = test
    return _all_declared_and_passing(frozenset(required), tests)


def _all_declared_and_passing(needed: frozenset[str], tests: dict[str, ValueTest]) -> FastCheck:
    """The one-pass check: every required key present, every key declared, every value passing."""

    def accepts(args: Any) -> bool:
        if type(args) is not dict or not args.keys() >= needed:
            return False
        for key, value in args.items():
            test = tests.get(key)
            if test is None or not test(value):
                return False
        return True

    return accepts


def _property_test(schema: Any) -> ValueTest | None:
    """The test of one property's value, or None when its schema is not a one-pass scalar."""
    if not isinstance(schema, Mapping):
        return None
    types: frozenset[type] | None = None
    checks: list[ValueTest] = []
    for key, value in schema.items():
        if key in _ANNOTATIONS:
            continue
        if key == "type":
            types = _py_types(value)
            if types is None:
                return None
            continue
        check = _keyword_test(key, value)
        if check is None:
            return None
        checks.append(check)
    return _scalar_test(types, tuple(checks))


def _scalar_test(types: frozenset[type] | None, checks: tuple[ValueTest, ...]) -> ValueTest:
    """One property's test: its types, then each keyword's check (one or none, mostly)."""
    if len(checks) > 1:
        return lambda v: (types is None or type(v) in types) and all(c(v) for c in checks)
    if checks:
        check = checks[0]
        return lambda v: (types is None or type(v) in types) and check(v)
    return lambda v: types is None or type(v) in types


def _py_types(value: Any) -> frozenset[type] | None:
    """The Python types a `type` keyword accepts here; None beyond scalars."""
    names = value if isinstance(value, list) else [value]
    if not all(isinstance(n, str) and n in _PY_TYPES for n in names):
        return None
    return frozenset().union(*(_PY_TYPES[n] for n in names))


def _keyword_test(key: str, limit: Any) -> ValueTest | None:
    """A value keyword's test, as jsonschema words the keyword; None when not one-pass.

    Each test passes a value the keyword does not apply to (a bound on a string), as
    jsonschema does, and fails a NaN against any bound (jsonschema would pass it: left to it).
    """
    if key in ("enum", "const"):
        options = limit if key == "enum" else [limit]
        if not isinstance(options, list) or not all(type(o) is str for o in options):
            return None
        allowed = frozenset(options)  # a string equals only a string (jsonschema's `equal`)
        return lambda v: type(v) is str and v in allowed
    if key == "pattern":
        try:
            compiled = re.compile(limit)  # jsonschema: `re.search(pattern, instance)`
        except (re.error, TypeError):
            return None
        return lambda v: type(v) is not str or compiled.search(v) is not None
    if key in ("minLength", "maxLength"):
        if type(limit) is not int:
            return None
        if key == "minLength":
            return lambda v: type(v) is not str or len(v) >= limit
        return lambda v: type(v) is not str or len(v) <= limit
    if key in _BOUNDS and _number(limit):
        return _BOUNDS[key](limit)
    return None


def _at_least(lo: float) -> ValueTest:
    return lambda v: type(v) not in _NUMBERS or v >= lo


def _above(lo: float) -> ValueTest:
    return lambda v: type(v) not in _NUMBERS or v > lo


def _at_most(hi: float) -> ValueTest:
    return lambda v: type(v) not in _NUMBERS or v <= hi


def _below(hi: float) -> ValueTest:
    return lambda v: type(v) not in _NUMBERS or v < hi


_BOUNDS: dict[str, Callable[[float], ValueTest]] = {
    "minimum": _at_least,
    "exclusiveMinimum": _above,
    "maximum": _at_most,
    "exclusiveMaximum": _below,
}
