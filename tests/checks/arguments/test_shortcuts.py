"""Shortcuts in the checks' arithmetic give the results of the general path they bypass.

`optimal_pairs` answers one-row and one-column problems without scipy, with scipy's choice;
`multiset_counts` counts the intersection without building it.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from toolgrade.checks.arguments.pairing import optimal_pairs
from toolgrade.checks.selection_figures import Counts, multiset_counts

#: Few distinct values, some a tie-break apart, so that ties and near-ties are common.
SCORES = st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 1e-9, 2e-9, 1.0 - 1e-9, 3.0])


def scipy_pairs(values: list[list[float]], prefer_order: bool) -> list[tuple[int, int]]:
    """The assignment exactly as `optimal_pairs` computed it before the shortcut: via scipy."""
    n_left, n_right = len(values), len(values[0])
    matrix = np.empty((n_left, n_right), dtype=float)
    for i in range(n_left):
        for j in range(n_right):
            matrix[i, j] = float(values[i][j])
            if prefer_order:
                matrix[i, j] -= 1e-9 * abs(i - j)
    rows, cols = linear_sum_assignment(matrix, maximize=True)
    return sorted((int(i), int(j)) for i, j in zip(rows, cols, strict=True))


@st.composite
def matrices(draw: st.DrawFn, thin: bool) -> list[list[float]]:
    """A score matrix; `thin`: one row or one column."""
    if thin:
        n = draw(st.integers(min_value=1, max_value=7))
        shape = draw(st.sampled_from([(1, n), (n, 1)]))
    else:
        shape = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    return [[draw(SCORES) for _ in range(shape[1])] for _ in range(shape[0])]


@settings(max_examples=500, deadline=None)
@given(matrices(thin=True), st.booleans())
def test_thin_problems_pair_as_scipy_does(values: list[list[float]], prefer_order: bool) -> None:
    got = optimal_pairs(
        len(values), len(values[0]), lambda i, j: values[i][j], prefer_order=prefer_order
    )
    assert got == scipy_pairs(values, prefer_order)
    assert len(got) == 1


@settings(max_examples=200, deadline=None)
@given(matrices(thin=False), st.booleans())
def test_other_shapes_still_pair_as_scipy_does(
    values: list[list[float]], prefer_order: bool
) -> None:
    got = optimal_pairs(
        len(values), len(values[0]), lambda i, j: values[i][j], prefer_order=prefer_order
    )
    assert got == scipy_pairs(values, prefer_order)


def test_equal_scores_pair_the_nearest_position_then_the_lowest_index() -> None:
    assert optimal_pairs(1, 3, lambda i, j: 1.0) == [(0, 0)]
    assert optimal_pairs(3, 1, lambda i, j: 1.0) == [(0, 0)]
    assert optimal_pairs(1, 3, lambda i, j: 1.0, prefer_order=False) == [(0, 0)]
    assert optimal_pairs(1, 3, lambda i, j: [0.0, 2.0, 2.0][j]) == [(0, 1)]


NAMES = st.sampled_from(["a", "b", "c", "d"])


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(NAMES, st.integers(-2, 3)),
    st.dictionaries(NAMES, st.integers(-2, 3)),
)
def test_multiset_counts_equal_the_counter_intersection(
    expected: dict[str, int], actual: dict[str, int]
) -> None:
    e, a = Counter(expected), Counter(actual)
    tp = sum((e & a).values())
    assert multiset_counts(e, a) == Counts(tp=tp, fp=sum(a.values()) - tp, fn=sum(e.values()) - tp)
