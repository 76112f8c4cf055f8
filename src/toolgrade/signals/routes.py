"""Signals for `alternate_route`: how the agent's tools differ from the closest accepted route.

Tools are read or write from their description ("read-only", "side effect") or, failing that,
from the verb their name starts with. The closest route is the one with the fewest tools added
or left out (as multisets); against it the signals count what was left out, what was added,
writes done twice, and writes done before a check the route puts first.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from toolgrade.signals.base import Signals

_WRITE_WORDS = re.compile(r"side[ -]effect|\b(?:mutat|writes?\b|modif|irreversib|destructiv)",
                          re.IGNORECASE)
_READ_WORDS = re.compile(r"read[ -]only|\bno side effects?\b|\bdoes not change\b", re.IGNORECASE)
_READ_VERBS = frozenset({
    "get", "list", "search", "lookup", "look", "find", "fetch", "read", "view", "show", "query",
    "describe", "calculate", "compute", "estimate", "track", "check", "retrieve", "browse",
    "count", "inspect", "preview", "quote", "price", "whoami", "think", "validate",
})
_CHECK = re.compile(r"verif|auth|confirm|validat|identity|check", re.IGNORECASE)


def _verb(name: str) -> str:
    words = re.split(r"[_\-.\s]+|(?<=[a-z])(?=[A-Z])", name)
    return words[0].lower() if words else ""


def is_write(name: str, description: str) -> bool:
    """True when the tool changes something, by its description, else by its name's verb."""
    if _READ_WORDS.search(description):
        return False
    if _WRITE_WORDS.search(description):
        return True
    return _verb(name) not in _READ_VERBS and not _CHECK.search(name)


def _names(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def closest_route(routes: Sequence[list[str]], actual: list[str]) -> list[str]:
    """The accepted route with the fewest tools added or left out; [] when there is none."""
    got = Counter(actual)

    def distance(route: list[str]) -> int:
        want = Counter(route)
        return sum(((want - got) + (got - want)).values())

    return min(routes, key=distance) if routes else []


def _order_breaks(route: list[str], actual: list[str], writes: set[str]) -> list[str]:
    """Writes called before a tool the route puts before them (and the agent also called)."""
    first: dict[str, int] = {}
    for i, name in enumerate(actual):
        first.setdefault(name, i)
    breaks = []
    for j, name in enumerate(route):
        if name not in writes or name not in first:
            continue
        earlier = [r for r in route[:j] if r in first and first[r] > first[name]]
        breaks += [f"{name} before {r}" for r in earlier]
    return breaks


def route_signals(inputs: Mapping[str, Any]) -> Signals:
    """Left-out, added and doubled tools against the closest accepted route."""
    raw_routes = inputs.get("expected_routes")
    routes = [_names(r) for r in raw_routes] if isinstance(raw_routes, list) else []
    actual = _names(inputs.get("actual_route"))
    described = inputs.get("tool_descriptions")
    descriptions = {str(k): str(v) for k, v in described.items()} if isinstance(
        described, Mapping) else {}
    route = closest_route(routes, actual)
    writes = {n for n in set(route) | set(actual) if is_write(n, descriptions.get(n, ""))}
    missing = Counter(route) - Counter(actual)
    extra = Counter(actual) - Counter(route)
    doubled = [n for n, k in extra.items() if n in writes and n in route for _ in range(k)]
    breaks = _order_breaks(route, actual, writes)
    values = {
        "missing_writes": float(sum(k for n, k in missing.items() if n in writes)),
        "missing_checks": float(sum(k for n, k in missing.items()
                                    if n not in writes and _CHECK.search(n))),
        "missing_reads": float(sum(k for n, k in missing.items()
                                   if n not in writes and not _CHECK.search(n))),
        "extra_writes": float(sum(k for n, k in extra.items() if n in writes and n not in route)),
        "extra_reads": float(sum(k for n, k in extra.items() if n not in writes)),
        "doubled_writes": float(len(doubled)),
        "write_before_check": float(bool(breaks)),
        "unknown_tools": float(sum(1 for n in set(actual) if n not in descriptions)),
    }
    notes = []
    if missing:
        notes.append("left out of the closest route: " + ", ".join(sorted(missing.elements())))
    if extra:
        kinds = [f"{n} ({'write' if n in writes else 'read'})" for n in sorted(extra.elements())]
        notes.append("added to the closest route: " + ", ".join(kinds))
    if breaks:
        notes.append("order: " + "; ".join(breaks))
    return Signals(values, notes)
