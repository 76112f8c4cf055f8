"""The selection check (placeholder until its issue lands: reports not applicable)."""

from __future__ import annotations

from toolgrade.checks.base import GradeContext, PassRateAccumulator
from toolgrade.models import Case, CheckName, CheckResult, Trajectory


class SelectionCheck:
    """Placeholder: the selection check is not implemented yet."""

    name: CheckName = "selection"

    def grade(self, case: Case, run: Trajectory, ctx: GradeContext) -> CheckResult:
        """Report not applicable."""
        return CheckResult.not_applicable(self.name)

    def accumulator(self) -> PassRateAccumulator:
        """Pass-rate counting only."""
        return PassRateAccumulator(self.name)
