"""What an answer says about statuses, yes/no fields and names, against the tool results.

Three readings a small model gets wrong and code gets right often enough to be a signal:
- a status word in the answer from another family than every status the results give
  ("delivered" when the result says `in_transit`, "approved" for `rejected`);
- a yes/no field said with the opposite polarity ("your account is locked" for
  `"locked": false`, "no visa is needed" for `"visa_required": true`);
- a proper name the answer introduces that no result, argument or the task contains
  ("Venice" for `VIE`, "Paris" out of nowhere).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from toolgrade.jsonio.leaves import leaves
from toolgrade.units import MONTH_NAMES

#: Status families: a word of one family contradicts a result whose statuses are all of others.
_FAMILIES: dict[str, tuple[str, ...]] = {
    "done": ("approved", "complete", "completed", "delivered", "sent", "resolved", "confirmed",
             "paid", "succeeded", "successful", "active", "unlocked", "enabled", "refunded",
             "on time", "in stock", "available", "granted", "shipped", "valid"),
    "waiting": ("pending", "in transit", "in_transit", "processing", "open", "waiting",
                "scheduled", "queued", "in progress", "in_progress", "pending_approval",
                "awaiting", "on hold", "on_hold"),
    "failed": ("rejected", "failed", "bounced", "cancelled", "canceled", "delayed", "declined",
               "expired", "locked", "disabled", "out of stock", "out_of_stock", "closed",
               "suspended", "blocked", "denied", "invalid", "unavailable", "overdue"),
}
_STATUS_KEYS = re.compile(r"status|state", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|no|never|isn'?t|aren'?t|wasn'?t|weren'?t|don'?t|doesn'?t|"
                       r"didn'?t|won'?t|cannot|can'?t|without|nothing|out of|none)\b|n't\b",
                       re.IGNORECASE)
_CLAUSE = re.compile(r"[.;!?]|,\s+(?:but|so|and)\b|\bbut\b")
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]{2,}\b")
#: Capitalised words that are not names of anything the results could contain.
_COMMON = frozenset({
    "The", "Your", "You", "Yes", "No", "It", "Its", "This", "That", "There", "We", "Our",
    "Please", "Sorry", "Unfortunately", "Good", "Great", "Thanks", "Thank", "Let", "If",
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "Today",
    *MONTH_NAMES, "UTC", "Want", "Would", "Shall", "Should", "Done",
})


def _walk(value: Any) -> Iterator[tuple[str, Any]]:
    """(nearest key, scalar) of every leaf, JSON in strings decoded; a string that encodes a
    scalar (`"false"`, `"12"`) is read as that scalar, as a tool's stringly result means it."""
    for leaf in leaves(value, decode=True):
        yield leaf.key, _scalar(leaf.value)


def _scalar(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        return value


def _family(word: str) -> str | None:
    word = word.lower().replace("-", " ")
    for name, words in _FAMILIES.items():
        if word in words or word.replace("_", " ") in words:
            return name
    return None


def _families_in(text: str) -> set[str]:
    lowered = text.lower()
    found = set()
    for name, words in _FAMILIES.items():
        for word in words:
            if re.search(rf"\b{re.escape(word)}\b", lowered):
                found.add(name)
    return found


def status_conflict(answer: str, results: Iterable[Any]) -> str | None:
    """The status the answer gives against the results' statuses, when families differ."""
    statuses = [str(v) for r in results for k, v in _walk(r) if _STATUS_KEYS.search(k)
                and isinstance(v, str)]
    families = {f for s in statuses if (f := _family(s)) is not None}
    if not families:
        return None
    clauses = [c for c in _CLAUSE.split(answer) if not _NEGATION.search(c)]
    said = set().union(*(_families_in(c) for c in clauses)) if clauses else set()
    if said and not said & families:
        return f"the answer gives a {'/'.join(sorted(said))} status; the results say " + \
            ", ".join(sorted(set(statuses)))
    return None


def polarity_conflict(answer: str, results: Iterable[Any]) -> str | None:
    """A yes/no field the answer states with the opposite polarity, if any."""
    values: dict[str, set[bool]] = {}
    for r in results:
        for k, v in _walk(r):
            if isinstance(v, bool) and k:
                values.setdefault(k, set()).add(v)
    # A field that is true for one item and false for another (a list of hotels) says nothing
    # about the answer's polarity as a whole.
    flags = [(k, next(iter(vs))) for k, vs in values.items() if len(vs) == 1]
    clauses = _CLAUSE.split(answer)
    for key, value in flags:
        words = [w for w in re.split(r"[_\W]+", key.lower()) if len(w) > 2
                 and w not in ("required", "has", "can", "allowed", "enabled")] or [key.lower()]
        for clause in clauses:
            if not any(re.search(rf"\b{re.escape(w)}", clause.lower()) for w in words):
                continue
            said = not _NEGATION.search(clause)
            if said != value:
                return f"{key} is {str(value).lower()} but the answer says {clause.strip()!r}"
            break
    return None


def unknown_names(answer: str, sources: Iterable[str]) -> list[str]:
    """Proper names in the answer that appear in no source (case-insensitive)."""
    known = " ".join(sources).lower()
    return sorted({m.group(0) for m in _NAME.finditer(answer)
                   if m.group(0) not in _COMMON and m.group(0).lower() not in known})
