"""The optimal assignment (Hungarian method) behind every pairing the checks make.

scipy is imported on the first call, not with the checks: `scipy.optimize` takes about a second
to import, which every command that merely loads the checks (`validate`, `--help`) would
otherwise pay before doing anything.
"""

from __future__ import annotations

from collections.abc import Sequence


def linear_assignment(
    matrix: Sequence[Sequence[float]], *, maximize: bool = False
) -> list[tuple[int, int]]:
    """The (row, column) pairs of an optimal assignment over `matrix`, sorted by row.

    A rectangular matrix pairs min(rows, columns) items; `maximize` maximises the total instead
    of minimising it. Ties are resolved as scipy's `linear_sum_assignment` resolves them.
    """
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    rows, cols = linear_sum_assignment(np.array(matrix, dtype=float), maximize=maximize)
    return sorted((int(i), int(j)) for i, j in zip(rows, cols, strict=True))
