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
