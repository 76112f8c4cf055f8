"""Reliability across trials: pass@k and pass^k (docs/recovery.md).

From n trials of one case with c passes, the unbiased estimators are

- pass@k = 1 - C(n-c, k) / C(n, k): the chance that at least one of k trials drawn without
  replacement passes (the agent *can* do it);
- pass^k = C(c, k) / C(n, k): the chance that all k drawn trials pass (it *reliably* does it).

Both are computed with exact integer binomials and one rounding at the end, so they stay exact
for large n where floating-point products would underflow or lose precision.

The summary reports k = 1 .. min(n, MAX_K). Reporting every k up to n would make `summary.json`
and the runner's memory grow with the number of trials (a case tried 500 times would carry 1,000
figures), and pass^k for large k only says whether every trial passed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from fractions import Fraction
from math import comb
from typing import Literal, TypedDict

from toolgrade.models import TrajectoryResult


def _validate(n: int, c: int, k: int) -> None:
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    if not 0 <= c <= n:
        raise ValueError(f"c must be within 0..n ({n}), got {c}")
    if not 1 <= k <= n:
        raise ValueError(f"k must be within 1..n ({n}), got {k}")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from n trials with c passes: 1 - C(n-c, k) / C(n, k)."""
    _validate(n, c, k)
    return float(1 - Fraction(comb(n - c, k), comb(n, k)))


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Unbiased pass^k from n trials with c passes: C(c, k) / C(n, k)."""
    _validate(n, c, k)
    return float(Fraction(comb(c, k), comb(n, k)))


#: The largest k reported per case and in the suite means.
MAX_K = 32


class CaseTrials(TypedDict):
    """One case's block of `summary.reliability`."""

    n: int
    c: int
    pass_at_k: dict[str, float]
    pass_hat_k: dict[str, float]


#: The two figures per k, as the summary names them.
_METRICS: tuple[Literal["pass_at_k", "pass_hat_k"], ...] = ("pass_at_k", "pass_hat_k")


def case_reliability(n: int, c: int) -> CaseTrials:
    """`{n, c, pass_at_k: {k: v}, pass_hat_k: {k: v}}` for k = 1..min(n, MAX_K); keys are
    strings for JSON."""
    ks = range(1, min(n, MAX_K) + 1)
    return {
        "n": n,
        "c": c,
        "pass_at_k": {str(k): pass_at_k(n, c, k) for k in ks},
        "pass_hat_k": {str(k): pass_hat_k(n, c, k) for k in ks},
    }


class ReliabilityAccumulator:
    """Counts trials and passes per case, then reports pass@k / pass^k and suite means."""

    def __init__(self) -> None:
        self.trials: dict[str, int] = defaultdict(int)
        self.passes: dict[str, int] = defaultdict(int)

    def add(self, case_id: str, passed: bool) -> None:
        """Count one trial of a case."""
        self.trials[case_id] += 1
        self.passes[case_id] += bool(passed)

    def add_record(self, record: TrajectoryResult) -> None:
        """Count one graded trajectory: a trial passes when its aggregate passes."""
        self.add(record.case_id, record.aggregate.passed)

    def merge(self, other: ReliabilityAccumulator) -> None:
        """Add another's counts (the trials after these: first-seen order is kept)."""
        for case_id, n in other.trials.items():
            self.trials[case_id] += n
            self.passes[case_id] += other.passes[case_id]

    def rename(self, new_key: Callable[[str], str]) -> None:
        """Key every case's counts by `new_key(key)` instead, in the same order (the one pass
        counts by case and agent until it knows whether there is more than one agent)."""
        self.trials = defaultdict(int, {new_key(k): n for k, n in self.trials.items()})
        self.passes = defaultdict(int, {new_key(k): n for k, n in self.passes.items()})

    def summary(self) -> dict[str, CaseTrials]:
        """`{case_id: {n, c, pass_at_k: {k: v}, pass_hat_k: {k: v}}}`, cases in insertion order."""
        return {cid: case_reliability(n, self.passes[cid]) for cid, n in self.trials.items()}

    def means(self) -> dict[str, dict[str, float]]:
        """Suite means per k (up to MAX_K), each over the cases with at least k trials."""
        per_case = self.summary()
        max_n = min(max(self.trials.values(), default=0), MAX_K)
        out: dict[str, dict[str, float]] = {"pass_at_k": {}, "pass_hat_k": {}}
        for metric in _METRICS:
            values = out[metric]
            for k in range(1, max_n + 1):
                key = str(k)
                pool = [r[metric][key] for r in per_case.values() if r["n"] >= k]
                values[key] = sum(pool) / len(pool)
        return out
