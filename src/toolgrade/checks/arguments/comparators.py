"""Argument comparators (docs/comparators.md): a reference value parsed and applied.

A bare scalar is `exact`; a bare list is compared item by item in order; a mapping holding
exactly one comparator key (`exact`, `one_of`, `approx`, `date`, `casefold`, `regex`, `semantic`,
`any`, `absent`, `unordered`) is that comparator, with its options beside it (`normalize`,
`tol`, `rel`, `tz`, `rubric`); any other mapping is a nested object compared field by field.
The user-facing reference is docs/comparators.md.

This module holds the language (parsing, validation) and the value semantics (type-aware
equality, dates, leaf comparators); `matching.compare` walks a comparator tree over a value.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, tzinfo
from typing import Any, Literal, TypeAlias

from toolgrade.checks.arguments.dates import day_in, in_zone, parse_date, parse_tz
from toolgrade.errors import ToolgradeError

COMPARATOR_KEYS = (
    "exact", "one_of", "approx", "date", "casefold", "regex", "semantic", "any", "absent",
    "unordered",
)  # fmt: skip
#: Options allowed beside each comparator key.
OPTIONS: dict[str, frozenset[str]] = {
    "exact": frozenset({"normalize", "strict"}),
    "one_of": frozenset({"normalize", "strict"}),
    "approx": frozenset({"tol", "rel"}),
    "date": frozenset({"tz"}),
    "semantic": frozenset({"rubric"}),
}

Status = Literal["match", "wrong", "missing", "unscored"]
JudgeAnswer = Literal["pass", "fail", "unscored"]


class SpecError(ToolgradeError, ValueError):
    """A reference argument that is not a valid comparator; the message lists every problem."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


# --- the comparator tree ---------------------------------------------------------------------


@dataclass(frozen=True)
class Exact:
    """Equal after type-aware normalisation; `normalize` also applies BFCL string folding;
    `strict` keeps integers and floats apart (5.0 is not 5, as for a benchmark that checks
    Python types)."""

    value: Any
    normalize: bool
    raw: Any
    strict: bool = False


@dataclass(frozen=True)
class OneOf:
    """Any option matches; `allow_absent` when `{absent: true}` is among the options."""

    options: tuple[Comparator, ...]
    allow_absent: bool
    raw: Any


@dataclass(frozen=True)
class Approx:
    """Numeric closeness, absolute (`tol`) and/or relative (`rel`)."""

    value: float
    tol: float | None
    rel: float | None
    raw: Any


@dataclass(frozen=True)
class SameDate:
    """Same calendar date; with `tz`, datetimes compare as instants."""

    value: date
    tz: tzinfo | None
    raw: Any


@dataclass(frozen=True)
class Casefold:
    """Equal after Unicode case folding and whitespace collapsing."""

    text: str
    raw: Any


@dataclass(frozen=True)
class Regex:
    """Full match of the pattern on the value's text."""

    pattern: re.Pattern[str]
    raw: Any


@dataclass(frozen=True)
class Semantic:
    """Judged equivalent to `text` by the argument judge, after deterministic shortcuts."""

    text: str
    rubric: str | None
    raw: Any


@dataclass(frozen=True)
class AnyValue:
    """Present, with any value."""

    raw: Any


@dataclass(frozen=True)
class Absent:
    """Left out."""

    raw: Any


@dataclass(frozen=True)
class InOrder:
    """A list compared item by item, in order, same length."""

    items: tuple[Comparator, ...]
    raw: Any


@dataclass(frozen=True)
class Unordered:
    """A list compared as a multiset: items paired by an optimal assignment."""

    items: tuple[Comparator, ...]
    raw: Any


@dataclass(frozen=True)
class Fields:
    """A nested object: each listed field compared; fields the reference omits are ignored."""

    fields: dict[str, Comparator]
    raw: Any


Comparator: TypeAlias = (
    Exact
    | OneOf
    | Approx
    | SameDate
    | Casefold
    | Regex
    | Semantic
    | AnyValue
    | Absent
    | InOrder
    | Unordered
    | Fields
)


# --- parsing ---------------------------------------------------------------------------------


def join_path(path: str, key: str | int) -> str:
    """`a.b` for a key, `a[0]` for a list index."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


class _Parser:
    """Builds a comparator tree, collecting every problem instead of stopping at the first."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def problem(self, path: str, reason: str) -> None:
        self.problems.append(f"{path}: {reason}" if path else reason)

    def parse(
        self, spec: Any, path: str, normalize: bool = False, strict: bool = False
    ) -> Comparator:
        if isinstance(spec, Mapping):
            keys = [k for k in spec if k in COMPARATOR_KEYS]
            if not keys:
                # `normalize` and `strict` from an enclosing one_of reach bare values at any
                # depth.
                fields = {
                    str(k): self.parse(v, join_path(path, str(k)), normalize, strict)
                    for k, v in spec.items()
                }
                return Fields(fields, spec)
            return self.comparator(spec, keys, path)
        if isinstance(spec, list):
            items = (self.parse(x, join_path(path, i), normalize, strict)
                     for i, x in enumerate(spec))
            return InOrder(tuple(items), spec)
        return Exact(spec, normalize, spec, strict)

    def comparator(self, spec: Mapping[str, Any], keys: list[str], path: str) -> Comparator:
        if len(keys) > 1:
            self.problem(path, f"a comparator takes exactly one of its keys, got {sorted(keys)}")
            return AnyValue(spec)
        key = keys[0]
        allowed = OPTIONS.get(key, frozenset())
        for extra in spec:
            if extra != key and extra not in allowed:
                hint = (
                    f"allowed beside it: {', '.join(sorted(allowed))}"
                    if allowed
                    else "it takes no options"
                )
                self.problem(path, f"unknown key {extra!r} beside comparator {key!r} ({hint})")
        return _BUILDERS[key](self, spec, path)

    def flag(self, spec: Mapping[str, Any], key: str, path: str) -> bool:
        value = spec.get(key, False)
        if not isinstance(value, bool):
            self.problem(path, f"{key!r} must be true or false, got {value!r}")
            return False
        return value

    def number(self, spec: Mapping[str, Any], key: str, path: str) -> float | None:
        value: Any = spec.get(key)
        if value is None and key != "approx":
            return None
        if not is_number(value) or not math.isfinite(value) or (key != "approx" and value < 0):
            need = "a finite number" if key == "approx" else "a finite non-negative number"
            self.problem(path, f"{key!r} must be {need}, got {value!r}")
            return None
        return float(value)

    def text(self, spec: Mapping[str, Any], key: str, path: str) -> str:
        value = spec.get(key)
        if not isinstance(value, str):
            self.problem(path, f"{key!r} must be a string, got {value!r}")
            return ""
        return value

    def items(self, spec: Mapping[str, Any], key: str, path: str) -> list[Any]:
        value = spec.get(key)
        if not isinstance(value, list) or (key == "one_of" and not value):
            self.problem(path, f"{key!r} must be a {'non-empty ' if key == 'one_of' else ''}list")
            return []
        return value


def _exact(p: _Parser, spec: Mapping[str, Any], path: str) -> Comparator:
    return Exact(spec["exact"], p.flag(spec, "normalize", path), spec,
                 p.flag(spec, "strict", path))


def _one_of(p: _Parser, spec: Mapping[str, Any], path: str) -> Comparator:
    normalize = p.flag(spec, "normalize", path)
    strict = p.flag(spec, "strict", path)
    allow_absent, options = False, []
    for i, option in enumerate(p.items(spec, "one_of", path)):
        if isinstance(option, Mapping) and set(option) == {"absent"} and option["absent"] is True:
            allow_absent = True
        else:
            where = join_path(join_path(path, "one_of"), i)
            options.append(p.parse(option, where, normalize, strict))
    return OneOf(tuple(options), allow_absent, spec)


def _approx(p: _Parser, spec: Mapping[str, Any], path: str) -> Comparator:
    value = p.number(spec, "approx", path)
    return Approx(value or 0.0, p.number(spec, "tol", path), p.number(spec, "rel", path), spec)


def _date(p: _Parser, spec: Mapping[str, Any], path: str) -> Comparator:
    value = parse_date(spec["date"])
    if value is None:
        p.problem(path, f"'date' is not a recognisable date: {spec['date']!r}")
    zone = None
    if "tz" in spec:
        zone = parse_tz(spec["tz"])
        if zone is None:
            p.problem(path, f"'tz' is not a known time zone or offset: {spec['tz']!r}")
    return SameDate(value or date.min, zone, spec)


def _casefold(p: _Parser, spec: Mapping[str, Any], path: str) -> Comparator:
    return Casefold(p.text(spec, "casefold", path), spec)


def _regex(p: _Parser, spec: Mapping[str, Any], path: str) -> Comparator:
    try:
        return Regex(re.compile(p.text(spec, "regex", path)), spec)
    except re.error as exc:
        p.problem(path, f"'regex' does not compile: {exc}")
        return AnyValue(spec)


def _semantic(p: _Parser, spec: Mapping[str, Any], path: str) -> Comparator:
    rubric = p.text(spec, "rubric", path) if spec.get("rubric") is not None else None
    text = p.text(spec, "semantic", path)
    if isinstance(spec.get("semantic"), str) and not text.strip():
        # The judge would be asked to compare with nothing; `any: true` says "whatever".
        p.problem(path, "'semantic' needs the meaning to compare with (use {any: true} for any)")
    return Semantic(text, rubric, spec)


def _any(p: _Parser, spec: Mapping[str, Any], path: str) -> Comparator:
    if spec["any"] is not True:
        p.problem(path, f"'any' must be true, got {spec['any']!r}")
    return AnyValue(spec)


def _absent(p: _Parser, spec: Mapping[str, Any], path: str) -> Comparator:
    if spec["absent"] is not True:
        p.problem(path, f"'absent' must be true, got {spec['absent']!r}")
    return Absent(spec)


def _unordered(p: _Parser, spec: Mapping[str, Any], path: str) -> Comparator:
    items = p.items(spec, "unordered", path)
    return Unordered(tuple(p.parse(x, join_path(path, i)) for i, x in enumerate(items)), spec)


_BUILDERS: dict[str, Callable[[_Parser, Mapping[str, Any], str], Comparator]] = {
    "exact": _exact, "one_of": _one_of, "approx": _approx, "date": _date,
    "casefold": _casefold, "regex": _regex, "semantic": _semantic, "any": _any,
    "absent": _absent, "unordered": _unordered,
}  # fmt: skip


def validate_arg_spec(spec: Any) -> list[str]:
    """Problems in one argument's reference value, each prefixed by its dotted sub-path if nested.

    Empty when the value is a valid comparator (a bare value is always valid).
    """
    parser = _Parser()
    parser.parse(spec, "")
    return parser.problems


def parse_spec(spec: Any) -> Comparator:
    """One argument's reference value as a comparator; raises `SpecError` listing the problems."""
    parser = _Parser()
    comparator = parser.parse(spec, "")
    if parser.problems:
        raise SpecError(parser.problems)
    return comparator


def parse_args(args: Mapping[str, Any]) -> dict[str, Comparator]:
    """A reference call's `args` as field -> comparator; raises `SpecError` naming the fields."""
    parser = _Parser()
    out = {str(name): parser.parse(spec, str(name)) for name, spec in args.items()}
    if parser.problems:
        raise SpecError(parser.problems)
    return out


# --- values ----------------------------------------------------------------------------------


def is_number(value: Any) -> bool:
    """An int or float, but not a bool (True is not 1 for an argument)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


_BFCL_STRIP = re.compile(r"[ ,./\-_*^'\"]")


def bfcl_normalize(text: str) -> str:
    """BFCL's string folding: lower case, without spaces and , . / - _ * ^ ' \"."""
    return _BFCL_STRIP.sub("", text).lower()


def fold(text: str) -> str:
    """Unicode case folding with runs of whitespace collapsed to one space.

    Canonically equivalent spellings fold alike (Unicode's canonical caseless match): "É"
    typed as one code point or as "E" plus a combining accent, as macOS and some keyboards
    produce it, is the same letter. ASCII text needs no normalisation and skips it.
    """
    if text.isascii():
        folded = text.casefold()
    else:
        folded = unicodedata.normalize("NFC", unicodedata.normalize("NFD", text).casefold())
    return " ".join(folded.split())


def typed_equal(
    expected: Any, actual: Any, normalize: bool = False, strict: bool = False
) -> bool:
    """Deep equality where 5 == 5.0 but True != 1 and "5" != 5.

    With `normalize`, strings (at any depth) compare after `bfcl_normalize`. With `strict`
    (at any depth), numbers must also have the same JSON type: an integer equals only an
    integer and a float only a float (5.0 is not 5), as for a benchmark that checks Python
    types. A reference date or datetime (YAML reads unquoted timestamps as such) equals its
    ISO text.
    """
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if is_number(expected) or is_number(actual):
        if strict and isinstance(expected, int) != isinstance(actual, int):
            return False
        return is_number(expected) and is_number(actual) and expected == actual
    if isinstance(expected, str) or isinstance(actual, str):
        if isinstance(expected, date) and isinstance(actual, str):
            return _iso_equal(expected, actual)
        if not (isinstance(expected, str) and isinstance(actual, str)):
            return False
        return (
            bfcl_normalize(expected) == bfcl_normalize(actual) if normalize else expected == actual
        )
    if isinstance(expected, Mapping):
        return (
            isinstance(actual, Mapping)
            and set(expected) == set(actual)
            and all(typed_equal(v, actual[k], normalize, strict) for k, v in expected.items())
        )
    if isinstance(expected, list | tuple):
        return (
            isinstance(actual, list | tuple)
            and len(expected) == len(actual)
            and all(typed_equal(e, a, normalize, strict)
                    for e, a in zip(expected, actual, strict=True))
        )
    return type(expected) is type(actual) and bool(expected == actual)


def _iso_equal(expected: date, actual: str) -> bool:
    try:
        if isinstance(expected, datetime):
            parsed: date = datetime.fromisoformat(actual)
        else:
            parsed = date.fromisoformat(actual)
    except ValueError:
        return False
    try:
        return bool(parsed == expected)
    except TypeError:  # naive against aware
        return False


def jsonable(value: Any) -> Any:
    """A JSON-safe copy for evidence: dates as ISO text, tuples as lists."""
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value


def value_text(value: Any) -> str:
    """The text a regex sees: a string as is, anything else as its JSON text."""
    return value if isinstance(value, str) else json.dumps(jsonable(value), ensure_ascii=False)


# --- leaf comparators ------------------------------------------------------------------------


def leaf_mismatch(cmp: Comparator, value: Any) -> str | None:
    """Why a present value fails a leaf comparator (exact, approx, date, casefold, regex, any),
    or None when it matches."""
    if isinstance(cmp, AnyValue):
        return None
    if isinstance(cmp, Exact):
        return None if typed_equal(cmp.value, value, cmp.normalize, cmp.strict) else "not equal"
    if isinstance(cmp, Approx):
        return _approx_mismatch(cmp, value)
    if isinstance(cmp, SameDate):
        return _date_mismatch(cmp, value)
    if isinstance(cmp, Casefold):
        if not isinstance(value, str):
            return "not a string"
        return None if fold(value) == fold(cmp.text) else "not equal after case folding"
    if isinstance(cmp, Regex):
        return None if cmp.pattern.fullmatch(value_text(value)) else "does not match the pattern"
    raise TypeError(f"not a leaf comparator: {cmp!r}")


def _approx_mismatch(cmp: Approx, value: Any) -> str | None:
    if not is_number(value) or math.isnan(value):
        return "not a number"
    if math.isinf(value) != math.isinf(cmp.value):
        # An infinite side is never within a tolerance of a finite one (the slack below would
        # itself be infinite and let it through).
        return "not a finite number" if math.isinf(value) else "not infinite"
    diff = abs(float(value) - cmp.value)
    # Float rounding is forgiven the same way with or without a tolerance: relative to the
    # larger side, and never less than 1e-9 absolute, so `approx: 0` accepts 0.1 + 0.2 - 0.3
    # as `approx: 0, tol: 0` does. Inclusive bounds: 25.01 is within 0.01 of 25.0.
    slack = 1e-9 * max(1.0, abs(cmp.value), abs(float(value)))
    if cmp.tol is None and cmp.rel is None:
        return None if diff <= slack else "not close"
    if cmp.tol is not None and diff <= cmp.tol + slack:
        return None
    if cmp.rel is not None and diff <= cmp.rel * abs(cmp.value) + slack:
        return None
    return f"off by {diff:g}"


def _date_mismatch(cmp: SameDate, value: Any) -> str | None:
    actual = parse_date(value)
    if actual is None:
        return "not a recognisable date"
    expected, zone = cmp.value, cmp.tz
    try:
        if zone is not None and isinstance(expected, datetime) and isinstance(actual, datetime):
            same = in_zone(expected, zone) == in_zone(actual, zone)
            return None if same else "a different instant"
        return None if day_in(expected, zone) == day_in(actual, zone) else "a different date"
    except OverflowError:  # e.g. 9999-12-31T23:00-05:00 seen in UTC is past year 9999
        return "out of the range of dates once seen in the reference's time zone"
