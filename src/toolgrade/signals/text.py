"""Small readings of free text shared by the signal extractors: claims, admissions, facts.

The word lists are deliberately short and generic (customer-service English, as agents write
it): a signal is one input of a fitted combination whose weight calibration measures, never a
verdict by itself, so a word list that misses a phrasing costs a little weight, not a verdict.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from toolgrade.jsonio.leaves import keys_and_scalars
from toolgrade.signals.evidence import extract_facts
from toolgrade.units import KG_PER_LB, KM_PER_MILE, LB_PER_KG

#: Phrases by which an answer says an action was carried out.
_DONE = re.compile(
    r"\b(?:done|completed?|successfully|confirmed|processed|"
    r"(?:has|have|was|were|is|are)\s+(?:now\s+)?(?:been\s+)?"
    r"(?:cancel+ed|refunded|booked|sent|issued|updated|changed|moved|created|unlocked|reset|"
    r"scheduled|submitted|applied|added|removed|deleted|enabled|disabled|approved|placed|"
    r"paid|transferred|resolved|restored|activated|returned|exchanged)|"
    r"i(?:'ve| have)\s+(?:now\s+|just\s+)?(?:\w+ed|sent|made|put|set|paid)|"
    r"all set|you'?re all set)\b",
    re.IGNORECASE,
)
#: Phrases by which an answer admits that something did not work or is not known.
_ADMIT = re.compile(
    r"\b(?:sorry|unfortunately|unable|couldn'?t|could not|can'?t|cannot|wasn'?t able|"
    r"not able|failed|failing|error|errors|unavailable|not available|down|timed? ?out|"
    r"try again|later|didn'?t go through|did not go through|no longer|problem|issue|"
    r"not (?:yet )?(?:been )?(?:processed|completed|confirmed)|pending|queued|waiting for|"
    r"not yet)\b",
    re.IGNORECASE,
)
#: Words of a handover to a person (a ticket, an agent, a colleague).
_HANDOVER = re.compile(
    r"\b(?:escalat\w*|hand(?:ed)? (?:it )?over|handoff|human|colleague|specialist|agent will|"
    r"ticket|support team|someone from)\b",
    re.IGNORECASE,
)


def claims_done(text: str) -> bool:
    """True when `text` tells the user that an action was carried out."""
    return bool(_DONE.search(text))


def admits_trouble(text: str) -> bool:
    """True when `text` says that something failed or cannot be answered now."""
    return bool(_ADMIT.search(text))


def mentions_handover(text: str) -> bool:
    """True when `text` hands the matter to a person."""
    return bool(_HANDOVER.search(text))


def objects(value: Any) -> list[Mapping[str, Any]]:
    """The JSON objects of a list input (tool results, transcript steps); [] for anything else."""
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


def flat_text(value: Any) -> str:
    """Any JSON value as one string of its keys and scalars, JSON held in strings decoded
    (for fact extraction)."""
    return " ".join(keys_and_scalars(value, decode=True))


#: "1,250.00" -> "1250.00": thousands separators would split a number in two.
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
#: 12/06/2025 or 6/12: either reading may be the meant one.
_SLASH_DATE = re.compile(r"\b(\d{1,2})/(\d{1,2})(?:/(\d{2,4}))?\b")
#: Unit conversions agents write beside a value ("23 kg (about 50 lb)").
_FACTORS = (1.0, LB_PER_KG, KG_PER_LB, KM_PER_MILE, 1 / KM_PER_MILE, 1000.0, 0.001)
#: Fact kinds holding a plain number.
_RAW_KINDS = frozenset({"number", "raw"})
_TOLERANCE = 0.03  # "about 50 lb" for 23 kg; "around 64 °F" for 18 °C
_ROUNDING = 0.01  # "about $50" for 49.99


#: "2025-06-10T11:20:00": the date and the time are two facts, not one word.
_ISO_T = re.compile(r"(?<=\d{4}-\d{2}-\d{2})T(?=\d{2}:\d{2})")


def _normalise(text: str) -> str:
    return _ISO_T.sub(" ", _THOUSANDS.sub("", text))


def _slash_dates(text: str) -> tuple[list[set[tuple[int, int]]], str]:
    """Each slashed date's two readings (month, day), and the text without them."""
    found = []
    for m in _SLASH_DATE.finditer(text):
        a, b = int(m[1]), int(m[2])
        found.append({(a, b), (b, a)})
    return found, _SLASH_DATE.sub(" ", text)


def _facts(text: str, *, raw_quantities: bool) -> list[tuple[str, Any]]:
    facts = extract_facts(_normalise(text), raw_quantities=raw_quantities)
    return [(kind, v) for kind, values in facts.by_kind.items() for v in values]


def _close(a: float, b: float, tolerance: float) -> bool:
    return abs(a - b) <= tolerance * max(abs(a), abs(b), 1.0)


def _number_known(number: float, numbers: list[float], derived: list[float]) -> bool:
    """Said as in a source (to rounding), converted from one, or computed from two."""
    if any(_close(number, m, _ROUNDING) for m in numbers + derived):
        return True
    if any(_close(number * f, m, _TOLERANCE) for m in numbers for f in _FACTORS[1:]):
        return True
    celsius = (number - 32) * 5 / 9
    return any(_close(celsius, m, _TOLERANCE) for m in numbers)


def _derived(numbers: list[float]) -> list[float]:
    """Sums, differences and products of two source numbers (totals agents compute)."""
    small = numbers[:40]  # bounded: a long result must not make this quadratic in its size
    return [x for a in small for b in small for x in (a + b, a - b, a * b)]


def unsupported_facts(answer: str, sources: Iterable[str]) -> list[str]:
    """The facts (dates, times, IDs, numbers) of `answer` that no source contains or implies.

    Numbers match across units and kinds (23 kg may be said as 50 lb; a "balance 1250.0" as
    "€1,250"), within 3%; a number derived from two source numbers (a sum, a difference, a
    product) counts as supported, and 0 and 1 ("one of them", "no fees") carry no fact.
    """
    texts = [_normalise(t) for t in sources]
    known = [f for text in texts for f in _facts(text, raw_quantities=True)]
    numbers = [float(v) for k, v in known if k in _RAW_KINDS]
    known_dates = {v for k, v in known if k == "date"}
    numbers += [float(x) for d in known_dates for x in d]
    slashed, rest = _slash_dates(_normalise(answer))
    out = [f"date {sorted(r)[0][1]}/{sorted(r)[0][0]}" for r in slashed if not r & known_dates]
    derived = _derived(numbers)
    for kind, value in _facts(rest, raw_quantities=True):
        if kind == "date":
            if value not in known_dates:
                out.append(f"date {value[1]}/{value[0]}")
        elif kind in ("time", "id"):
            if (kind, value) not in known:
                out.append(f"{kind} {value}")
        elif (kind in _RAW_KINDS and abs(float(value)) > 1
              and not _number_known(float(value), numbers, derived)):
            out.append(f"number {value:g}")
    return sorted(set(out))

