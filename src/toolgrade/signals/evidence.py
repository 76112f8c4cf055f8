"""Deterministic evidence for `argument_equivalence`, computed before any model is asked.

A 1.5B model reads "5 kg" and "5 lb", or "March 3" and "May 3", as near-identical text. Code
reads them exactly. This module pulls the load-bearing facts out of the reference and the
agent's value (dates, clock times, quantities with units, IDs, plain numbers) and, where the two
values share a kind of fact but have no value of it in common, settles the verdict as fail
without the model. Conversions are applied first (1 kg = 2.2 lb, 180 °C = 356 °F, two weeks =
14 days, 2 pm = 14:00, 2025-03-03 = 3 March 2025), so a correct value written another way is
never failed here; when no fact settles it, the model decides. A case author's rubric takes
precedence over these rules (it may say that numbers do not matter), so with a rubric nothing
is settled here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolgrade.units import KG_PER_LB, KG_PER_OZ, M_PER_MILE, MONTH_NUMBERS

_MONTHS = MONTH_NUMBERS
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ORD = r"(?:st|nd|rd|th)?"
_DATE_PATTERNS = (
    re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})\b"),
    re.compile(rf"\b(?P<d>\d{{1,2}}){_ORD}\s+(?:of\s+)?(?P<mon>{_MONTH_RE})\.?(?:,?\s+(?P<y>\d{{4}}))?\b",
               re.IGNORECASE),
    re.compile(rf"\b(?P<mon>{_MONTH_RE})\.?\s+(?P<d>\d{{1,2}}){_ORD}(?:,?\s+(?P<y>\d{{4}}))?\b",
               re.IGNORECASE),
)
_TIME_PATTERNS = (
    re.compile(r"\b(?P<h>\d{1,2})(?::(?P<min>\d{2}))?\s*(?P<ap>[ap])\.?m\.?\b", re.IGNORECASE),
    re.compile(r"\b(?P<h>\d{1,2}):(?P<min>\d{2})\b"),
)
_WORD_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a": 1, "an": 1,
}
#: unit spelling -> (kind, factor to the kind's base unit); temperatures are handled apart.
_UNITS: dict[str, tuple[str, float]] = {
    **dict.fromkeys(("kg", "kgs", "kilo", "kilos", "kilogram", "kilograms"), ("mass", 1.0)),
    **dict.fromkeys(("g", "gram", "grams"), ("mass", 0.001)),
    **dict.fromkeys(("lb", "lbs", "pound", "pounds"), ("mass", KG_PER_LB)),
    **dict.fromkeys(("oz", "ounce", "ounces"), ("mass", KG_PER_OZ)),
    **dict.fromkeys(("km", "kilometre", "kilometres", "kilometer", "kilometers"),
                    ("length", 1000.0)),
    **dict.fromkeys(("m", "metre", "metres", "meter", "meters"), ("length", 1.0)),
    **dict.fromkeys(("cm",), ("length", 0.01)),
    **dict.fromkeys(("mi", "mile", "miles"), ("length", M_PER_MILE)),
    **dict.fromkeys(("day", "days"), ("duration", 1.0)),
    **dict.fromkeys(("week", "weeks"), ("duration", 7.0)),
    **dict.fromkeys(("night", "nights"), ("nights", 1.0)),
    **dict.fromkeys(("hour", "hours", "hr", "hrs"), ("hours", 1.0)),
    **dict.fromkeys(("minute", "minutes", "min", "mins"), ("hours", 1 / 60)),
    **dict.fromkeys(("%", "percent", "per cent"), ("percent", 1.0)),
    **dict.fromkeys(("eur", "euro", "euros", "€"), ("money:eur", 1.0)),
    **dict.fromkeys(("usd", "dollar", "dollars", "$"), ("money:usd", 1.0)),
    **dict.fromkeys(("gbp", "£"), ("money:gbp", 1.0)),
}
_NUM = r"\d+(?:[.,]\d+)?"
_UNIT_WORDS = "|".join(
    re.escape(u) for u in sorted((u for u in _UNITS if u[0].isalpha() or u == "%"), key=len,
                                 reverse=True)
)
_QTY_AFTER = re.compile(
    rf"(?P<n>{_NUM}|\b(?:{'|'.join(_WORD_NUMBERS)}))\s*(?P<u>{_UNIT_WORDS})(?![a-z])",
    re.IGNORECASE,
)
_QTY_BEFORE = re.compile(rf"(?P<u>[€$£])\s*(?P<n>{_NUM})")
_TEMP = re.compile(rf"(?P<n>-?{_NUM})\s*°?\s*(?P<u>[CF])\b")
_ID = re.compile(r"\b(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*\b")
_BARE = re.compile(r"(?<![\w.,])\d+(?:\.\d+)?(?![\w.,]?\d)")
_REL_TOL = 0.03  # "2.2 lb" is 0.998 kg: rounding in a conversion is not a different value


@dataclass
class Facts:
    """The load-bearing facts of one value, each kind a set of normalised values."""

    by_kind: dict[str, set[Any]] = field(default_factory=dict)

    def add(self, kind: str, value: Any) -> None:
        """Record one fact of `kind`."""
        self.by_kind.setdefault(kind, set()).add(value)


def _number(text: str) -> float:
    word = _WORD_NUMBERS.get(text.lower())
    return float(word) if word is not None else float(text.replace(",", "."))


def _take(pattern: re.Pattern[str], text: str) -> tuple[list[re.Match[str]], str]:
    """The matches of `pattern`, and the text with them blanked (so no fact is read twice)."""
    found = list(pattern.finditer(text))
    for match in reversed(found):
        text = text[: match.start()] + " " * (match.end() - match.start()) + text[match.end():]
    return found, text


def _dates(text: str, facts: Facts) -> str:
    for pattern in _DATE_PATTERNS:
        found, text = _take(pattern, text)
        for m in found:
            month = int(m["m"]) if "m" in m.groupdict() and m["m"] else _MONTHS[m["mon"].lower()]
            facts.add("date", (month, int(m["d"])))
    return text


def _times(text: str, facts: Facts) -> str:
    for pattern in _TIME_PATTERNS:
        found, text = _take(pattern, text)
        for m in found:
            hour, minute = int(m["h"]) % 24, int(m["min"] or 0)
            ap = (m.groupdict().get("ap") or "").lower()
            if ap == "p" and hour < 12:
                hour += 12
            elif ap == "a" and hour == 12:
                hour = 0
            facts.add("time", hour * 60 + minute)
    return text


def _quantities(text: str, facts: Facts, raw: bool) -> str:
    found, text = _take(_TEMP, text)
    for m in found:
        value = _number(m["n"])
        celsius = value if m["u"].upper() == "C" else (value - 32) * 5 / 9
        facts.add("raw" if raw else "temperature", value if raw else round(celsius, 1))
    for pattern in (_QTY_BEFORE, _QTY_AFTER):
        found, text = _take(pattern, text)
        for m in found:
            kind, factor = _UNITS[m["u"].lower()]
            if raw:
                facts.add("raw", _number(m["n"]))
            else:
                facts.add(kind, round(_number(m["n"]) * factor, 4))
    return text


def extract_facts(value: str, *, raw_quantities: bool = False) -> Facts:
    """Dates, times, temperatures, quantities, IDs and plain numbers in `value`.

    `raw_quantities` records each quantity's number as written, of kind `raw`, instead of
    converted to its kind's base unit (for comparing with numbers that carry no unit).
    """
    facts = Facts()
    text = _dates(value, facts)
    text = _times(text, facts)
    text = _quantities(text, facts, raw_quantities)
    found, text = _take(_ID, text)
    for m in found:
        facts.add("id", m.group(0).replace("-", ""))
    for m in _BARE.finditer(text):
        facts.add("number", float(m.group(0)))
    return facts


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, float | int) and isinstance(b, float | int):
        return abs(a - b) <= _REL_TOL * max(abs(a), abs(b), 1e-9)
    return bool(a == b)


def _show(values: set[Any]) -> str:
    return ", ".join(sorted(str(v) for v in values))


@dataclass(frozen=True)
class Settled:
    """A verdict settled without the model, and why."""

    verdict: str
    reason: str


def settle_arguments(inputs: Mapping[str, Any]) -> Settled | None:
    """Fail when the two values share a kind of fact with no value in common; else None."""
    expected, actual = inputs.get("expected"), inputs.get("actual")
    if inputs.get("rubric") or not isinstance(expected, str) or not isinstance(actual, str):
        return None
    if expected.strip() and not actual.strip():
        return Settled("fail", "deterministic: the agent's value is empty")
    ref, got = extract_facts(expected), extract_facts(actual)
    money = [k for k in ref.by_kind if k.startswith("money:")]
    got_money = [k for k in got.by_kind if k.startswith("money:")]
    if money and got_money and not set(money) & set(got_money):
        return Settled("fail", f"deterministic: the currencies differ ({', '.join(money)} vs "
                               f"{', '.join(got_money)})")
    for kind, values in ref.by_kind.items():
        other = got.by_kind.get(kind)
        if not other:
            continue
        if not any(_close(a, b) for a in values for b in other):
            return Settled(
                "fail",
                f"deterministic: the {kind} differs (reference {_show(values)}, agent "
                f"{_show(other)})",
            )
    return None
