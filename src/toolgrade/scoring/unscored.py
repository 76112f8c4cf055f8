"""`summary.unscored`: how many runs and items no judge or person decided, per check and why.

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

from toolgrade.models import CheckName, CheckResult, TrajectoryResult
from toolgrade.models.figures import BlockView, decision_of, figures_of
from toolgrade.models.status import aggregate_status, check_status, unscored_items


def _block(result: CheckResult) -> BlockView:
    """The parts of a result's JSON form its undecided items depend on (cheaper than
    `to_json`); its status also reads `failures`, added where there are such items."""
    block: BlockView = {"applicable": result.applicable, "passed": result.passed}
    if result.check == "arguments":
        fields = figures_of(result, "arguments").get("unscored_fields")
        if fields is not None:
            block["unscored_fields"] = fields
    decision = decision_of(result)
    if "adjudicated" in decision:
        block["adjudicated"] = decision["adjudicated"]
    if "adjudicated_route" in decision:
        block["adjudicated_route"] = decision["adjudicated_route"]
    if "adjudication_reason" in decision:
        block["adjudication_reason"] = decision["adjudication_reason"]
    return block


def is_unscored(result: CheckResult) -> bool:
    """Whether a check's state is `unscored`: it did not pass only because items were
    undecided (read from the result without writing its JSON form)."""
    figures = result.figures
    if not figures.get("unscored_fields") and figures.get("adjudicated") != "unscored":
        return False  # the two ways an item is left undecided (`models.status.unscored_items`)
    block = _block(result)
    if not unscored_items(result.check, block):
        return False
    block["failures"] = [f.to_json() for f in result.failures]
    return check_status(result.check, block) == "unscored"


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
            name: _block(result) for name, result in record.checks.items()}
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
