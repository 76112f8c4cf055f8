"""Builders for the --jobs tests: checks that fail in the ways a worker process can, graded
synthetic runs, and chunkings of them (what workers fold and the parent merges)."""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

from script_modules import load_script
from toolgrade.checks import GradeContext, default_checks
from toolgrade.checks.base import PassRateAccumulator
from toolgrade.checks.selection import SelectionCheck
from toolgrade.loaders import iter_runs
from toolgrade.models import (
    Case,
    CheckName,
    CheckResult,
    JudgeRequest,
    Trajectory,
    TrajectoryResult,
    Verdict,
)
from toolgrade.scoring.runner import Graded, ValidatedInputs, grade_trajectory, validate_inputs

T = TypeVar("T")

#: The case whose runs kill the worker process grading them.
DEADLY_CASE = "case-00007"


class KillsItsWorker:
    """Selection, except that a run of `DEADLY_CASE` ends its process at once, as a crash in
    a C extension or the OOM killer would (no exception, no clean-up)."""

    name: CheckName = "selection"

    def grade(self, case: Case, run: Trajectory, ctx: GradeContext) -> CheckResult:
        if run.case_id == DEADLY_CASE:
            os._exit(70)
        return SelectionCheck().grade(case, run, ctx)

    def accumulator(self) -> PassRateAccumulator:
        return PassRateAccumulator(self.name)


class NotesRunsInOrder:
    """A custom accumulator with no `merge`: the runs it was fed, in order (the parent feeds
    it each record of a worker's chunk)."""

    def __init__(self) -> None:
        self.seen: list[list[Any]] = []

    def add(self, case: Case, run: Trajectory, record: TrajectoryResult) -> None:
        self.seen.append([case.id, record.trial, record.agent, record.checks["selection"].passed])

    def summary(self) -> dict[str, Any]:
        return {"seen": self.seen}


class SelectionNotedInOrder:
    """Selection, with `NotesRunsInOrder` as its suite accumulator."""

    name: CheckName = "selection"

    def grade(self, case: Case, run: Trajectory, ctx: GradeContext) -> CheckResult:
        return SelectionCheck().grade(case, run, ctx)

    def accumulator(self) -> NotesRunsInOrder:
        return NotesRunsInOrder()


class AlwaysPass:
    """A judge port that passes everything and counts the requests it answered."""

    def __init__(self) -> None:
        self.asked = 0

    def judge(self, request: JudgeRequest) -> Verdict:
        self.asked += 1
        return Verdict(verdict="pass", reason="fine")


def synthetic_suite(folder: Path, n_runs: int = 300) -> tuple[Path, Path]:
    """benchmarks/synth.py's suite and runs (three agents, several trials per case)."""
    synth = load_script(Path(__file__).resolve().parents[1] / "benchmarks" / "synth.py",
                        "bench_synth")
    suite, runs = synth.write_synthetic(folder, n_runs, n_cases=40, seed=5)
    return suite, runs


def graded_runs(suite: Path, runs: Path) -> tuple[ValidatedInputs, list[Graded]]:
    """Every run of the files graded here by the default checks, in input order."""
    inputs = validate_inputs(suite, [runs])
    checks = default_checks()
    graded = []
    for _, _, run, _ in iter_runs(inputs.files):
        assert run is not None
        case = inputs.suite.cases[run.case_id]
        record = grade_trajectory(case, run, checks, None, inputs.suite.base_dir)
        graded.append(Graded(case, run, record))
    return inputs, graded


def chunked(items: Sequence[T], sizes: Sequence[int]) -> list[Sequence[T]]:
    """`items` cut into consecutive chunks of `sizes` (cycled), the last one what is left."""
    out, start = [], 0
    for size in itertools.cycle(sizes):
        if start >= len(items):
            return out
        out.append(items[start:start + size])
        start += size
    raise AssertionError("unreachable")
