"""The paired statistics of compare: bootstrap interval, exact McNemar, pass^k."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import binomtest

from toolgrade.comparison.statistics import (
    case_passes,
    mcnemar_exact,
    paired_bootstrap,
    pass_hat_k,
)

differences = st.lists(st.sampled_from([-1.0, -0.5, 0.0, 0.5, 1.0]), min_size=1, max_size=40)


@given(differences)
def test_the_interval_holds_the_observed_mean_and_stays_in_range(values: list[float]) -> None:
    interval = paired_bootstrap(values, resamples=400)
    assert interval is not None
    mean = float(np.mean(values))
    assert -1.0 <= interval.low <= mean + 1e-12
    assert mean - 1e-12 <= interval.high <= 1.0


@given(differences, st.integers(0, 2**31))
def test_the_interval_depends_only_on_the_seed(values: list[float], seed: int) -> None:
    assert paired_bootstrap(values, resamples=200, seed=seed) == paired_bootstrap(
        values, resamples=200, seed=seed)


@given(st.lists(st.just(0.25), min_size=1, max_size=30))
def test_identical_differences_give_a_point_interval(values: list[float]) -> None:
    interval = paired_bootstrap(values, resamples=100)
    assert interval is not None
    assert interval.low == pytest.approx(0.25) and interval.high == pytest.approx(0.25)
    assert interval.excludes_zero()


def test_no_case_gives_no_interval() -> None:
    assert paired_bootstrap([]) is None


def test_blocks_give_the_same_means_as_one_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    values = [1.0, 0.0, -1.0, 0.5, 0.0, 0.0, 1.0]
    whole = paired_bootstrap(values, resamples=300, seed=3)
    monkeypatch.setattr("toolgrade.comparison.statistics._BLOCK_CELLS", 7 * 13)
    assert paired_bootstrap(values, resamples=300, seed=3) == whole


def test_a_mean_within_noise_has_an_interval_across_zero() -> None:
    interval = paired_bootstrap([1.0, -1.0] * 10, resamples=2000)
    assert interval is not None and not interval.excludes_zero()


@given(st.integers(0, 60), st.integers(0, 60))
def test_mcnemar_is_the_exact_binomial_test_and_symmetric(to_fail: int, to_pass: int) -> None:
    p = mcnemar_exact(to_fail, to_pass)
    assert p == mcnemar_exact(to_pass, to_fail)
    assert 0.0 < p <= 1.0
    if to_fail + to_pass:
        assert p == pytest.approx(binomtest(to_fail, to_fail + to_pass, 0.5).pvalue)
    else:
        assert p == 1.0


def test_mcnemar_by_hand() -> None:
    # 5 flips one way, none back: 2 * 0.5**5.
    assert mcnemar_exact(5, 0) == pytest.approx(2 * 0.5**5)
    assert mcnemar_exact(3, 3) == 1.0


@given(st.integers(1, 12).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n),
                                                       st.integers(1, n))))
def test_pass_hat_k_is_the_chance_k_draws_all_pass(case: tuple[int, int, int]) -> None:
    trials, passed, k = case
    value = pass_hat_k(passed, trials, k)
    assert value == pytest.approx(comb(passed, k) / comb(trials, k))
    assert 0.0 <= value <= passed / trials + 1e-12  # never above pass@1


def test_pass_hat_k_refuses_k_beyond_the_trials() -> None:
    with pytest.raises(ValueError, match="k must be"):
        pass_hat_k(1, 2, 3)


def test_a_case_passes_when_more_than_half_its_trials_pass() -> None:
    assert case_passes(2 / 3) and not case_passes(0.5) and not case_passes(0.0)
