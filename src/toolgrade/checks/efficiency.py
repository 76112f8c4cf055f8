"""Step efficiency per task type (docs/ordering.md): C = (1/n) * sum of s_min / s_i.

s_i is the number of tool calls of run i. Only runs that succeeded enter the sum: a run that
failed a check says nothing about how few steps the task needs, and its step count would reward
giving up early. s_min is the case's `min_steps` when the case declares one (the author's word
wins over what the agents happened to do); otherwise the fewest calls among the successful runs
of the same task type. A run below its declared `min_steps` counts as 1, so C stays in (0, 1].

Memory does not grow with the number of runs: per task type we keep a Counter keyed by
(calls, min_steps), bounded by the distinct step counts seen.
"""

from __future__ import annotations

from collections import Counter
from typing import TypedDict

from toolgrade.models import Case, Trajectory, TrajectoryResult


def run_succeeded(record: TrajectoryResult) -> bool:
    """True when the run passed every applicable check (and at least one check applied).

    A run with no applicable check proves nothing, so it does not count as a success; nor does
    a run whose grading crashed.
    """
    if record.error is not None:
        return False
    applicable = [r for r in record.checks.values() if r.applicable]
    return bool(applicable) and all(r.passed is True for r in applicable)


class EfficiencyBlock(TypedDict):
    """`{efficiency: {task_type: C}, efficiency_n: {task_type: n}}`."""

    efficiency: dict[str, float | None]
    efficiency_n: dict[str, int]


class StepEfficiency:
    """Accumulates successful runs' step counts per task type and reports C per task type."""

    def __init__(self) -> None:
        # task type -> Counter{(tool calls, case min_steps or None): runs}
        self._pools: dict[str, Counter[tuple[int, int | None]]] = {}

    def add(self, case: Case, run: Trajectory, record: TrajectoryResult) -> None:
        """Take one graded run; only successful runs with at least one call are pooled."""
        pool = self._pools.get(case.effective_task_type)
        if pool is None:
            pool = self._pools[case.effective_task_type] = Counter()
        # From the record (grade_trajectory counts len(run.calls)): a run graded in a worker
        # process reaches the summary as its record, without its steps.
        n_calls = record.n_calls
        # A run with no tool call has no step count to compare (s_min / 0); it is skipped.
        if n_calls == 0 or not run_succeeded(record):
            return
        pool[(n_calls, case.min_steps)] += 1

    def merge(self, other: StepEfficiency) -> None:
        """Add another's pools (the runs after these). A pool's first-seen order is kept: C
        sums its cells in that order, and a float sum in another order may differ."""
        for task, pool in other._pools.items():
            self._pools.setdefault(task, Counter()).update(pool)

    def efficiency(self) -> dict[str, float | None]:
        """C per task type; None where no successful run was pooled."""
        return {task: _pool_efficiency(pool) for task, pool in sorted(self._pools.items())}

    def counts(self) -> dict[str, int]:
        """n per task type: how many runs entered the sum."""
        return {task: sum(pool.values()) for task, pool in sorted(self._pools.items())}

    def summary(self) -> EfficiencyBlock:
        """`{efficiency: {task_type: C}, efficiency_n: {task_type: n}}`."""
        return {"efficiency": self.efficiency(), "efficiency_n": self.counts()}


def _pool_efficiency(pool: Counter[tuple[int, int | None]]) -> float | None:
    """C for one task type's pool of (calls, min_steps) counts."""
    n = sum(pool.values())
    if n == 0:
        return None
    pooled_min = min(steps for steps, _ in pool)
    total = 0.0
    for (steps, min_steps), runs in pool.items():
        s_min = pooled_min if min_steps is None else min_steps
        total += runs * min(1.0, s_min / steps)
    return total / n
