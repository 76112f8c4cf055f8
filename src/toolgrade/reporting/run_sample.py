"""Which graded runs get a run view in report.html: all of them, or above a size, a bounded cut.

Up to `EVERY_RUN_LIMIT` runs, every run is shown. Above it, the page would grow with the run,
so the report keeps every failing run up to `FAILING_LIMIT` (the first ones, in results order),
every run a failure example or crash row of the report links to (so every link lands), and a
sample of passing runs: the first passing run of each case, at most `PASSING_SAMPLE`. The cut
is stated on the page. Memory stays bounded: only the kept records are held, never a list of
every run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolgrade.reporting.digest import clip

#: What a run view reads of a record's check blocks (the rest, e.g. per-call figures, is left).
_CHECK_KEYS = ("applicable", "score", "passed", "error", "failures", "faults",
               "judge_recovery", "unscored_fields", "adjudicated", "adjudicated_by",
               "adjudication_reason", "adjudicated_route")
#: Longest string kept from a record for its view (the view clips shorter still).
_STRING_CHARS = 600


def _clipped(value: Any) -> Any:
    if isinstance(value, str):
        return value if len(value) <= _STRING_CHARS else clip(value, _STRING_CHARS)
    if isinstance(value, list):
        return [_clipped(v) for v in value]
    if isinstance(value, dict):
        return {k: _clipped(v) for k, v in value.items()}
    return value


def slim_record(record: dict[str, Any]) -> dict[str, Any]:
    """What a run view needs of a results record, long agent text clipped: a kept record
    costs about the same memory whatever the agent wrote."""
    checks = {name: {k: block[k] for k in _CHECK_KEYS if k in block}
              for name, block in (record.get("checks") or {}).items() if isinstance(block, dict)}
    kept = {k: record.get(k) for k in ("case_id", "agent", "trial", "aggregate", "judges")}
    slim: dict[str, Any] = _clipped({**kept, "checks": checks})
    return slim

#: Up to this many runs, every run has a view.
EVERY_RUN_LIMIT = 1000
#: Above it, at most this many failing runs (besides those the failure examples link to).
FAILING_LIMIT = 1000
#: Above it, at most this many passing runs: the first passing run of each case.
PASSING_SAMPLE = 100


class RunPicker:
    """Takes each results record in order and keeps those that get a run view."""

    def __init__(self) -> None:
        #: position in results.jsonl -> record, for the runs kept.
        self.kept: dict[int, dict[str, Any]] = {}
        self.total = 0
        self.failing = 0
        self._failing_kept = 0
        self._linked: set[int] = set()
        self._sample: set[int] = set()
        self._sampled_cases: set[str] = set()

    def offer(self, position: int, record: dict[str, Any], linked: bool) -> None:
        """Consider the record at `position`; `linked`: a row of the report points at it."""
        passed = bool((record.get("aggregate") or {}).get("passed"))
        self.take(position, passed, str(record.get("case_id")), linked, lambda: record)

    def take(self, position: int, passed: bool, case_id: str, linked: bool,
             load: Callable[[], dict[str, Any]]) -> None:
        """`offer`, from what the choice needs: `load()` gives the record, and is only called
        for a run that is kept (most of a large run's records are never read)."""
        self.total += 1
        if self.total == EVERY_RUN_LIMIT + 1:
            self._drop_unsampled_passes()
        if linked:
            self._linked.add(position)
        if not passed:
            self.failing += 1
            if linked or self._failing_kept < FAILING_LIMIT:
                self._failing_kept += not linked
                self.kept[position] = slim_record(load())
            return
        if case_id not in self._sampled_cases and len(self._sample) < PASSING_SAMPLE:
            self._sampled_cases.add(case_id)
            self._sample.add(position)
        if self.total <= EVERY_RUN_LIMIT or linked or position in self._sample:
            self.kept[position] = slim_record(load())

    def _drop_unsampled_passes(self) -> None:
        """Past the limit: passing runs outside the sample (and linked from nowhere) go."""
        for position, record in list(self.kept.items()):
            passed = bool((record.get("aggregate") or {}).get("passed"))
            if passed and position not in self._sample and position not in self._linked:
                del self.kept[position]

    @property
    def every_run(self) -> bool:
        """Whether every run has a view (the run is not above the limit)."""
        return self.total <= EVERY_RUN_LIMIT

    def cut(self) -> str:
        """What the page shows, in a sentence (empty when it shows every run)."""
        if self.every_run:
            return ""
        passing_kept = sum(bool((r.get("aggregate") or {}).get("passed"))
                           for r in self.kept.values())
        failing_kept = len(self.kept) - passing_kept
        failing = (f"all {failing_kept:,} failing runs" if failing_kept == self.failing
                   else f"{failing_kept:,} of {self.failing:,} failing runs (the first "
                        f"{FAILING_LIMIT:,} and every run a failure example links to)")
        return (f"{self.total:,} runs, more than {EVERY_RUN_LIMIT:,}: showing {failing} and "
                f"{passing_kept:,} of {self.total - self.failing:,} passing runs (the first "
                f"passing run of each case, at most {PASSING_SAMPLE}).")
