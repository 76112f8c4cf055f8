"""The optimal assignment (Hungarian method) behind every pairing the checks make.

The matrices the checks build are tiny (a few missed tools against a few extras, a handful of
calls of one tool), so the solver is scipy's own algorithm (the shortest augmenting path of
Crouse 2016, as in `scipy/optimize/rectangular_lsap`) written out in plain Python: the same
arithmetic in the same order, hence the same pairs, ties included. Importing `scipy.optimize`
costs about a second, more than a few thousand runs of grading; a matrix with a non-finite
entry, which the checks never build, is still handed to scipy so that its errors stay scipy's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def linear_assignment(
    matrix: Sequence[Sequence[float]], *, maximize: bool = False
) -> list[tuple[int, int]]:
    """The (row, column) pairs of an optimal assignment over `matrix`, sorted by row.

    A rectangular matrix pairs min(rows, columns) items; `maximize` maximises the total instead
    of minimising it. Ties are resolved as scipy's `linear_sum_assignment` resolves them.
    """
    rows = [[float(x) for x in row] for row in matrix]
    if not rows or not rows[0]:
        return []
    if not all(math.isfinite(x) for row in rows for x in row):
        return _scipy_assignment(rows, maximize)
    tall = len(rows[0]) < len(rows)
    cost = [list(col) for col in zip(*rows, strict=True)] if tall else rows
    if maximize:
        cost = [[-x for x in row] for row in cost]
    col4row = solve(cost)
    pairs = [(j, i) for i, j in enumerate(col4row)] if tall else list(enumerate(col4row))
    return sorted(pairs)


def _scipy_assignment(rows: list[list[float]], maximize: bool) -> list[tuple[int, int]]:
    """scipy's answer (or its ValueError) for a matrix with an infinite or NaN entry."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    r, c = linear_sum_assignment(np.array(rows, dtype=float), maximize=maximize)
    return sorted((int(i), int(j)) for i, j in zip(r, c, strict=True))


def solve(cost: list[list[float]]) -> list[int]:
    """Minimum-cost assignment of every row of a finite, wide (rows <= columns) matrix.

    Returns the column of each row. Rows are added one at a time, each by the shortest
    augmenting path over reduced costs, with scipy's dual updates and tie rules.
    """
    nr, nc = len(cost), len(cost[0])
    u, v = [0.0] * nr, [0.0] * nc
    path, col4row, row4col = [-1] * nc, [-1] * nr, [-1] * nc
    for cur in range(nr):
        sink, low, spc, sr, sc = _augmenting_path(cost, u, v, path, row4col, cur)
        u[cur] += low
        for i in range(nr):
            if sr[i] and i != cur:
                u[i] += low - spc[col4row[i]]
        for j in range(nc):
            if sc[j]:
                v[j] -= low - spc[j]
        j = sink
        while True:
            i = path[j]
            row4col[j] = i
            col4row[i], j = j, col4row[i]
            if i == cur:
                break
    return col4row


def _augmenting_path(
    cost: list[list[float]],
    u: list[float],
    v: list[float],
    path: list[int],
    row4col: list[int],
    i: int,
) -> tuple[int, float, list[float], list[bool], list[bool]]:
    """The sink of the shortest augmenting path from row `i`, its length, the path costs and
    the rows and columns it scanned (scipy's `augmenting_path`)."""
    nc = len(v)
    # Filled in reverse, as scipy does, so that a constant matrix yields the identity.
    remaining = list(range(nc - 1, -1, -1))
    sr, sc = [False] * len(u), [False] * nc
    spc = [math.inf] * nc
    min_val = 0.0
    while True:
        sr[i] = True
        index, lowest = -1, math.inf
        row, ui = cost[i], u[i]
        for it, j in enumerate(remaining):
            r = min_val + row[j] - ui - v[j]
            if r < spc[j]:
                path[j] = i
                spc[j] = r
            # Among equal costs prefer a free column: it ends the path (scipy's rule).
            if spc[j] < lowest or (spc[j] == lowest and row4col[j] == -1):
                lowest, index = spc[j], it
        min_val = lowest
        j = remaining[index]
        sc[j] = True
        remaining[index] = remaining[-1]
        remaining.pop()
        if row4col[j] == -1:
            return j, min_val, spc, sr, sc
        i = row4col[j]
