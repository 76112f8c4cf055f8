"""The arithmetic behind the selection check: multiset counts, routes, alignment, suite figures.

Kept apart from `selection.py` so the check reads as a list of rules and this module as the
maths. Everything here is pure and deterministic.

Degenerate cases (documented once, used everywhere, per case, per tool and per suite):

- precision is 1.0 when no call was made (no call was wrong), recall is 1.0 when nothing was
  expected (nothing was missed), and F1 = 2·TP / (2·TP + FP + FN), which is 1.0 when both
  are empty and equals 2PR/(P+R) otherwise.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from toolgrade.checks.assignment import linear_assignment
from toolgrade.models.figures import SelectionRates, Substitution, ToolCounts

#: The row and column of the confusion matrix for a pure omission or a pure extra.
NONE = "none"


@dataclass(frozen=True)
class Counts:
    """Multiset true positives, false positives and false negatives."""

    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float:
        """TP / (TP + FP); 1.0 when no call was made."""
        made = self.tp + self.fp
        return self.tp / made if made else 1.0

    @property
    def recall(self) -> float:
        """TP / (TP + FN); 1.0 when nothing was expected."""
        wanted = self.tp + self.fn
        return self.tp / wanted if wanted else 1.0

    @property
    def f1(self) -> float:
        """2·TP / (2·TP + FP + FN); 1.0 when nothing was expected and nothing was called."""
        denom = 2 * self.tp + self.fp + self.fn
        return 2 * self.tp / denom if denom else 1.0

    def figures(self) -> SelectionRates:
        """`{tp, fp, fn, precision, recall, f1}`."""
        return {
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
        }


def multiset_counts(expected: Counter[str], actual: Counter[str]) -> Counts:
    """Count TP/FP/FN between two multisets of tool names (repeats count, never collapse)."""
    # The size of the multiset intersection (`expected & actual`), without building it; a
    # plain loop, since a generator of `min` calls per tool cost more than the rest.
    tp = 0
    for name, n in expected.items():
        m = actual.get(name, 0)
        m = n if n < m else m
        if m > 0:  # as `&` keeps positive counts only
            tp += m
    return Counts(tp=tp, fp=sum(actual.values()) - tp, fn=sum(expected.values()) - tp)


def per_tool_counts(expected: Counter[str], actual: Counter[str]) -> dict[str, Counts]:
    """The same counts tool by tool, over every name expected or called (sorted)."""
    return {
        name: Counts(
            tp=min(expected[name], actual[name]),
            fp=max(0, actual[name] - expected[name]),
            fn=max(0, expected[name] - actual[name]),
        )
        for name in sorted(set(expected) | set(actual))
    }


def per_tool_rows(expected: Counter[str], actual: Counter[str]) -> dict[str, ToolCounts]:
    """`per_tool_counts` as the figure writes it, `{name: {tp, fp, fn}}`, without building a
    `Counts` per tool first."""
    rows: dict[str, ToolCounts] = {}
    for name in sorted(expected.keys() | actual.keys()):
        e, a = expected.get(name, 0), actual.get(name, 0)
        rows[name] = {"tp": e if e < a else a, "fp": a - e if a > e else 0,
                      "fn": e - a if e > a else 0}
    return rows


def side_effect_surplus(
    route: Counter[str], actual: Counter[str], mutating: Collection[str]
) -> int:
    """How many calls of mutating tools go beyond what `route` expects."""
    return sum(max(0, actual[name] - route[name]) for name in mutating)


def counted_calls(
    route: Counter[str], actual: Counter[str], free: Collection[str] = frozenset()
) -> Counter[str]:
    """The calls that count against `route`: a free tool's calls only up to what the route
    expects of it (the rest are free calls, neither TP nor FP); tools never counted are left out."""
    if not free:
        return actual
    out: Counter[str] = Counter()
    for name, n in actual.items():
        kept = min(n, route[name]) if name in free else n
        if kept > 0:
            out[name] = kept
    return out


def route_taken(route: Sequence[str], called: Sequence[str], free: Collection[str]
                ) -> list[str]:
    """The run's calls that count against `route`, in run order: a free tool's calls beyond
    what the route expects of it are left out (see `counted_calls`)."""
    if not free:
        return list(called)
    room = Counter(route)
    kept = []
    for name in called:
        if name in free:
            if room[name] <= 0:
                continue
            room[name] -= 1
        kept.append(name)
    return kept


def free_calls(
    route: Counter[str], actual: Counter[str], free: Collection[str]
) -> dict[str, int]:
    """Per free tool, how many of its calls go beyond `route` (sorted, zero counts left out)."""
    return {
        name: actual[name] - route[name]
        for name in sorted(free)
        if actual[name] > route[name]
    }


def best_route(
    routes: Sequence[Sequence[str]],
    called: Sequence[str],
    mutating: set[str],
    free: Collection[str] = frozenset(),
) -> tuple[int, Counts]:
    """Index and counts of the route the run matches best.

    A route under which no mutating call is unauthorized wins over one that makes a call a
    hard fail (`unauthorized_side_effect`), whatever their F1; then the highest F1; then the
    route that leaves fewer mutating calls unauthorized; remaining ties go to the first listed.
    Calls of `free` tools beyond a route are not counted against it, and a mutating tool the
    author made free is never unauthorized.
    """
    unguarded = mutating - set(free) if len(routes) > 1 else set()
    return best_of([Counter(route) for route in routes], Counter(called), unguarded, free)


def best_of(
    routes: Sequence[Counter[str]],
    actual: Counter[str],
    unguarded: Collection[str],
    free: Collection[str] = frozenset(),
) -> tuple[int, Counts]:
    """`best_route` over multisets already counted: the routes' and the run's (`actual`).
    `unguarded`: the mutating tools that are not free (only read with several routes)."""
    if len(routes) == 1:  # nothing to choose between
        only = routes[0]
        return 0, multiset_counts(only, counted_calls(only, actual, free))
    # Only the mutating tools the run called can go beyond a route.
    unguarded = [name for name in unguarded if name in actual]
    scored: list[tuple[tuple[bool, float, int, int], Counts]] = []
    for index, expected in enumerate(routes):
        counts = multiset_counts(expected, counted_calls(expected, actual, free))
        surplus = side_effect_surplus(expected, actual, unguarded)
        scored.append(((surplus > 0, -counts.f1, surplus, index), counts))
    key, counts = min(scored, key=lambda item: item[0])  # keys differ: each ends in its index
    return key[3], counts


def reference_positions(length: int, n_calls: int) -> list[float]:
    """Map reference indices proportionally onto the run's call ordinals 0..n_calls-1.

    Index i of a reference of length m sits at i·(n-1)/(m-1); a one-tool reference sits in
    the middle of the run. This lets a missed reference tool be compared with an agent call
    by position even when the run is longer or shorter than the reference.
    """
    if n_calls == 0:
        return [0.0] * length
    if length == 1:
        return [(n_calls - 1) / 2]
    scale = (n_calls - 1) / (length - 1) if length else 0.0
    return [i * scale for i in range(length)]


def assign_nearest(rows: Sequence[float], cols: Sequence[float]) -> list[tuple[int, int]]:
    """Optimal one-to-one pairing of two position lists minimising total |distance|.

    Rectangular inputs pair min(len(rows), len(cols)) items; the result is sorted by row.
    The Hungarian method (scipy's algorithm) is used rather than a greedy nearest-first pass,
    which can pair the wrong items when two candidates compete for the same neighbour.
    """
    if not rows or not cols:
        return []
    return linear_assignment([[abs(float(r) - float(c)) for c in cols] for r in rows])


@dataclass(frozen=True)
class Alignment:
    """Which reference entries were missed and which calls were extras, by position."""

    #: (reference index, position on the call axis) of each missed reference entry.
    missed: list[tuple[int, float]]
    #: call ordinals (0-based among tool calls) of the calls the route does not expect.
    extras: list[int]


def align(
    route: Sequence[str], called: Sequence[str], expected: Counter[str] | None = None
) -> Alignment:
    """Split a route and a run into matched, missed and extra entries, tool by tool.

    Within one tool the order decides: the first k calls of a tool the route lists k times
    are the matched ones, later calls are extras (a repeat is the surplus, not the first
    call), and when a tool is called fewer times than listed its last reference entries are
    the missed ones. Missed entries keep their mapped position for substitution pairing.
    `expected`: `Counter(route)`, when the caller has it (it is not modified).
    """
    remaining = dict(Counter(route) if expected is None else expected)
    extras: list[int] = []
    for ordinal, name in enumerate(called):
        if remaining.get(name, 0) > 0:
            remaining[name] -= 1
        else:
            extras.append(ordinal)
    if not any(n > 0 for n in remaining.values()):  # every reference entry was matched
        return Alignment(missed=[], extras=extras)
    positions = reference_positions(len(route), len(called))
    missed: list[tuple[int, float]] = []
    for index in range(len(route) - 1, -1, -1):
        if remaining[route[index]] > 0:
            remaining[route[index]] -= 1
            missed.append((index, positions[index]))
    return Alignment(missed=sorted(missed), extras=extras)


def pair_substitutions(
    alignment: Alignment,
    route: Sequence[str],
    called: Sequence[str],
    listed: Collection[str] | None = None,
) -> list[tuple[int, int]]:
    """Pair missed reference entries with foreign extra calls at the nearest position.

    Only extras of tools the route does not list at all are candidates: a surplus repeat of
    an expected tool (a retry loop, a second search) is reported as an extra, not as a swap,
    so the confusion matrix's off-diagonal cells only ever name two different tools the
    agent actually mixed up. Returns (index into `alignment.missed`, index into
    `alignment.extras`) pairs, min(#missed, #foreign extras) of them, a number that depends
    only on the multisets. `listed`: `set(route)`, when the caller has it.
    """
    listed = set(route) if listed is None else listed
    foreign = [e for e, k in enumerate(alignment.extras) if called[k] not in listed]
    pairs = assign_nearest(
        [pos for _, pos in alignment.missed], [float(alignment.extras[e]) for e in foreign]
    )
    return [(m, foreign[f]) for m, f in pairs]


def confusion_cells(
    per_tool: Mapping[str, ToolCounts], substitutions: Iterable[Substitution]
) -> Counter[tuple[str, str]]:
    """One trajectory's confusion cells (expected, actual) -> count.

    Diagonal: TP per tool. Off-diagonal: substitutions. Remaining FN are (X, none), remaining
    FP are (none, Y).
    """
    cells: Counter[tuple[str, str]] = Counter()
    sub_expected: Counter[str] = Counter()
    sub_actual: Counter[str] = Counter()
    for sub in substitutions:
        cells[(sub["expected"], sub["actual"])] += 1
        sub_expected[sub["expected"]] += 1
        sub_actual[sub["actual"]] += 1
    for name, row in per_tool.items():
        for key, count in (
            ((name, name), row["tp"]),
            ((name, NONE), row["fn"] - sub_expected[name]),
            ((NONE, name), row["fp"] - sub_actual[name]),
        ):
            if count > 0:
                cells[key] += count
    return cells
