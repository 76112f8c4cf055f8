"""The abstention band's math: fitting around the cut, cross-validation, the target's choice."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.calibration import agreement as ag
from toolgrade.calibration.band import (
    COVERAGE_LEVELS,
    band_curve,
    choose,
    fit_band,
    in_band,
)

items = st.lists(
    st.tuples(st.booleans(), st.floats(0.0, 1.0, allow_nan=False), st.booleans()),
    min_size=4, max_size=40,
)


def _cut_scorer(human: list[bool], scores: list[float]):  # type: ignore[no-untyped-def]
    p = np.asarray(scores, dtype=np.float64)

    def scorer(train):  # type: ignore[no-untyped-def]
        cut, _ = ag.best_threshold([human[i] for i in train], [scores[i] for i in train])
        return p, cut

    return scorer


@given(items, st.floats(0.0, 1.0), st.integers(0, 40))
def test_a_band_leaves_out_at_most_what_it_may(rows, cut, max_abstain):
    human = [h for h, _, _ in rows]
    scores = [s for _, s, _ in rows]
    fixed = [f for _, _, f in rows]
    band = fit_band(human, scores, cut, max_abstain, fixed)
    if band is None:
        return
    low, high = band
    assert low <= high
    left_out = sum(1 for s, f in zip(scores, fixed, strict=True) if not f and low <= s <= high)
    assert 0 < left_out <= max_abstain


@given(st.lists(st.booleans(), min_size=6, max_size=40), st.integers(1, 40))
def test_with_distinct_scores_a_band_leaves_out_exactly_what_it_may(human, max_abstain):
    n = len(human)
    scores = [(i + 0.5) / n for i in range(n)]  # distinct, evenly spread
    band = fit_band(human, scores, 0.5, max_abstain)
    if band is None:
        return
    left_out = sum(1 for s in scores if in_band(band, s))
    assert left_out <= max_abstain
    if sum(human) and n - sum(human) and max_abstain <= n // 3:
        # Both labels stay among the decided items whichever window it takes: kappa is defined
        # for every window, so the full allowance is always taken.
        assert left_out == max_abstain or n - left_out < 2


def test_the_band_spends_its_allowance_where_the_errors_are() -> None:
    human = [False, False, False, True, False, True, True, True, True, True]
    scores = [0.05, 0.1, 0.15, 0.2, 0.25, 0.6, 0.7, 0.8, 0.9, 0.95]
    band = fit_band(human, scores, 0.5, 2)
    assert band is not None
    assert [s for s in scores if in_band(band, s)] == [0.2, 0.25]


@given(st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_in_band_is_the_closed_interval(low, high, p):
    low, high = min(low, high), max(low, high)
    assert in_band((low, high), p) == (low <= p <= high)
    assert not in_band(None, p)


def test_a_separable_set_needs_no_band_and_is_decided_whole():
    human = [True] * 20 + [False] * 20
    scores = [0.9 - 0.001 * i for i in range(20)] + [0.1 + 0.001 * i for i in range(20)]
    folds = ag.stratified_folds(human, 5)
    points = band_curve(human, [False] * 40, folds, _cut_scorer(human, scores))
    best = choose(points, 0.8)
    assert best is not None and best.level == 1.0 and best.band is None
    assert best.cv_coverage == 1.0


def test_an_overlap_in_the_middle_is_abstained_on_and_the_rest_decided():
    rng = np.random.default_rng(3)
    human, scores = [], []
    for _ in range(60):  # clear items far from the cut
        h = bool(rng.integers(0, 2))
        human.append(h)
        scores.append(float(rng.uniform(0.8, 1.0) if h else rng.uniform(0.0, 0.2)))
    for _ in range(40):  # a coin flip in the middle
        human.append(bool(rng.integers(0, 2)))
        scores.append(float(rng.uniform(0.4, 0.6)))
    folds = ag.stratified_folds(human, 5)
    points = band_curve(human, [False] * 100, folds, _cut_scorer(human, scores))
    plain = points[0]
    assert plain.level == 1.0 and plain.cv_decided_kappa is not None
    assert plain.cv_decided_kappa < 0.8
    best = choose(points, 0.8)
    assert best is not None and best.band is not None
    assert best.cv_decided_kappa_ci is not None and best.cv_decided_kappa_ci[0] >= 0.8
    assert 0.45 <= best.cv_coverage <= 0.75
    low, high = best.band  # the coin-flip middle is left out
    assert low <= 0.4 and high >= 0.6


def test_labels_the_scores_do_not_follow_reach_no_level():
    rng = np.random.default_rng(5)
    human = [bool(rng.integers(0, 2)) for _ in range(60)]
    scores = [float(rng.uniform()) for _ in range(60)]
    folds = ag.stratified_folds(human, 5)
    assert choose(band_curve(human, [False] * 60, folds, _cut_scorer(human, scores)), 0.8) is None


@settings(max_examples=30, deadline=None)
@given(items, st.floats(0.0, 1.0))
def test_the_chosen_level_reaches_the_target_by_its_lower_bound(rows, target):
    human = [h for h, _, _ in rows]
    scores = [s for _, s, _ in rows]
    fixed = [f for _, _, f in rows]
    if sum(human) < 2 or len(human) - sum(human) < 2:
        return
    folds = ag.stratified_folds(human, 2)
    points = band_curve(human, fixed, folds, _cut_scorer(human, scores))
    assert [p.level for p in points] == list(COVERAGE_LEVELS)
    for point in points:
        assert 0.0 <= point.cv_coverage <= 1.0
        # Settled items are always decided.
        assert point.cv_decided >= sum(fixed)
    best = choose(points, target)
    if best is not None:
        assert best.cv_decided_kappa_ci is not None
        assert best.cv_decided_kappa_ci[0] >= target
        assert all(p.cv_coverage <= best.cv_coverage for p in points
                   if p.cv_decided_kappa_ci and p.cv_decided_kappa_ci[0] >= target)



def test_a_handful_of_agreeing_items_is_no_band_to_ship():
    # Ten clear items among ninety coin flips: a band can decide just the ten, all agreeing.
    # A bootstrap over them reads [1, 1]; the exact bound on their agreement keeps the lower
    # bound far under 0.8, so no level is chosen and the judge decides nothing.
    rng = np.random.default_rng(5)
    human = [True] * 5 + [False] * 5 + [bool(rng.integers(0, 2)) for _ in range(90)]
    scores = ([0.99 - 0.001 * i for i in range(5)] + [0.01 + 0.001 * i for i in range(5)]
              + [float(rng.uniform(0.3, 0.7)) for _ in range(90)])
    folds = ag.stratified_folds(human, 5)
    points = band_curve(human, [False] * 100, folds, _cut_scorer(human, scores))
    assert choose(points, 0.8) is None
