"""Selection's per-case plan and shortcuts give what the plain algorithms give.

The route choice over counted multisets equals the former choice written out plainly; the
alignment with the route's counts at hand equals the one that counts them; a plan belongs to
one case object, so a case that differs only in its catalogue is graded on its own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from builders_selection import failure_names, grade, sel_case
from toolgrade.checks.selection_figures import (
    Counts,
    align,
    best_of,
    best_route,
    counted_calls,
    multiset_counts,
    pair_substitutions,
    side_effect_surplus,
)

_NAMES = st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=7)
_SETS = st.frozensets(st.sampled_from(["a", "b", "c", "d"]), max_size=3)


def _plain_best(
    routes: Sequence[Sequence[str]], called: Sequence[str], mutating: set[str],
    free: frozenset[str],
) -> tuple[int, Counts]:
    """The former `best_route`, the oracle: every route's counts and surplus from scratch."""
    actual = Counter(called)
    if len(routes) == 1:
        only = Counter(routes[0])
        return 0, multiset_counts(only, counted_calls(only, actual, free))
    unguarded = mutating - set(free)
    best: tuple[bool, float, int, int] | None = None
    chosen = (0, multiset_counts(Counter(routes[0]), actual))
    for index, route in enumerate(routes):
        expected = Counter(route)
        counts = multiset_counts(expected, counted_calls(expected, actual, free))
        surplus = side_effect_surplus(expected, actual, unguarded)
        key = (surplus > 0, -counts.f1, surplus, index)
        if best is None or key < best:
            best, chosen = key, (index, counts)
    return chosen


@settings(max_examples=500, deadline=None)
@given(st.lists(_NAMES, min_size=1, max_size=4), _NAMES, _SETS, _SETS)
def test_route_choice_equals_the_plain_one(
    routes: list[list[str]], called: list[str], mutating: frozenset[str], free: frozenset[str]
) -> None:
    assert best_route(routes, called, set(mutating), free) == _plain_best(
        routes, called, set(mutating), free
    )
    unguarded = set(mutating - free) if len(routes) > 1 else set()
    expected = [Counter(r) for r in routes]
    assert best_of(expected, Counter(called), unguarded, free) == _plain_best(
        routes, called, set(mutating), free
    )


@settings(max_examples=500, deadline=None)
@given(_NAMES, _NAMES)
def test_alignment_with_counts_at_hand_equals_the_plain_one(
    route: list[str], called: list[str]
) -> None:
    counts = Counter(route)
    fast = align(route, called, counts)
    assert fast == align(route, called)
    assert counts == Counter(route)  # the plan's counts are not consumed
    assert pair_substitutions(fast, route, called, frozenset(route)) == pair_substitutions(
        fast, route, called
    )


def test_a_plan_is_the_case_objects_own() -> None:
    known = sel_case(["lookup"], catalogue=["lookup", "refund"])
    unknown = sel_case(["lookup"], catalogue=["lookup"])
    assert failure_names(grade(known, ["lookup", "refund"])) == ["extra_tool"]
    assert failure_names(grade(unknown, ["lookup", "refund"])) == ["extra_tool", "unknown_tool"]
    assert failure_names(grade(known, ["lookup", "refund"])) == ["extra_tool"]


def test_flags_are_found_when_the_per_call_pass_runs() -> None:
    case = sel_case(["lookup"], forbidden=["wipe"], catalogue=["lookup", "wipe"])
    assert failure_names(grade(case, ["wipe", "lookup"])) == ["extra_tool", "forbidden_tool"]
    assert grade(case, ["lookup"]).passed is True
