"""Summary parts folded per chunk and merged in order make the summary one process makes.

This is what lets `toolgrade run --jobs N` fold the summary in the workers: whatever the
chunking, the merged summary must be the same, byte for byte, as taking the runs one by one.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builders_jobs import chunked, graded_runs, synthetic_suite
from toolgrade.checks import Check, default_checks
from toolgrade.jsonio import out as json_out
from toolgrade.models import Aggregate, Case, Trajectory, TrajectoryResult
from toolgrade.scoring.runner import Graded, ValidatedInputs
from toolgrade.scoring.summary import OrderedSum, SuiteSummary

#: Scores whose float sums depend on the order they are added in.
AWKWARD_SCORES = (0.1, 0.2, 0.7, 1 / 3, 2 / 3, 0.3, 1e-3, 0.9999)


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[ValidatedInputs, list[Graded]]:
    inputs, runs = graded_runs(*synthetic_suite(tmp_path_factory.mktemp("synth")))
    # Weighted-like scores, so that the mean score is a float sum that order can change.
    rescored = []
    for i, (case, run, record) in enumerate(runs):
        score = AWKWARD_SCORES[i % len(AWKWARD_SCORES)]
        aggregate = Aggregate(mode="weighted", score=score, passed=record.aggregate.passed)
        rescored.append(Graded(case, run, record.model_copy(update={"aggregate": aggregate})))
    return inputs, rescored


def _one_by_one(inputs: ValidatedInputs, runs: list[Graded], checks: list[Check]) -> str:
    summary = SuiteSummary(checks, len(inputs.suite), multi_agent=True)
    for case, run, record in runs:
        summary.add(case, run, record)
    return json_out.dumps(summary.to_json(), indent=2)


def _merged(inputs: ValidatedInputs, runs: list[Graded], checks: list[Check],
            sizes: list[int]) -> str:
    summary = SuiteSummary(checks, len(inputs.suite), multi_agent=True)
    for chunk in chunked(runs, sizes):
        part = SuiteSummary(checks, len(inputs.suite), multi_agent=True, part=True)
        for case, run, record in chunk:
            part.add(case, run, record)
        summary.merge(part, inputs.suite.cases)
    return json_out.dumps(summary.to_json(), indent=2)


@settings(max_examples=25)
@given(sizes=st.lists(st.integers(min_value=1, max_value=120), min_size=1, max_size=6))
def test_merged_parts_make_the_one_process_summary(
    graded: tuple[ValidatedInputs, list[Graded]], sizes: list[int]
) -> None:
    inputs, runs = graded
    assert _merged(inputs, runs, default_checks(), sizes) == _one_by_one(
        inputs, runs, default_checks()
    )


def test_the_mean_score_would_differ_if_parts_added_subtotals(
    graded: tuple[ValidatedInputs, list[Graded]],
) -> None:
    """The fixture has teeth: adding chunk subtotals is not the one-by-one float sum."""
    _, runs = graded
    scores = [g.record.aggregate.score or 0.0 for g in runs]
    one_by_one = 0.0
    for score in scores:
        one_by_one += score
    subtotals = [sum(c) for c in chunked(scores, [7])]
    assert sum(subtotals) != one_by_one
    merged = OrderedSum()
    for chunk in chunked(scores, [7]):
        part = OrderedSum(part=True)
        for score in chunk:
            part.add(score)
        merged.merge(part)
    assert merged.total == one_by_one


def test_only_a_part_sum_merges() -> None:
    with pytest.raises(ValueError, match="part"):
        OrderedSum().merge(OrderedSum())


class _InOrder:
    """A custom accumulator with no `merge`: it notes the runs it is fed, in order."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, int, str | None, int]] = []

    def add(self, case: Case, run: Trajectory, record: TrajectoryResult) -> None:
        self.seen.append((case.id, record.trial, record.agent, len(run.steps)))

    def summary(self) -> dict[str, Any]:
        return {"seen": self.seen}


class _InOrderCheck:
    """Selection's grades, with `_InOrder` as its accumulator."""

    name = "selection"

    def accumulator(self) -> _InOrder:
        return _InOrder()


def test_an_accumulator_without_merge_is_fed_each_record_when_parts_merge(
    graded: tuple[ValidatedInputs, list[Graded]],
) -> None:
    inputs, runs = graded
    checks: list[Any] = [_InOrderCheck(), *default_checks()[1:]]
    merged = SuiteSummary(checks, len(inputs.suite), multi_agent=True)
    for chunk in chunked(runs, [13, 40]):
        part = SuiteSummary(checks, len(inputs.suite), multi_agent=True, part=True)
        for case, run, record in chunk:
            part.add(case, run, record)
        assert len(part.records) == len(chunk)  # kept for the parent, not folded here
        merged.merge(part, inputs.suite.cases)
    seen = merged.accumulators["selection"].summary()["seen"]
    # Every run, in input order, as its identity alone (no steps), as from any worker.
    assert seen == [(r.case_id, r.trial, r.agent, 0) for _, _, r in runs]
    others = {k: v for k, v in merged.to_json()["checks"].items() if k != "selection"}
    whole = SuiteSummary(default_checks(), len(inputs.suite), multi_agent=True)
    for case, run, record in runs:
        whole.add(case, run, record)
    assert others == {k: v for k, v in whole.to_json()["checks"].items() if k != "selection"}


def test_a_part_of_mergeable_accumulators_keeps_no_records(
    graded: tuple[ValidatedInputs, list[Graded]],
) -> None:
    inputs, runs = graded
    part = SuiteSummary(default_checks(), len(inputs.suite), part=True)
    for case, run, record in runs[:10]:
        part.add(case, run, record)
    assert part.records == [] and part.unmerged == []
