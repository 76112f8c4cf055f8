"""The one small interface every check implements, and what the runner hands it.

A check is pure: it reads a `Case` and a `Trajectory`, may ask an injected judge, and returns
a `CheckResult`. Suite-level figures come from an accumulator the runner feeds one record at a
time, so memory does not grow with the number of runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypedDict

from toolgrade.models import (
    Case,
    CheckName,
    CheckResult,
    HumanDecisions,
    JudgePort,
    Trajectory,
    TrajectoryResult,
)


@dataclass(frozen=True)
class GradeContext:
    """What a check may use besides the case and the run.

    `judge` is None when judging is off (`--no-judge`, or no judge could be configured): judge-only
    fields are then reported `unscored`, never passed. `base_dir` resolves relative file paths
    named in a case or run (e.g. a SQLite state file). `decisions` holds the routes people
    accepted or rejected (the suite's adjudications file): they go before the judge.
    """

    judge: JudgePort | None = None
    base_dir: Path = field(default_factory=Path.cwd)
    decisions: HumanDecisions = field(default_factory=HumanDecisions)


class CheckAccumulator(Protocol):
    """Folds per-trajectory records into the check's block of `summary.json`."""

    def add(self, case: Case, run: Trajectory, record: TrajectoryResult) -> None:
        """Take one graded trajectory (all checks and the aggregate are in `record`).

        Fold from `record` only: a run graded in a worker process (`toolgrade run --jobs N`)
        reaches the summary with its identity alone (case_id, trial, agent; no steps).
        """
        ...

    def summary(self) -> Mapping[str, object]:
        """The check's block of `summary.checks` (each check's is a TypedDict; the runner
        validates the blocks into `models.summary.RunSummary`)."""
        ...


class MergingAccumulator(CheckAccumulator, Protocol):
    """An accumulator that can also take another's figures: what lets `toolgrade run --jobs N`
    fold runs where they are graded, in the worker processes, and send the parent a chunk's
    figures instead of every record.

    `merge(other)` takes an accumulator of the same check that was fed the runs right after
    the ones this one was fed; afterwards this one must be exactly as if it had been fed them
    itself (same `summary()`, byte for byte: integer counts add; keep first-seen orders; never
    add floats in another order than one process would). Optional: an accumulator without
    `merge` is fed each record in the parent, as before.
    """

    def merge(self, other: Any) -> None:
        """Take the figures of `other`, which was fed the runs after this one's."""
        ...


def can_merge(accumulator: CheckAccumulator) -> bool:
    """Whether the accumulator has a `merge` (see `MergingAccumulator`)."""
    return callable(getattr(accumulator, "merge", None))


class Check(Protocol):
    """A check answers one question about a trajectory and keeps its own score."""

    name: CheckName

    def grade(self, case: Case, run: Trajectory, ctx: GradeContext) -> CheckResult:
        """Grade one trajectory against its case."""
        ...

    def accumulator(self) -> CheckAccumulator:
        """A fresh accumulator for the suite-level figures."""
        ...


def pass_rate(passed: int, applicable: int) -> float | None:
    """Share of applicable results that passed; None when nothing was applicable."""
    return passed / applicable if applicable else None


class PassRateBlock(TypedDict):
    """`{pass_rate, applicable}`: what every check's summary block starts with."""

    pass_rate: float | None
    applicable: int


class PassRateAccumulator:
    """Counts applicable and passed results of one check; a base for richer accumulators."""

    def __init__(self, check: CheckName) -> None:
        self.check: CheckName = check
        self.applicable = 0
        self.passed = 0

    def add(self, case: Case, run: Trajectory, record: TrajectoryResult) -> None:
        """Count the record's result for this check."""
        result = record.checks.get(self.check)
        if result is None or not result.applicable:
            return
        self.applicable += 1
        self.passed += bool(result.passed)

    def merge(self, other: PassRateAccumulator) -> None:
        """Add another's counts (see `MergingAccumulator`)."""
        self.applicable += other.applicable
        self.passed += other.passed

    def summary(self) -> PassRateBlock:
        """`{pass_rate, applicable}`."""
        return {"pass_rate": pass_rate(self.passed, self.applicable), "applicable": self.applicable}
