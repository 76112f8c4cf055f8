"""`OrderingCheck`: the case's constraints, sequence mode, repeats and budgets graded into one
result, and its summary block."""

from __future__ import annotations

from collections import Counter

from toolgrade.checks.base import GradeContext, PassRateAccumulator, PassRateBlock
from toolgrade.checks.efficiency import EfficiencyBlock, StepEfficiency
from toolgrade.checks.ordering.constraints import before_at, budget_at
from toolgrade.checks.ordering.points import Plan, RunPoints, plan_for
from toolgrade.checks.ordering.repeats import loop_failures, redundant_failures, repeat_identities
from toolgrade.checks.ordering.sequence import mode_outcome
from toolgrade.checks.recovery import faulted_in
from toolgrade.checks.run_calls import RunCalls, index_of
from toolgrade.models import (
    Case,
    CheckName,
    CheckResult,
    Failure,
    Trajectory,
    TrajectoryResult,
)
from toolgrade.models.figures import OrderingFigures


def _constraints(
    plan: Plan, index: RunCalls, final: tuple[int, str] | None
) -> tuple[int, int, list[Failure], OrderingFigures]:
    """The `before` pairs, the sequence mode and the budgets, in that order: how many held,
    how many there were, the failures of the others and the mode's figures."""
    run = RunPoints(index, final)
    outcomes: list[Failure | None] = []
    for pair, a_side, b_side in plan.before:
        a_points = run.matching(a_side)
        outcomes.append(before_at(pair, a_points, run.matching(b_side), run))
    figures: OrderingFigures = {}
    if plan.reference is not None:
        mode = mode_outcome(plan.mode, index.calls, plan.reference, plan.slots, plan.ordered)
        outcomes.append(mode.failure)
        figures = mode.figures
    for side, limit, resolved in plan.budgets:
        # As before, an unknown group is only an error when there is a point to test.
        outcomes.append(budget_at(side, limit, run.matching(resolved) if run else [], run))
    failures = [f for f in outcomes if f is not None]
    return len(outcomes) - len(failures), len(outcomes), failures, figures


class OrderingCheck:
    """Were the calls sequenced validly, without loops or budget overruns?"""

    name: CheckName = "ordering"

    def grade(self, case: Case, run: Trajectory, ctx: GradeContext) -> CheckResult:
        """Grade the run's order constraints, sequence mode, repeats and budgets."""
        ordering = case.expected.ordering
        if ordering is None:
            return CheckResult.not_applicable(self.name)
        plan = plan_for(case)
        index = index_of(run)
        final = run.final_answer()
        held, total, failures, figures = _constraints(plan, index, final)
        loops = self._repeats(case, index, ordering.loop_threshold, failures)
        if len(failures) > 1:
            failures.sort(key=lambda f: (f.step is None, f.step or 0))
        score = held / total if total else float(not loops)
        figures["constraints_total"] = total
        figures["constraints_held"] = held
        figures["n_calls"] = len(index.calls)
        if plan.names_answer:
            # Pairs with `answer` hold vacuously without one: the figure says which it was.
            figures["final_answer_step"] = final[0] if final is not None else None
        return CheckResult(
            check=self.name,
            applicable=True,
            score=score,
            passed=held == total and not loops,
            failures=failures,
            figures=figures,
        )

    @staticmethod
    def _repeats(case: Case, index: RunCalls, threshold: int, failures: list[Failure]) -> bool:
        """Add the run's `loop` and `redundant_call` failures; whether there was a loop.

        Both need two calls with the same identity, so a run that never calls a tool twice
        with the same arguments (the usual run) is done after one look at its keys."""
        repeated = {tool for tool, positions in index.by_tool.items() if len(positions) > 1}
        if not repeated:
            return False
        calls = index.calls
        keys = repeat_identities(calls, repeated)
        if len(set(keys)) == len(keys):
            return False
        faulted = faulted_in(case.expected.recovery, index)
        loops, looped_steps = loop_failures(calls, threshold, keys, faulted)
        failures += loops + redundant_failures(calls, looped_steps, keys, faulted)
        return bool(loops)

    def accumulator(self) -> OrderingAccumulator:
        """Pass rate, failure counts and step efficiency per task type."""
        return OrderingAccumulator()


class OrderingBlock(PassRateBlock, EfficiencyBlock):
    """`summary.checks.ordering`."""

    failures: dict[str, int]


class OrderingAccumulator:
    """`summary.checks.ordering`: pass rate, failure counts and step efficiency."""

    def __init__(self) -> None:
        self._rate = PassRateAccumulator("ordering")
        self._efficiency = StepEfficiency()
        self._failures: Counter[str] = Counter()

    def add(self, case: Case, run: Trajectory, record: TrajectoryResult) -> None:
        """Fold one graded run in; efficiency pools every run, whatever ordering applies."""
        self._rate.add(case, run, record)
        self._efficiency.add(case, run, record)
        result = record.checks.get("ordering")
        if result is not None and result.applicable:
            self._failures.update(f.name for f in result.failures)

    def merge(self, other: OrderingAccumulator) -> None:
        """Add another's figures (the runs after these; see `checks.base.MergingAccumulator`)."""
        self._rate.merge(other._rate)
        self._efficiency.merge(other._efficiency)
        self._failures.update(other._failures)

    def summary(self) -> OrderingBlock:
        """`{pass_rate, applicable, efficiency, efficiency_n, failures}`."""
        return {
            **self._rate.summary(),
            **self._efficiency.summary(),
            "failures": dict(sorted(self._failures.items())),
        }
