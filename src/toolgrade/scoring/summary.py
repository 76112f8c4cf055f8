"""Suite-level figures folded one trajectory at a time (memory bounded by cases and tools).

With `toolgrade run --jobs N` each worker folds its chunk of runs into a *part* (a
`SuiteSummary(..., part=True)`) and the parent merges the parts in input order: the merged
summary is the one a single process would have folded, byte for byte. Counts add; first-seen
orders are kept by merging in input order; the one float sum (the mean score) is kept as its
terms in a part and added term by term, in order, when merged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from toolgrade.checks import Check, CheckAccumulator
from toolgrade.checks.base import can_merge
from toolgrade.checks.registry import AgentFigures, entries, entry
from toolgrade.errors import ConfigError
from toolgrade.models import Case, Trajectory, TrajectoryResult
from toolgrade.scoring.adjudication import AdjudicationAccumulator, UnscoredAccumulator
from toolgrade.scoring.tallies import CatalogueFigures, KindRates, ReliabilityAccumulator


class OrderedSum:
    """A float sum that merges exactly: a part keeps its terms, and merging adds them one by
    one, in the order one process would have added them (float addition is not associative,
    so adding a part's subtotal could change the last digit of a mean)."""

    def __init__(self, part: bool = False) -> None:
        self.total = 0.0
        self.terms: list[float] | None = [] if part else None

    def add(self, value: float) -> None:
        """Add one term."""
        self.total += value
        if self.terms is not None:
            self.terms.append(value)

    def merge(self, other: OrderedSum) -> None:
        """Add a part's terms, in order."""
        if other.terms is None:
            raise ValueError("only a part's sum (OrderedSum(part=True)) can be merged")
        for value in other.terms:
            self.add(value)


class _AgentTally:
    def __init__(self, part: bool = False) -> None:
        self.n = 0
        self.passed = 0
        self.score_sum = OrderedSum(part)
        self.scored = 0
        self.check_applicable: Counter[str] = Counter()
        self.check_passed: Counter[str] = Counter()
        #: Each registered check's extra per-agent figures (`arguments.given_selection`).
        self.extras: dict[str, tuple[str, AgentFigures]] = {
            e.name: (e.agent_key, e.agent_figures()) for e in entries() if e.agent_figures
        }

    def add(self, record: TrajectoryResult) -> None:
        self.n += 1
        self.passed += record.aggregate.passed
        if record.aggregate.score is not None:
            self.score_sum.add(record.aggregate.score)
            self.scored += 1
        for name, result in record.checks.items():
            if result.applicable:
                self.check_applicable[name] += 1
                self.check_passed[name] += bool(result.passed)
        for _, figures in self.extras.values():
            figures.add(record)

    def merge(self, other: _AgentTally) -> None:
        self.n += other.n
        self.passed += other.passed
        self.score_sum.merge(other.score_sum)
        self.scored += other.scored
        self.check_applicable.update(other.check_applicable)
        self.check_passed.update(other.check_passed)
        for name, (_, figures) in self.extras.items():
            figures.merge(other.extras[name][1])

    def to_json(self) -> dict[str, Any]:
        checks: dict[str, dict[str, Any]] = {
            name: {"pass_rate": self.check_passed[name] / count}
            for name, count in sorted(self.check_applicable.items())
        }
        for name, (key, figures) in self.extras.items():
            if name in checks:
                checks[name][key] = figures.to_json()
        return {
            "trajectories": self.n,
            "pass_rate": self.passed / self.n if self.n else None,
            "mean_score": self.score_sum.total / self.scored if self.scored else None,
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
    """Feeds every check's accumulator and keeps the cross-check figures.

    `part=True`: the summary of one chunk of runs, folded in a worker process, for a parent's
    `merge`. A check whose accumulator has no `merge` (a custom check's, see
    `checks.base.MergingAccumulator`) is not fed in a part: the part keeps the chunk's records
    instead, and `merge` feeds them to the parent's accumulator one by one.
    """

    def __init__(
        self, checks: list[Check], n_cases: int, multi_agent: bool = False, *, part: bool = False,
        cases: Iterable[Case] = (),
    ) -> None:
        self.n_cases = n_cases
        self.multi_agent = multi_agent
        self.part = part
        self.accumulators: dict[str, CheckAccumulator] = {c.name: c.accumulator() for c in checks}
        #: The accumulators fed record by record when parts are merged (no `merge` of their own).
        self.unmerged = [n for n, a in self.accumulators.items() if not can_merge(a)]
        #: In a part with such accumulators: the chunk's records, for the parent to feed them.
        self.records: list[TrajectoryResult] = []
        self.failures: Counter[str] = Counter()
        self.overall = _AgentTally(part)
        self.agents: dict[str, _AgentTally] = {}
        self.reliability = ReliabilityAccumulator()
        self.adjudication = AdjudicationAccumulator()
        self.unscored = UnscoredAccumulator()
        self.kind_rates = KindRates(e.name for e in entries() if e.per_kind)
        #: Coverage and drift of a `tools_from` suite (`cases`: the suite's, for coverage).
        self.catalogue = CatalogueFigures(cases)
        self.errors = 0

    def add(self, case: Case, run: Trajectory, record: TrajectoryResult) -> None:
        """Take one graded trajectory."""
        for name, accumulator in self.accumulators.items():
            if not (self.part and name in self.unmerged):
                accumulator.add(case, run, record)
        if self.part and self.unmerged:
            self.records.append(record)
        for result in record.checks.values():
            self.failures.update(f.name for f in result.failures)
        self.overall.add(record)
        self.kind_rates.add(case, record)
        self._agent(record.agent).add(record)
        self.reliability.add(self._reliability_key(record), record.aggregate.passed)
        self.adjudication.add(case, record)
        self.unscored.add(record)
        self.catalogue.add(case, run, record)
        # Crashed checks, not trajectories: the headline and junit.xml's errors count checks.
        self.errors += sum(
            1 for r in record.checks.values() if r.applicable and r.passed is None
        )

    def merge(self, part: SuiteSummary, cases: Mapping[str, Case]) -> None:
        """Take a part folded over the runs right after those taken so far; afterwards this
        summary is the one that taking those runs one by one would have made. `cases`: the
        suite's cases, for the records of accumulators without a `merge`."""
        for name, accumulator in self.accumulators.items():
            if name in self.unmerged:
                for record in part.records:
                    # As for any run graded in a worker: its identity, no steps.
                    header = Trajectory(case_id=record.case_id, trial=record.trial,
                                        agent=record.agent)
                    accumulator.add(cases[record.case_id], header, record)
            elif name not in part.accumulators:
                raise ConfigError(
                    f"check {name!r} is registered in this process but not where the runs were "
                    "graded: register it in a module the grading processes import too, or "
                    "grade in this process (no --jobs, no --engine ray)")
            else:
                accumulator.merge(part.accumulators[name])  # type: ignore[attr-defined]
        self.failures.update(part.failures)
        self.overall.merge(part.overall)
        self.kind_rates.merge(part.kind_rates)
        for agent, tally in part.agents.items():
            self.agents.setdefault(agent, _AgentTally(self.part)).merge(tally)
        self.reliability.merge(part.reliability)
        self.adjudication.merge(part.adjudication)
        self.unscored.merge(part.unscored)
        self.catalogue.merge(part.catalogue)
        self.errors += part.errors

    def _agent(self, agent: str | None) -> _AgentTally:
        name = agent or UNNAMED_AGENT
        tally = self.agents.get(name)
        if tally is None:
            tally = self.agents[name] = _AgentTally(self.part)
        return tally

    def _reliability_key(self, record: TrajectoryResult) -> str:
        return reliability_key(record.case_id, record.agent, self.multi_agent)

    def to_json(self) -> dict[str, Any]:
        """The summary without judges and gates (the runner adds those)."""
        checks = {name: acc.summary() for name, acc in self.accumulators.items()}
        for name, block in checks.items():
            registered = entry(name)
            if registered is not None and registered.pass_k:
                checks[name] = block = {**block, **self.reliability.means()}
            if registered is not None and registered.per_kind:
                checks[name] = {**block, "per_kind": self.kind_rates.per_kind(name)}
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
        if self.unscored.used:
            # Likewise only where something was left undecided.
            out["unscored"] = self.unscored.to_json()
        mcp = self.catalogue.to_json()
        if mcp is not None:
            # Only for a suite that takes its tools from an MCP catalogue (`tools_from`).
            out["mcp"] = mcp
        return out
