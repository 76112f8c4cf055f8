"""Matching an agent's values against the reference: field comparison and optimal pairing.

`compare` applies a comparator tree (see `comparators`) to one argument value and reports a
`FieldResult`: a status (match, wrong, missing or unscored), a similarity in [0, 1] and findings
naming the dotted path of each mismatch. `semantic` fields are decided by deterministic shortcuts
first; only then is the injected `ask` called, and with `ask` None (the mode used to pair calls)
no judge is ever called.

`optimal_pairs` pairs two lists by the assignment that maximises the total score (the Hungarian
method, scipy's algorithm). The arguments check pairs an agent's calls with the reference calls
of the same tool this way, and the `unordered` comparator pairs list items: pairing greedily or by
position can mis-pair when one call partly matches two references; an optimal assignment cannot.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from toolgrade.checks.arguments.comparators import (
    Absent,
    Comparator,
    Fields,
    InOrder,
    JudgeAnswer,
    OneOf,
    Semantic,
    Status,
    Unordered,
    fold,
    join_path,
    jsonable,
    leaf_mismatch,
    typed_equal,
)
from toolgrade.checks.assignment import linear_assignment

#: Weight of the positional tie-break: far below any real score difference (scores are sums of
#: per-field agreements in [0, 1]), so it only decides between equally good assignments.
_TIE_BREAK = 1e-9


def optimal_pairs(
    n_left: int,
    n_right: int,
    score: Callable[[int, int], float],
    *,
    prefer_order: bool = True,
) -> list[tuple[int, int]]:
    """Pair left items with right items maximising the total `score(i, j)`.

    Returns `min(n_left, n_right)` pairs `(i, j)` sorted by `i`; the rest of the longer side is
    left unpaired. With `prefer_order`, ties are broken in favour of pairing items at similar
    positions, so equally good calls pair in the order they were made.
    """
    if n_left == 0 or n_right == 0:
        return []
    if n_left == 1 and n_right == 1:
        # The usual case (one reference call of a tool, one call of it): the only cell, as
        # `_best_single` would choose it; a non-finite one is scipy's to decide or reject.
        value = float(score(0, 0))
        return [(0, 0)] if math.isfinite(value) else linear_assignment([[value]], maximize=True)
    values = [[_weighted(score, i, j, prefer_order) for j in range(n_right)] for i in range(n_left)]
    if n_left == 1 or n_right == 1:
        single = _best_single(values)
        if single is not None:
            return [single]
    return linear_assignment(values, maximize=True)


def _weighted(score: Callable[[int, int], float], i: int, j: int, prefer_order: bool) -> float:
    """One cell of the assignment matrix: the score, less the positional tie-break."""
    value = float(score(i, j))
    return value - _TIE_BREAK * abs(i - j) if prefer_order else value


def _best_single(values: list[list[float]]) -> tuple[int, int] | None:
    """The best cell of a one-row or one-column matrix, as scipy would choose it.

    With one row (or one column) the assignment is the best cell; among equal cells scipy's
    solver keeps the lowest index, and so does this scan (a strict `>`). None when a cell is not
    finite: scipy decides (or rejects) those.
    """
    cells = [(i, j, v) for i, row in enumerate(values) for j, v in enumerate(row)]
    best: tuple[int, int] | None = None
    best_value = -math.inf
    for i, j, v in cells:
        if not math.isfinite(v):
            return None
        if best is None or v > best_value:
            best, best_value = (i, j), v
    return best


# --- comparing a value with a comparator -----------------------------------------------------


@dataclass(frozen=True)
class Finding:
    """One mismatch (or undecided field) at a dotted path, with the reference and the value."""

    kind: Literal["wrong", "missing", "unscored"]
    path: str
    expected: Any
    actual: Any
    reason: str


@dataclass(frozen=True)
class FieldResult:
    """The outcome of comparing one field; `similarity` in [0, 1] is what pairing maximises."""

    status: Status
    similarity: float
    findings: tuple[Finding, ...] = ()


#: Asks the argument judge about one semantic field: (comparator, actual value, dotted path)
#: -> (verdict, reason).
AskJudge = Callable[[Semantic, Any, str], tuple[JudgeAnswer, str]]

MATCH = FieldResult("match", 1.0)
#: Similarity of a semantic field no shortcut decided: neither a match nor a mismatch.
UNDECIDED_SIMILARITY = 0.5


def compare(
    cmp: Comparator, present: bool, value: Any, path: str, ask: AskJudge | None
) -> FieldResult:
    """Compare one field. `ask` None is the deterministic mode used for pairing: a semantic
    field no shortcut decides is unscored with similarity 0.5 and no judge is called."""
    if isinstance(cmp, Absent):
        return (
            MATCH
            if not present
            else _wrong(cmp, value, path, "expected the argument to be left out")
        )
    if not present:
        if isinstance(cmp, OneOf) and cmp.allow_absent:
            return MATCH
        return FieldResult(
            "missing",
            0.0,
            (Finding("missing", path, jsonable(cmp.raw), None, "argument left out"),),
        )
    if isinstance(cmp, Semantic):
        return _semantic_result(cmp, value, path, ask)
    if isinstance(cmp, OneOf):
        return _one_of_result(cmp, value, path, ask)
    if isinstance(cmp, Fields):
        return _fields_result(cmp, value, path, ask)
    if isinstance(cmp, InOrder):
        return _in_order_result(cmp, value, path, ask)
    if isinstance(cmp, Unordered):
        return _unordered_result(cmp, value, path, ask)
    reason = leaf_mismatch(cmp, value)
    return MATCH if reason is None else _wrong(cmp, value, path, reason)


def _wrong(cmp: Comparator, value: Any, path: str, reason: str) -> FieldResult:
    return FieldResult(
        "wrong", 0.0, (Finding("wrong", path, jsonable(cmp.raw), jsonable(value), reason),)
    )


def _semantic_result(cmp: Semantic, value: Any, path: str, ask: AskJudge | None) -> FieldResult:
    if typed_equal(cmp.text, value) or (isinstance(value, str) and fold(value) == fold(cmp.text)):
        return MATCH
    if ask is None:
        finding = Finding("unscored", path, jsonable(cmp.raw), jsonable(value), "undecided")
        return FieldResult("unscored", UNDECIDED_SIMILARITY, (finding,))
    verdict, reason = ask(cmp, value, path)
    if verdict == "pass":
        return MATCH
    if verdict == "fail":
        return _wrong(
            cmp,
            value,
            path,
            f"judged not equivalent: {reason}" if reason else "judged not equivalent",
        )
    finding = Finding("unscored", path, jsonable(cmp.raw), jsonable(value), reason or "no verdict")
    return FieldResult("unscored", UNDECIDED_SIMILARITY, (finding,))


def _one_of_result(cmp: OneOf, value: Any, path: str, ask: AskJudge | None) -> FieldResult:
    # Deterministic options first, so the judge is asked only when none of them matches.
    ordered = sorted(cmp.options, key=lambda option: isinstance(option, Semantic))
    best, unscored = 0.0, None
    for option in ordered:
        result = compare(option, True, value, path, ask)
        if result.status == "match":
            return MATCH
        best = max(best, result.similarity)
        if result.status == "unscored" and unscored is None:
            unscored = result
    if unscored is not None:
        finding = Finding(
            "unscored", path, jsonable(cmp.raw), jsonable(value), unscored.findings[0].reason
        )
        return FieldResult("unscored", best, (finding,))
    wrong = _wrong(cmp, value, path, "none of the options matches")
    return FieldResult("wrong", best, wrong.findings)


def combine(
    results: Sequence[FieldResult], extra: Sequence[Finding] = (), slots: int | None = None
) -> FieldResult:
    """Fold the results of the parts of a container into one result.

    Wrong if any part is wrong or missing (or `extra` holds a mismatch), else unscored if any
    part is, else a match. Similarity is the summed similarity over `slots` (default: parts).
    """
    findings = tuple(f for r in results for f in r.findings) + tuple(extra)
    total = slots if slots is not None else len(results)
    similarity = sum(r.similarity for r in results) / total if total else 1.0
    kinds = {f.kind for f in findings}
    if kinds & {"wrong", "missing"}:
        return FieldResult("wrong", similarity, findings)
    if "unscored" in kinds:
        return FieldResult("unscored", similarity, findings)
    return FieldResult("match", similarity, findings)


def _fields_result(cmp: Fields, value: Any, path: str, ask: AskJudge | None) -> FieldResult:
    if not isinstance(value, Mapping):
        return _wrong(cmp, value, path, "not an object")
    parts = [
        compare(c, k in value, value.get(k), join_path(path, k), ask) for k, c in cmp.fields.items()
    ]
    return combine(parts)


def _in_order_result(cmp: InOrder, value: Any, path: str, ask: AskJudge | None) -> FieldResult:
    if not isinstance(value, list | tuple):
        return _wrong(cmp, value, path, "not a list")
    parts = [
        compare(c, True, v, join_path(path, i), ask)
        for i, (c, v) in enumerate(zip(cmp.items, value, strict=False))
    ]
    extra = _length_finding(cmp, value, path)
    return combine(parts, extra, max(len(cmp.items), len(value)))


def _length_finding(cmp: InOrder | Unordered, value: Sequence[Any], path: str) -> list[Finding]:
    if len(cmp.items) == len(value):
        return []
    reason = f"expected {len(cmp.items)} items, got {len(value)}"
    return [Finding("wrong", path, jsonable(cmp.raw), jsonable(value), reason)]


def _unordered_result(cmp: Unordered, value: Any, path: str, ask: AskJudge | None) -> FieldResult:
    if not isinstance(value, list | tuple):
        return _wrong(cmp, value, path, "not a list")
    items = list(value)

    def similarity(i: int, j: int) -> float:
        return compare(cmp.items[i], True, items[j], join_path(path, j), None).similarity

    pairs = optimal_pairs(len(cmp.items), len(items), similarity)
    parts = [compare(cmp.items[i], True, items[j], join_path(path, j), ask) for i, j in pairs]
    return combine(parts, _length_finding(cmp, items, path), max(len(cmp.items), len(items)))
