"""The paired statistics of `toolgrade compare`: a bootstrap over cases and exact McNemar.

Both gradings scored the same cases, so each case is its own control: the change in a pass
rate is the mean of per-case differences, and its uncertainty comes from resampling cases
(not runs: a case's trials share its difficulty, so they are averaged first). Flips are
counted on per-case verdicts and tested with the exact (binomial) McNemar test, which needs
no large-sample approximation for the handful of flips a suite usually shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import comb

import numpy as np
from scipy.stats import binomtest

#: Resamples of the paired bootstrap; enough that the 95% bounds move by well under 0.01.
DEFAULT_RESAMPLES = 10_000
#: The seed of the bootstrap: the same folders give the same interval, byte for byte.
DEFAULT_SEED = 0
#: The interval's coverage.
CONFIDENCE = 0.95
#: Resampled means computed per block, so memory stays bounded on large suites.
_BLOCK_CELLS = 4_000_000


@dataclass(frozen=True)
class Interval:
    """A confidence interval for a difference (new minus base)."""

    low: float
    high: float

    def excludes_zero(self) -> bool:
        """Whether the whole interval lies on one side of 0."""
        return self.low > 0 or self.high < 0


def paired_bootstrap(
    differences: Sequence[float], *, resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED, confidence: float = CONFIDENCE,
) -> Interval | None:
    """The percentile interval of the mean per-case difference, resampling cases with
    replacement; None with no case. Deterministic for a given seed."""
    values = np.asarray(differences, dtype=float)
    n = len(values)
    if n == 0:
        return None
    rng = np.random.default_rng(seed)
    block = max(1, _BLOCK_CELLS // n)
    means = np.empty(resamples)
    for start in range(0, resamples, block):
        stop = min(resamples, start + block)
        picks = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = values[picks].mean(axis=1)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return Interval(low=float(low), high=float(high))


def mcnemar_exact(to_fail: int, to_pass: int) -> float:
    """The two-sided exact McNemar p-value for `to_fail` cases that passed before and fail
    now against `to_pass` the other way (1.0 with no flip)."""
    flips = to_fail + to_pass
    if flips == 0:
        return 1.0
    return float(binomtest(to_fail, flips, 0.5, alternative="two-sided").pvalue)


def pass_hat_k(passed: int, trials: int, k: int) -> float:
    """The unbiased estimate of pass^k, the chance that k trials drawn from a case's `trials`
    all pass when `passed` of them did: C(passed, k) / C(trials, k)."""
    if not 0 < k <= trials:
        raise ValueError(f"k must be in 1..{trials}, got {k}")
    return comb(passed, k) / comb(trials, k)


def case_passes(share: float) -> bool:
    """A case's verdict for counting flips: more than half of its trials passed."""
    return share > 0.5
