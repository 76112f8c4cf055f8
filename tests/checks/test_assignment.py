"""The plain-Python assignment solver gives scipy's pairs, ties included."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from toolgrade.checks.assignment import linear_assignment

#: Few distinct values, so that most matrices hold ties (where solvers differ if they differ).
_CELLS = st.sampled_from([0.0, 0.5, 1.0, 2.0, 1.0 - 1e-9, 0.5 - 2e-9, 3.25])


def _scipy(matrix: list[list[float]], maximize: bool) -> list[tuple[int, int]]:
    rows, cols = linear_sum_assignment(np.array(matrix, dtype=float), maximize=maximize)
    return sorted((int(i), int(j)) for i, j in zip(rows, cols, strict=True))


@st.composite
def _matrices(draw: st.DrawFn, cells: st.SearchStrategy[float]) -> list[list[float]]:
    n_rows, n_cols = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    return [[draw(cells) for _ in range(n_cols)] for _ in range(n_rows)]


@settings(max_examples=400, deadline=None)
@given(_matrices(_CELLS), st.booleans())
def test_same_pairs_as_scipy_with_ties(matrix: list[list[float]], maximize: bool) -> None:
    assert linear_assignment(matrix, maximize=maximize) == _scipy(matrix, maximize)


@settings(max_examples=200, deadline=None)
@given(_matrices(st.floats(-1e6, 1e6, allow_nan=False)), st.booleans())
def test_same_pairs_as_scipy_any_finite(matrix: list[list[float]], maximize: bool) -> None:
    assert linear_assignment(matrix, maximize=maximize) == _scipy(matrix, maximize)


def test_constant_matrix_is_the_identity() -> None:
    assert linear_assignment([[1.0] * 3] * 3) == [(0, 0), (1, 1), (2, 2)]


def test_empty_matrix_pairs_nothing() -> None:
    assert linear_assignment([]) == []
    assert linear_assignment([[]]) == []


def test_non_finite_entries_are_scipy_s() -> None:
    matrix = [[math.inf, 1.0], [2.0, math.inf]]
    assert linear_assignment(matrix) == [(0, 1), (1, 0)]
    with pytest.raises(ValueError):
        linear_assignment([[math.nan, 1.0]])
