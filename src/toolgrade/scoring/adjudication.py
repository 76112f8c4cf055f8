"""What judges and people decided, and what they left undecided: `summary.adjudication` and
`summary.unscored`.

`summary.adjudication`: a check whose outcome a verdict or decision changed keeps its
deterministic score and pass in `figures.unadjudicated` (checks/adjudication.py); the pass
rates "without" use those, and the aggregate is recomputed from them by the case's own scoring
mode. So nobody mistakes an adjudicated pass for a listed one: both rates stand side by side.

`summary.unscored`: how many runs and items no judge or person decided, per check and why.
Present only when something was unscored, so the summaries of fully decided runs keep their
keys. `runs` counts runs whose aggregate status is `unscored` (they did not pass, and only
undecided items kept them from it); per check, `runs` counts results whose status is
`unscored`, `items` every undecided item (also those on a check that passed or failed for
another reason), `reasons` the items per reason and `by` the items per kind and reason, most
first (what the reports put in words: `models.status.describe_count`).
"""

from __future__ import annotations

from collections import Counter
from typing import TypedDict

from toolgrade.checks.base import pass_rate
from toolgrade.models import Case, CheckName, CheckResult, TrajectoryResult
from toolgrade.models.figures import BlockView, JudgeLogEntry, decision_of
from toolgrade.models.status import aggregate_status, check_status, unscored_items
from toolgrade.scoring.grading import aggregate, status_block

#: The checks in which a judge or a person can decide.
DECIDING_CHECKS: tuple[CheckName, ...] = ("selection", "recovery")


def unadjudicated(result: CheckResult) -> CheckResult:
    """The result as the deterministic check left it, before any verdict or decision."""
    before = decision_of(result).get("unadjudicated")
    if before is None:
        return result
    return result.model_copy(update={"score": before["score"], "passed": before["passed"]})


class DecidedCheck(TypedDict):
    """One deciding check's block of `summary.adjudication`."""

    adjudicated: int
    judge: dict[str, int]
    human: dict[str, int]
    blocked_by_hard_fail: int
    pass_rate: float | None
    pass_rate_without: float | None


class RatesWithout(TypedDict):
    """The aggregate pass rate with and without adjudication."""

    pass_rate: float | None
    pass_rate_without: float | None


class AdjudicationBlock(TypedDict, total=False):
    """`summary.adjudication`: a block per deciding check, then `aggregate`."""

    selection: DecidedCheck
    recovery: DecidedCheck
    aggregate: RatesWithout


class _CheckTally:
    def __init__(self) -> None:
        self.applicable = self.passed = self.passed_without = self.blocked = 0
        self.judge: Counter[str] = Counter()
        self.human: Counter[str] = Counter()

    def add(self, result: CheckResult) -> None:
        self.applicable += 1
        self.passed += bool(result.passed)
        self.passed_without += bool(unadjudicated(result).passed)
        figures = decision_of(result)
        self.blocked += "adjudication_blocked_by" in figures
        decided = figures.get("adjudicated")
        if decided is not None:
            by = self.human if figures.get("adjudicated_by") == "human" else self.judge
            by[decided] += 1

    def merge(self, other: _CheckTally) -> None:
        self.applicable += other.applicable
        self.passed += other.passed
        self.passed_without += other.passed_without
        self.blocked += other.blocked
        self.judge.update(other.judge)
        self.human.update(other.human)

    @property
    def decided(self) -> int:
        return sum(self.judge.values()) + sum(self.human.values())

    def to_json(self) -> DecidedCheck:
        return {
            "adjudicated": self.decided,
            "judge": {v: self.judge[v] for v in ("pass", "fail", "unscored")},
            "human": {v: self.human[v] for v in ("pass", "fail")},
            "blocked_by_hard_fail": self.blocked,
            "pass_rate": pass_rate(self.passed, self.applicable),
            "pass_rate_without": pass_rate(self.passed_without, self.applicable),
        }


#: Where a judge item ended, in the order `summary.judges.D.items` lists them.
ITEM_OUTCOMES = ("decided_locally", "escalated", "decided_by_people", "left_for_people")


def item_outcome(entry: JudgeLogEntry) -> str:
    """Where one recorded verdict (a `results.jsonl` judges entry) ended: decided by a person,
    left unscored for people, decided by the escalation judge, else by the judge itself."""
    if entry.get("decided_by") == "human":
        return "decided_by_people"
    if entry.get("verdict") not in ("pass", "fail"):
        return "left_for_people"
    return "escalated" if entry.get("escalated") else "decided_locally"


class JudgeItemTally:
    """Per dimension, how many judge items were decided where (`summary.judges.D.items`).

    Counted from the records, so it holds however the runs were graded. A route a person
    decided never reaches the judge (`checks.adjudication`): it is counted from the selection
    figures, as alternate_route's `decided_by_people`.
    """

    def __init__(self) -> None:
        self.counts: dict[str, Counter[str]] = {}

    def add(self, record: TrajectoryResult) -> None:
        """Take one record's judge log."""
        for dimension, entries in record.judge_log().items():
            counts = self.counts.setdefault(dimension, Counter())
            counts.update(item_outcome(e) for e in entries)
        selection = record.checks.get("selection")
        if selection is not None and decision_of(selection).get("adjudicated_by") == "human":
            self.counts.setdefault("alternate_route", Counter())["decided_by_people"] += 1

    def merge(self, other: JudgeItemTally) -> None:
        """Add another's counts."""
        for dimension, counts in other.counts.items():
            self.counts.setdefault(dimension, Counter()).update(counts)

    def summary(self) -> dict[str, dict[str, int]]:
        """`{dimension: {decided_locally, escalated, decided_by_people, left_for_people}}`."""
        return {dim: {k: counts[k] for k in ITEM_OUTCOMES}
                for dim, counts in sorted(self.counts.items())}


class AdjudicationAccumulator:
    """Folds adjudication figures of every trajectory into `summary.adjudication`, and where
    judge items went into `items` (for `summary.judges`)."""

    def __init__(self) -> None:
        self.checks = {name: _CheckTally() for name in DECIDING_CHECKS}
        self.trajectories = self.passed = self.passed_without = 0
        self.items = JudgeItemTally()

    def add(self, case: Case, record: TrajectoryResult) -> None:
        """Take one graded trajectory."""
        self.items.add(record)
        self.trajectories += 1
        self.passed += record.aggregate.passed
        changed = False
        for name in DECIDING_CHECKS:
            result = record.checks.get(name)
            if result is not None and result.applicable:
                self.checks[name].add(result)
                changed = changed or "unadjudicated" in decision_of(result)
        if not changed:
            self.passed_without += record.aggregate.passed
            return
        before = {name: unadjudicated(r) for name, r in record.checks.items()}
        self.passed_without += aggregate(before, case.scoring).passed

    def merge(self, other: AdjudicationAccumulator) -> None:
        """Add another's counts (the trajectories after these)."""
        for name, tally in self.checks.items():
            tally.merge(other.checks[name])
        self.items.merge(other.items)
        self.trajectories += other.trajectories
        self.passed += other.passed
        self.passed_without += other.passed_without

    @property
    def used(self) -> bool:
        """True when some check was adjudicated (or would have been, bar a hard fail)."""
        return any(t.decided or t.blocked for t in self.checks.values())

    def summary(self) -> AdjudicationBlock:
        """`{selection: {...}, recovery: {...}, aggregate: {pass_rate, pass_rate_without}}`."""
        out: AdjudicationBlock = {"selection": self.checks["selection"].to_json(),
                                  "recovery": self.checks["recovery"].to_json()}
        out["aggregate"] = {
            "pass_rate": pass_rate(self.passed, self.trajectories),
            "pass_rate_without": pass_rate(self.passed_without, self.trajectories),
        }
        return out


# summary.unscored -------------------------------------------------------------------------

class UnscoredGroup(TypedDict):
    """Undecided items of one kind and reason."""

    kind: str
    reason: str
    items: int


class CheckUnscored(TypedDict):
    """One check's block of `summary.unscored.checks`."""

    runs: int
    items: int
    reasons: dict[str, int]
    by: list[UnscoredGroup]


class UnscoredBlock(TypedDict):
    """`summary.unscored`."""

    runs: int
    checks: dict[str, CheckUnscored]


class _CheckUnscored:
    def __init__(self) -> None:
        self.runs = 0
        self.items: Counter[tuple[str, str]] = Counter()  # (kind, reason) -> items

    def merge(self, other: _CheckUnscored) -> None:
        self.runs += other.runs
        self.items.update(other.items)

    def to_json(self) -> CheckUnscored:
        reasons: Counter[str] = Counter()
        for (_, reason), n in self.items.items():
            reasons[reason] += n
        ordered = sorted(self.items.items(), key=lambda kv: (-kv[1], kv[0]))
        return {
            "runs": self.runs,
            "items": sum(self.items.values()),
            "reasons": dict(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))),
            "by": [{"kind": kind, "reason": reason, "items": n} for (kind, reason), n in ordered],
        }


class UnscoredAccumulator:
    """Counts unscored runs and items, one record at a time; merges exactly (counts only)."""

    def __init__(self) -> None:
        self.runs = 0
        self.checks: dict[str, _CheckUnscored] = {}

    def add(self, record: TrajectoryResult) -> None:
        """Take one graded trajectory."""
        blocks: dict[CheckName, BlockView] = {
            name: status_block(result) for name, result in record.checks.items()}
        undecided = False
        for name, block in blocks.items():
            items = unscored_items(name, block)
            if not items:
                continue
            # Only a block with undecided items has a status its failures decide.
            block["failures"] = [f.to_json() for f in record.checks[name].failures]
            undecided = True
            tally = self.checks.setdefault(name, _CheckUnscored())
            tally.runs += check_status(name, block) == "unscored"
            tally.items.update((i.kind, i.reason) for i in items)
        if undecided:  # a run with no undecided item cannot be unscored
            status = record.aggregate.status or aggregate_status(blocks, record.aggregate.passed)
            self.runs += status == "unscored"

    def merge(self, other: UnscoredAccumulator) -> None:
        """Add another's counts."""
        self.runs += other.runs
        for name, tally in other.checks.items():
            self.checks.setdefault(name, _CheckUnscored()).merge(tally)

    @property
    def used(self) -> bool:
        """Whether any item was unscored."""
        return bool(self.checks)

    def to_json(self) -> UnscoredBlock:
        """`{runs, checks: {check: {runs, items, reasons: {reason: n},
        by: [{kind, reason, items}]}}}` (kind: field, route or recovery quality)."""
        return {"runs": self.runs,
                "checks": {name: self.checks[name].to_json() for name in sorted(self.checks)}}
