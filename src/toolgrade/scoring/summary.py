"""Suite-level figures folded one trajectory at a time (memory bounded by cases and tools)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from toolgrade.checks import Check, CheckAccumulator
from toolgrade.checks.arguments_figures import GivenSelection
from toolgrade.models import Case, Trajectory, TrajectoryResult
from toolgrade.scoring.adjudication import AdjudicationAccumulator
from toolgrade.scoring.coverage import RATED_CHECKS, KindRates
from toolgrade.scoring.reliability import ReliabilityAccumulator


class _AgentTally:
    def __init__(self) -> None:
        self.n = 0
        self.passed = 0
        self.score_sum = 0.0
        self.scored = 0
        self.check_applicable: Counter[str] = Counter()
        self.check_passed: Counter[str] = Counter()
        self.given_selection = GivenSelection()

    def add(self, record: TrajectoryResult) -> None:
        self.n += 1
        self.passed += record.aggregate.passed
        if record.aggregate.score is not None:
            self.score_sum += record.aggregate.score
            self.scored += 1
        for name, result in record.checks.items():
            if result.applicable:
                self.check_applicable[name] += 1
                self.check_passed[name] += bool(result.passed)
        self.given_selection.add(record)

    def to_json(self) -> dict[str, Any]:
        checks: dict[str, dict[str, Any]] = {
            name: {"pass_rate": self.check_passed[name] / count}
            for name, count in sorted(self.check_applicable.items())
        }
        if "arguments" in checks:
            checks["arguments"]["given_selection"] = self.given_selection.to_json()
        return {
            "trajectories": self.n,
            "pass_rate": self.passed / self.n if self.n else None,
            "mean_score": self.score_sum / self.scored if self.scored else None,
            "checks": checks,
        }


#: The name the summary gives runs that name no agent.
UNNAMED_AGENT = "(unnamed)"


def reliability_key(case_id: str, agent: str | None, multi_agent: bool) -> str:
    """The `reliability` key of a case's trials: `case_id`, or `case_id@agent` with several
    agents, so that trials of different agents never pool. Two (case, agent) pairs can spell
    the same key (`a@b` by `c`, `a` by `b@c`); `validate_inputs` refuses such inputs."""
    return f"{case_id}@{agent or UNNAMED_AGENT}" if multi_agent else case_id


class SuiteSummary:
    """Feeds every check's accumulator and keeps the cross-check figures."""

    def __init__(self, checks: list[Check], n_cases: int, multi_agent: bool = False) -> None:
        self.n_cases = n_cases
        self.multi_agent = multi_agent
        self.accumulators: dict[str, CheckAccumulator] = {c.name: c.accumulator() for c in checks}
        self.failures: Counter[str] = Counter()
        self.overall = _AgentTally()
        self.agents: dict[str, _AgentTally] = {}
        self.reliability = ReliabilityAccumulator()
        self.adjudication = AdjudicationAccumulator()
        self.kind_rates = KindRates()
        self.errors = 0

    def add(self, case: Case, run: Trajectory, record: TrajectoryResult) -> None:
        """Take one graded trajectory."""
        for accumulator in self.accumulators.values():
            accumulator.add(case, run, record)
        for result in record.checks.values():
            self.failures.update(f.name for f in result.failures)
        self.overall.add(record)
        self.kind_rates.add(case, record)
        self.agents.setdefault(record.agent or UNNAMED_AGENT, _AgentTally()).add(record)
        self.reliability.add(self._reliability_key(record), record.aggregate.passed)
        self.adjudication.add(case, record)
        # Crashed checks, not trajectories: the headline and junit.xml's errors count checks.
        self.errors += sum(
            1 for r in record.checks.values() if r.applicable and r.passed is None
        )

    def _reliability_key(self, record: TrajectoryResult) -> str:
        return reliability_key(record.case_id, record.agent, self.multi_agent)

    def to_json(self) -> dict[str, Any]:
        """The summary without judges and gates (the runner adds those)."""
        checks = {name: acc.summary() for name, acc in self.accumulators.items()}
        means = self.reliability.means()
        if "recovery" in checks:
            checks["recovery"] = {**checks["recovery"], **means}
        for name in RATED_CHECKS:
            if name in checks:
                checks[name] = {**checks[name], "per_kind": self.kind_rates.per_kind(name)}
        overall = self.overall.to_json()
        out = {
            "cases": self.n_cases,
            "trajectories": self.overall.n,
            "checks": checks,
            "failures": dict(self.failures.most_common()),
            "aggregate": {"pass_rate": overall["pass_rate"], "mean_score": overall["mean_score"]},
            "agents": {name: tally.to_json() for name, tally in sorted(self.agents.items())},
            "reliability": self.reliability.summary(),
            "errors": self.errors,
        }
        if self.adjudication.used:
            # Only where judges or people decided: other summaries keep their keys.
            out["adjudication"] = self.adjudication.summary()
        return out
