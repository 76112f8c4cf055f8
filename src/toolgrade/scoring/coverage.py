"""Hard-case coverage: which hard kinds of request a suite holds, and how the agent fares on them.

A suite of easy single-tool requests reports high selection accuracy and catches nothing, so the
kinds a case covers are a figure of the run (`summary.checks.coverage`, with a gate). A case's
kinds are its `tags` plus those inferred here (docs/case-format.md states the rules):

- `no_tool`: `expected.selection.no_tool` is true.
- `multi_turn`: `input` is a list of chat messages holding two or more user or assistant turns.
- `overlapping_tools`: a tool of the expected route has a near-duplicate in the catalogue: the
  two descriptions' word sets (lower-cased words of 3+ letters, common stop words left out)
  have a Jaccard similarity of `NEAR_DUPLICATE` or more.
- `missing_required_info`: a required parameter of an expected call has an exact string value
  (bare or `casefold`) that appears nowhere in the input (case-insensitive), so the agent has
  to ask for it or look it up rather than copy it.
- `misleading_identifier` is never inferred: only a tag says it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, TypedDict

from toolgrade.models import HARD_CASE_KINDS, Case, TrajectoryResult

#: The Jaccard similarity of two tool descriptions' word sets from which they are near-duplicates.
NEAR_DUPLICATE = 0.6

_WORD = re.compile(r"[a-z0-9]{3,}")
_STOP = frozenset({
    "the", "and", "for", "with", "from", "that", "this", "its", "any", "are", "was", "has",
    "have", "not", "but", "you", "your", "their", "them", "when", "which", "what", "into", "out",
    "one", "all", "can", "may", "will",
})  # fmt: skip
#: The checks whose pass rate is reported per kind unless told (the registry's `per_kind`).
RATED_CHECKS = ("selection", "arguments")


def description_words(text: str) -> frozenset[str]:
    """The content words of a tool description (lower case, 3+ characters, no stop words)."""
    return frozenset(w for w in _WORD.findall(text.lower()) if w not in _STOP)


def description_similarity(a: str, b: str) -> float:
    """Jaccard similarity of two descriptions' word sets; 0 when either has no words."""
    wa, wb = description_words(a), description_words(b)
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / len(wa | wb)


def _expected_tools(case: Case) -> set[str]:
    selection = case.expected.selection
    tools = {ref.tool for ref in case.expected.arguments or []}
    if selection is not None:
        tools |= {*selection.tools, *(t for route in selection.alternatives for t in route)}
    return tools


def has_overlapping_tools(case: Case) -> bool:
    """Whether a tool of the expected route has a near-duplicate description in the catalogue."""
    for name in _expected_tools(case) & set(case.tools):
        mine = case.tools[name].description
        for other, spec in case.tools.items():
            if other != name and description_similarity(mine, spec.description) >= NEAR_DUPLICATE:
                return True
    return False


def input_text(case: Case) -> str:
    """Every message of the case's input as one lower-cased text (structured content as JSON)."""
    parts = []
    for message in case.input_messages():
        content = message.get("content")
        parts.append(content if isinstance(content, str) else repr(content))
    return "\n".join(parts).lower()


def _exact_string(comparator: Any) -> str | None:
    """The string an exact (bare) or `casefold` reference value must equal, else None."""
    if isinstance(comparator, str):
        return comparator
    if isinstance(comparator, dict) and set(comparator) == {"casefold"}:
        value = comparator["casefold"]
        return value if isinstance(value, str) else None
    return None


def has_missing_required_info(case: Case) -> bool:
    """Whether a required parameter's exact string value appears nowhere in the input."""
    text = " ".join(input_text(case).split())
    for ref in case.expected.arguments or []:
        spec = case.tools.get(ref.tool)
        required = spec.parameters.get("required", []) if spec is not None else []
        for name in required if isinstance(required, list) else []:
            value = _exact_string(ref.args.get(name))
            if value and " ".join(value.lower().split()) not in text:
                return True
    return False


def is_multi_turn(case: Case) -> bool:
    """Whether the input holds two or more user or assistant turns."""
    turns = [m for m in case.input_messages() if m.get("role") in ("user", "assistant")]
    return isinstance(case.input, list) and len(turns) >= 2


def inferred_kinds(case: Case) -> set[str]:
    """The hard-case kinds the case shows by itself, without tags."""
    selection = case.expected.selection
    found = {
        "no_tool": selection is not None and selection.no_tool,
        "multi_turn": is_multi_turn(case),
        "overlapping_tools": has_overlapping_tools(case),
        "missing_required_info": has_missing_required_info(case),
    }
    return {kind for kind, shown in found.items() if shown}


def case_kinds(case: Case) -> tuple[str, ...]:
    """The case's hard-case kinds, tagged or inferred, in `HARD_CASE_KINDS` order."""
    kinds = set(case.tags) | inferred_kinds(case)
    return tuple(k for k in HARD_CASE_KINDS if k in kinds)


def coverage_counts(cases: Iterable[Case]) -> dict[str, int]:
    """`{kind: cases}` for every known kind (0 when no case covers it)."""
    counts: dict[str, int] = dict.fromkeys(HARD_CASE_KINDS, 0)
    for case in cases:
        for kind in case_kinds(case):
            counts[kind] += 1
    return counts


def coverage_line(cases: Iterable[Case]) -> str:
    """`coverage: no_tool 3, overlapping_tools 0, ...`: cases per hard-case kind, as
    `validate` and `draft` print it."""
    counts = coverage_counts(cases)
    return "coverage: " + ", ".join(f"{kind} {n}" for kind, n in counts.items())



class KindPassRate(TypedDict):
    """One hard-case kind's figures of a check (`per_kind`)."""

    n: int
    pass_rate: float

class KindRates:
    """Selection and arguments pass rates per hard-case kind, folded one record at a time."""

    def __init__(self, rated: Iterable[str] = RATED_CHECKS) -> None:
        self._kinds: dict[str, tuple[str, ...]] = {}
        self._counts: dict[str, dict[str, list[int]]] = {c: {} for c in rated}

    def share_kinds(self, other: KindRates) -> None:
        """Look the cases' kinds up in `other`'s cache from now on: the parts a worker folds
        one chunk after another share one, or each chunk would infer its cases' kinds again
        (comparing every pair of tool descriptions: about a tenth of grading a run)."""
        self._kinds = other._kinds

    def add(self, case: Case, record: TrajectoryResult) -> None:
        """Count the record's selection and arguments results under each kind of its case."""
        kinds = self._kinds.get(case.id)
        if kinds is None:
            kinds = self._kinds[case.id] = case_kinds(case)
        for check in self._counts:
            result = record.checks.get(check)  # type: ignore[call-overload]
            if result is None or not result.applicable:
                continue
            for kind in kinds:
                cell = self._counts[check].setdefault(kind, [0, 0])
                cell[0] += 1
                cell[1] += result.passed is True

    def merge(self, other: KindRates) -> None:
        """Add another's counts (the records after these)."""
        for check, counts in other._counts.items():
            mine = self._counts[check]
            for kind, (n, passed) in counts.items():
                cell = mine.setdefault(kind, [0, 0])
                cell[0] += n
                cell[1] += passed

    def per_kind(self, check: str) -> dict[str, KindPassRate]:
        """`{kind: {n, pass_rate}}` of one check, kinds in `HARD_CASE_KINDS` order."""
        counts = self._counts[check]
        return {
            kind: {"n": counts[kind][0], "pass_rate": counts[kind][1] / counts[kind][0]}
            for kind in HARD_CASE_KINDS
            if kind in counts
        }
