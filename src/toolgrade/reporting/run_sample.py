"""Which graded runs get a run view in report.html: all of them, or above a size, a bounded cut.

Up to `EVERY_RUN_LIMIT` runs, every run is shown. Above it the page would grow with the run,
so it embeds the worst runs first (failing before unscored, lowest aggregate score, then most
failures, then the earliest), at most `PER_CASE` of each case and `FAILING_LIMIT` in all, plus
every run a failure example or crash row links to (so every link lands; the digest caps
those) and a sample of passing runs: the first passing run of each case, at most
`PASSING_SAMPLE`. `runs_section` then holds the views to a byte budget. The cut is stated on
the page, which points to `toolgrade view DIR` for the rest.

Memory stays bounded: only the candidates' loaders are held, never a list of every run, and a
record is parsed only once it is sure to be shown (a huge run's records are mostly never read).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass

from toolgrade.models.figures import ResultRecord, as_record, check_blocks, kept_keys
from toolgrade.reporting.digest import clip

#: What a run view reads of a record's check blocks (the rest, e.g. per-call figures, is left).
_CHECK_KEYS = ("applicable", "score", "passed", "error", "failures", "faults",
               "judge_recovery", "unscored_fields", "adjudicated", "adjudicated_by",
               "adjudication_reason", "adjudicated_route")
#: Longest string kept from a record for its view (the view clips shorter still).
_STRING_CHARS = 600


def _clipped(value: object) -> object:
    if isinstance(value, str):
        return value if len(value) <= _STRING_CHARS else clip(value, _STRING_CHARS)
    if isinstance(value, list):
        return [_clipped(v) for v in value]
    if isinstance(value, dict):
        return {k: _clipped(v) for k, v in value.items()}
    return value


def slim_record(record: ResultRecord) -> ResultRecord:
    """What a run view needs of a results record, long agent text clipped: a kept record
    costs about the same memory whatever the agent wrote."""
    checks = {name: kept_keys(block, _CHECK_KEYS)
              for name, block in check_blocks(record.get("checks") or {}).items()
              if isinstance(block, dict)}
    kept = {k: record.get(k) for k in ("case_id", "agent", "trial", "aggregate", "judges")}
    return as_record(_clipped({**kept, "checks": checks}))


#: Up to this many runs, every run has a view.
EVERY_RUN_LIMIT = 600
#: Above it, at most this many failing runs (besides those the failure examples link to).
FAILING_LIMIT = 500
#: Above it, at most this many failing runs of one case.
PER_CASE = 3
#: Above it, at most this many passing runs: the first passing run of each case.
PASSING_SAMPLE = 50

Loader = Callable[[], ResultRecord]


@dataclass(frozen=True)
class RunFacts:
    """What choosing a run needs of its record (taken from every record, kept for few)."""

    case_id: str
    passed: bool
    unscored: bool = False
    score: float | None = None
    n_failures: int = 0

    @classmethod
    def of(cls, record: ResultRecord) -> RunFacts:
        """The facts of a results record."""
        aggregate = record.get("aggregate") or {}
        checks = record.get("checks") or {}
        failures = sum(len(b.get("failures") or []) for b in checks.values()
                       if isinstance(b, dict))
        score = aggregate.get("score")
        return cls(case_id=str(record.get("case_id")), passed=bool(aggregate.get("passed")),
                   unscored=aggregate.get("status") == "unscored",
                   score=float(score) if isinstance(score, int | float) else None,
                   n_failures=failures)


def badness(facts: RunFacts, position: int) -> tuple[int, float, int, int]:
    """How bad a run is, as a sort key (larger is worse): failing over unscored over passing,
    then the lower score (none counts 0: a crash), more failures, and the earlier run."""
    rank = 0 if facts.passed else 1 if facts.unscored else 2
    return rank, -(facts.score or 0.0), facts.n_failures, -position


class _Worst:
    """The `limit` worst runs with at most `per_case` of a case, kept as a stream goes by.

    Exact on a stream: a run left out (or dropped) has `limit` worse runs, or `per_case` worse
    ones of its case, already in, and runs that come later only add to those.
    """

    def __init__(self, limit: int, per_case: int) -> None:
        self.limit, self.per_case = limit, per_case
        self.held: dict[int, tuple[tuple[int, float, int, int], str, Loader]] = {}
        self._by_case: dict[str, list[int]] = {}
        self._heap: list[tuple[tuple[int, float, int, int], int]] = []  # least bad on top

    def offer(self, position: int, facts: RunFacts, load: Loader) -> None:
        """Consider one failing run."""
        key = badness(facts, position)
        mine = self._by_case.setdefault(facts.case_id, [])
        if len(mine) >= self.per_case:
            mildest = min(mine, key=lambda p: self.held[p][0])
            if self.held[mildest][0] > key:
                return
            self._drop(mildest)
        elif len(self.held) >= self.limit:
            top = self._least_bad()
            if top is None or self.held[top][0] > key:
                return
            self._drop(top)
        self.held[position] = (key, facts.case_id, load)
        mine.append(position)
        heapq.heappush(self._heap, (key, position))

    def _least_bad(self) -> int | None:
        while self._heap and self._heap[0][1] not in self.held:
            heapq.heappop(self._heap)  # dropped earlier: lazy deletion
        return self._heap[0][1] if self._heap else None

    def _drop(self, position: int) -> None:
        _key, case_id, _load = self.held.pop(position)
        self._by_case[case_id].remove(position)


class RunPicker:
    """Takes each results record in order and keeps those that get a run view."""

    def __init__(self) -> None:
        self.total = 0
        self.failing = 0
        #: Every run so far, while there are no more than EVERY_RUN_LIMIT.
        self._all: dict[int, Loader] | None = {}
        self._worst = _Worst(FAILING_LIMIT, PER_CASE)
        self._linked: dict[int, Loader] = {}
        self._sample: dict[int, Loader] = {}
        self._sampled_cases: set[str] = set()
        #: Badness of each run held, for the byte budget's order.
        self.rank: dict[int, tuple[int, float, int, int]] = {}
        self._kept: tuple[int, dict[int, ResultRecord]] | None = None

    def offer(self, position: int, record: ResultRecord, linked: bool) -> None:
        """Consider the record at `position`; `linked`: a row of the report points at it."""
        self.take(position, RunFacts.of(record), linked, lambda: record)

    def take(self, position: int, facts: RunFacts, linked: bool, load: Loader) -> None:
        """`offer`, from what the choice needs: `load()` gives the record, and is only called
        for a run that is shown (most of a large run's records are never read)."""
        self.total += 1
        self.rank[position] = badness(facts, position)
        if self._all is not None:
            self._all[position] = load
            if self.total > EVERY_RUN_LIMIT:
                self._all = None
        if linked:
            self._linked[position] = load
        if not facts.passed:
            self.failing += 1
            self._worst.offer(position, facts, load)
        elif facts.case_id not in self._sampled_cases and len(self._sample) < PASSING_SAMPLE:
            self._sampled_cases.add(facts.case_id)
            self._sample[position] = load
        self._forget_ranks()

    def _forget_ranks(self) -> None:
        """Keep badness only for runs still held (bounded memory past the limit)."""
        if self._all is None and len(self.rank) > 2 * (EVERY_RUN_LIMIT + FAILING_LIMIT):
            held = self._chosen()
            self.rank = {p: k for p, k in self.rank.items() if p in held}

    def _chosen(self) -> dict[int, Loader]:
        if self._all is not None:
            return self._all
        worst = {p: load for p, (_key, _case, load) in self._worst.held.items()}
        return {**worst, **self._sample, **self._linked}

    @property
    def kept(self) -> dict[int, ResultRecord]:
        """Position in results.jsonl -> slim record, for the runs shown (parsed once)."""
        if self._kept is None or self._kept[0] != self.total:
            chosen = self._chosen()
            self._kept = (self.total, {p: slim_record(chosen[p]()) for p in sorted(chosen)})
        return self._kept[1]

    @property
    def linked(self) -> frozenset[int]:
        """Positions of the runs a row of the report links to."""
        return frozenset(self._linked)

    @property
    def every_run(self) -> bool:
        """Whether every run has a view (the run is not above the limit)."""
        return self.total <= EVERY_RUN_LIMIT

    def cut(self) -> str:
        """What the page shows, in a sentence (empty when it shows every run)."""
        if self.every_run:
            return ""
        kept = self.kept
        passing_kept = sum(bool((r.get("aggregate") or {}).get("passed")) for r in kept.values())
        failing_kept = len(kept) - passing_kept
        return (f"{self.total:,} runs, more than {EVERY_RUN_LIMIT:,}: showing {failing_kept:,} "
                f"of {self.failing:,} failing runs (the worst first, at most {PER_CASE} per "
                f"case and {FAILING_LIMIT:,} in all, and every run a failure example links to) "
                f"and {passing_kept:,} of {self.total - self.failing:,} passing runs (the first "
                f"passing run of each case, at most {PASSING_SAMPLE}).")
