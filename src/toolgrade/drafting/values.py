"""Comparators for drafted argument values, chosen by the value's kind (docs/draft.md).

IDs (a token with a digit, a dash or an underscore), enums, booleans: exact; emails and single
words (a city, a name): ignoring case; numbers: `approx` with a
tolerance; dates: `date`; free text (several words): `semantic`, for the argument_equivalence
judge; objects: field by field. When the runs disagree, every value they used is accepted
(`one_of`), except free text, which keeps the first wording for the judge.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: Keys that make a mapping a comparator: an object holding one is written as `exact`.
COMPARATOR_KEYS = frozenset({"exact", "one_of", "approx", "date", "casefold", "regex",
                             "semantic", "any", "absent", "unordered"})
#: The tolerance of drafted numbers (absolute, in the value's unit).
NUMBER_TOLERANCE = 0.01

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}"
                   r"(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$")
_WORD = re.compile(r"^[^\W\d_]+$")


@dataclass(frozen=True)
class Drafted:
    """A reference value (a bare value or a comparator) and the kind it was read as."""

    value: Any
    kind: str


def kind_of(value: Any, enum: Sequence[Any] | None = None) -> str:
    """`enum`, `boolean`, `null`, `number`, `email`, `date`, `text`, `word`, `id`, `list`,
    `object`."""
    if enum is not None and value in enum:
        return "enum"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "list"
    text = str(value)
    if _EMAIL.match(text):
        return "email"
    if _DATE.match(text):
        return "date"
    if len(text.split()) >= 2:
        return "text"
    return "word" if _WORD.match(text) else "id"


def _one(value: Any, kind: str) -> Any:
    """The comparator of one observed value of `kind`."""
    if kind == "number":
        return {"approx": value, "tol": NUMBER_TOLERANCE}
    if kind in ("email", "word"):
        return {"casefold": value}
    if kind == "date":
        return {"date": value}
    if kind == "text":
        return {"semantic": value}
    if kind in ("object", "list") or (isinstance(value, dict) and COMPARATOR_KEYS & set(value)):
        return {"exact": value}
    return value


def _distinct(values: Sequence[Any]) -> list[Any]:
    """The values once each, in first-seen order (25 and 25.0 are one number)."""
    seen: dict[str, Any] = {}
    for value in values:
        number = isinstance(value, int | float) and not isinstance(value, bool)
        key = repr(float(value)) if number else json.dumps(value, sort_keys=True, default=str)
        seen.setdefault(key, value)
    return list(seen.values())


def draft_value(values: Sequence[Any], enum: Sequence[Any] | None = None) -> Drafted:
    """The reference for one argument from the values the runs gave it (one per run)."""
    distinct = _distinct(values)
    kinds = {kind_of(v, enum) for v in distinct}
    kind = kinds.pop() if len(kinds) == 1 else "mixed"
    if kind == "object" and len(distinct) == 1 and not COMPARATOR_KEYS & set(distinct[0]):
        return Drafted({k: _one(v, kind_of(v)) for k, v in distinct[0].items()}, "object")
    if len(distinct) == 1:
        return Drafted(_one(distinct[0], kind), kind)
    if kind == "text":
        return Drafted({"semantic": distinct[0]}, "text")
    if kind in ("email", "word") and len({str(v).casefold() for v in distinct}) == 1:
        return Drafted({"casefold": distinct[0]}, kind)
    return Drafted({"one_of": [_one(v, kind_of(v, enum)) for v in distinct]}, kind)
