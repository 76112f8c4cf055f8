"""Builders for the --jobs tests: checks that fail in the ways a worker process can."""

from __future__ import annotations

import os

from toolgrade.checks import GradeContext
from toolgrade.checks.base import PassRateAccumulator
from toolgrade.checks.selection import SelectionCheck
from toolgrade.models import Case, CheckName, CheckResult, Trajectory

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
