"""`summary.adjudication`: counts of who decided what, and pass rates with and without, the
aggregate recomputed by each case's own scoring mode from the deterministic results."""

from __future__ import annotations

from typing import Any

from toolgrade.models import (
    Aggregate,
    Case,
    CheckResult,
    Expected,
    Scoring,
    SelectionExpectation,
    TrajectoryResult,
)
from toolgrade.scoring.adjudication import AdjudicationAccumulator, unadjudicated


def _case(scoring: Scoring | None = None) -> Case:
    return Case(id="c1", expected=Expected(selection=SelectionExpectation(tools=["a"])),
                scoring=scoring or Scoring())


def _record(selection: CheckResult, ordering_score: float, passed: bool) -> TrajectoryResult:
    ordering = CheckResult(check="ordering", applicable=True, score=ordering_score,
                           passed=ordering_score == 1.0)
    return TrajectoryResult(case_id="c1", trial=0, agent=None,
                            checks={"selection": selection, "ordering": ordering},
                            aggregate=Aggregate(mode="binary", score=None, passed=passed))


def _selection(**figures: Any) -> CheckResult:
    decided = figures.get("adjudicated") == "pass" and "unadjudicated" in figures
    return CheckResult(check="selection", applicable=True, score=1.0 if decided else 0.5,
                       passed=decided, figures=figures)


JUDGE_PASS = _selection(adjudicated="pass", adjudicated_by="judge",
                        unadjudicated={"score": 0.5, "passed": False})


def test_unadjudicated_restores_the_deterministic_outcome() -> None:
    before = unadjudicated(JUDGE_PASS)
    assert (before.score, before.passed) == (0.5, False)
    plain = _selection()
    assert unadjudicated(plain) is plain


def test_counts_and_rates_with_and_without() -> None:
    acc = AdjudicationAccumulator()
    acc.add(_case(), _record(JUDGE_PASS, 1.0, passed=True))
    acc.add(_case(), _record(_selection(adjudicated="unscored", adjudicated_by="judge"), 1.0,
                             passed=False))
    acc.add(_case(), _record(_selection(adjudicated="fail", adjudicated_by="human"), 1.0,
                             passed=False))
    assert acc.used
    out = acc.summary()
    assert out["selection"]["judge"] == {"pass": 1, "fail": 0, "unscored": 1}
    assert out["selection"]["human"] == {"pass": 0, "fail": 1}
    assert (out["selection"]["pass_rate"], out["selection"]["pass_rate_without"]) == (1 / 3, 0.0)
    assert out["aggregate"] == {"pass_rate": 1 / 3, "pass_rate_without": 0.0}


def test_the_aggregate_without_uses_the_cases_scoring_mode() -> None:
    # Weighted at 0.7: selection 0.5 and ordering 1.0 average 0.75, so the case passes even
    # without the judge's pass; a binary case would not.
    weighted = Scoring(mode="weighted", threshold=0.7)
    acc = AdjudicationAccumulator()
    acc.add(_case(weighted), _record(JUDGE_PASS, 1.0, passed=True))
    assert acc.summary()["aggregate"]["pass_rate_without"] == 1.0


def test_nothing_adjudicated_is_not_used() -> None:
    acc = AdjudicationAccumulator()
    acc.add(_case(), _record(_selection(), 1.0, passed=False))
    assert not acc.used
