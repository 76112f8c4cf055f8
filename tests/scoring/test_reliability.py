"""pass@k and pass^k: hand-computed values, properties, and the per-case accumulator."""

from __future__ import annotations

import json
from math import comb

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolgrade.models import Aggregate, TrajectoryResult
from toolgrade.scoring.tallies import (
    MAX_K,
    ReliabilityAccumulator,
    pass_at_k,
    pass_hat_k,
)


@st.composite
def nck(draw: st.DrawFn, max_n: int = 60) -> tuple[int, int, int]:
    n = draw(st.integers(1, max_n))
    return n, draw(st.integers(0, n)), draw(st.integers(1, n))


@pytest.mark.parametrize(
    ("n", "c", "k", "at", "hat"),
    [
        (5, 2, 2, 0.7, 0.1),  # 1 - C(3,2)/C(5,2) = 1 - 3/10; C(2,2)/C(5,2) = 1/10
        (5, 2, 1, 0.4, 0.4),
        (5, 2, 3, 0.9, 0.0),
        (5, 2, 4, 1.0, 0.0),  # fewer failures than k: some pass is certain
        (4, 4, 4, 1.0, 1.0),
        (4, 0, 2, 0.0, 0.0),
        (10, 7, 3, 1 - 1 / 120, 35 / 120),
    ],
)
def test_hand_computed(n: int, c: int, k: int, at: float, hat: float) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(at)
    assert pass_hat_k(n, c, k) == pytest.approx(hat)


@given(nck())
def test_both_within_unit_interval_and_hat_never_exceeds_at(args: tuple[int, int, int]) -> None:
    n, c, k = args
    at, hat = pass_at_k(n, c, k), pass_hat_k(n, c, k)
    assert 0.0 <= hat <= at <= 1.0


@given(nck())
def test_k_one_is_the_pass_rate(args: tuple[int, int, int]) -> None:
    n, c, _ = args
    assert pass_at_k(n, c, 1) == pytest.approx(c / n)
    assert pass_hat_k(n, c, 1) == pytest.approx(c / n)


@given(nck())
def test_monotone_in_k(args: tuple[int, int, int]) -> None:
    n, c, k = args
    if k < n:
        assert pass_at_k(n, c, k + 1) >= pass_at_k(n, c, k)
        assert pass_hat_k(n, c, k + 1) <= pass_hat_k(n, c, k)


@given(nck())
def test_matches_the_definition(args: tuple[int, int, int]) -> None:
    n, c, k = args
    assert pass_at_k(n, c, k) == pytest.approx(1 - comb(n - c, k) / comb(n, k))
    assert pass_hat_k(n, c, k) == pytest.approx(comb(c, k) / comb(n, k))


def test_exact_for_large_n() -> None:
    # C(2000, 1000) overflows a float; the exact fraction still gives the right answer.
    assert pass_hat_k(2000, 1999, 1000) == pytest.approx(0.5)
    assert pass_at_k(2000, 1, 1000) == pytest.approx(0.5)
    assert pass_hat_k(3000, 2999, 2) == pytest.approx(2998 / 3000, rel=1e-12)


@pytest.mark.parametrize(("n", "c", "k"), [(0, 0, 1), (3, 4, 1), (3, -1, 1), (3, 1, 0), (3, 1, 4)])
def test_rejects_impossible_counts(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)
    with pytest.raises(ValueError):
        pass_hat_k(n, c, k)


def test_accumulator_summary_per_case() -> None:
    acc = ReliabilityAccumulator()
    for passed in (True, False, True, False, False):
        acc.add("a", passed)
    acc.add("b", True)
    summary = acc.summary()
    assert list(summary) == ["a", "b"]
    a = summary["a"]
    assert (a["n"], a["c"]) == (5, 2)
    assert list(a["pass_at_k"]) == ["1", "2", "3", "4", "5"]
    assert a["pass_at_k"]["2"] == pytest.approx(0.7)
    assert a["pass_hat_k"]["2"] == pytest.approx(0.1)
    assert summary["b"] == {"n": 1, "c": 1, "pass_at_k": {"1": 1.0}, "pass_hat_k": {"1": 1.0}}
    assert json.loads(json.dumps(summary)) == summary


def test_accumulator_means_pool_cases_with_enough_trials() -> None:
    acc = ReliabilityAccumulator()
    for passed in (True, False, True, False, False):
        acc.add("a", passed)
    acc.add("b", True)
    means = acc.means()
    assert means["pass_at_k"]["1"] == pytest.approx((0.4 + 1.0) / 2)
    assert means["pass_at_k"]["2"] == pytest.approx(0.7)  # only case a has 2 trials
    assert means["pass_hat_k"]["5"] == pytest.approx(0.0)
    assert set(means["pass_hat_k"]) == {"1", "2", "3", "4", "5"}


def test_k_is_capped_so_the_summary_does_not_grow_with_trials() -> None:
    acc = ReliabilityAccumulator()
    n = MAX_K + 40
    for trial in range(n):
        acc.add("many", trial % 2 == 0)
    case = acc.summary()["many"]
    assert (case["n"], case["c"]) == (n, (n + 1) // 2)
    assert list(case["pass_hat_k"]) == [str(k) for k in range(1, MAX_K + 1)]
    assert case["pass_at_k"][str(MAX_K)] == pytest.approx(pass_at_k(n, (n + 1) // 2, MAX_K))
    assert set(acc.means()["pass_hat_k"]) == {str(k) for k in range(1, MAX_K + 1)}


def test_accumulator_empty() -> None:
    acc = ReliabilityAccumulator()
    assert acc.summary() == {}
    assert acc.means() == {"pass_at_k": {}, "pass_hat_k": {}}


def test_add_record_uses_the_aggregate() -> None:
    acc = ReliabilityAccumulator()
    for trial, passed in enumerate((True, False)):
        acc.add_record(TrajectoryResult(case_id="x", trial=trial, agent=None, checks={},
                                        aggregate=Aggregate(mode="binary", score=None,
                                                            passed=passed)))
    assert (acc.summary()["x"]["n"], acc.summary()["x"]["c"]) == (2, 1)
