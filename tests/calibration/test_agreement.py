"""Agreement statistics against published vectors, hand computation and properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.calibration import agreement as ag

# --- published vectors ---------------------------------------------------------------------------


def test_cohen_kappa_wikipedia_example() -> None:
    # Wikipedia "Cohen's kappa", worked example: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no.
    # p_o = 0.7, p_e = 0.5, kappa = 0.4.
    table = np.array([[20, 5], [10, 15]])
    assert ag.raw_agreement(table) == pytest.approx(0.7)
    assert ag.cohen_kappa(table) == pytest.approx(0.4)


def test_fleiss_kappa_wikipedia_example() -> None:
    # Wikipedia "Fleiss' kappa", worked example: 10 subjects, 14 raters, 5 categories.
    # P_bar = 0.378, P_e = 0.213, kappa = 0.210.
    counts = np.array(
        [
            [0, 0, 0, 0, 14],
            [0, 2, 6, 4, 2],
            [0, 0, 3, 5, 6],
            [0, 3, 9, 2, 0],
            [2, 2, 8, 1, 1],
            [7, 7, 0, 0, 0],
            [3, 2, 6, 3, 0],
            [2, 5, 3, 2, 2],
            [6, 5, 2, 1, 0],
            [0, 2, 2, 3, 7],
        ]
    )
    assert ag.fleiss_kappa(counts) == pytest.approx(0.210, abs=5e-4)


def test_gwet_ac1_gwet_2014_abstractors_table() -> None:
    # Gwet (2014), Handbook of Inter-Rater Reliability: 100 pregnancies classified by two
    # abstractors into ectopic / abnormal intrauterine / normal intrauterine; AC1 = 0.849
    # (the value the irrCAC package's own tests pin for this table).
    table = np.array([[13, 0, 0], [0, 20, 7], [0, 4, 56]])
    assert ag.gwet_ac1(table) == pytest.approx(0.849, abs=5e-4)


def test_kappa_paradox_table_hand_computed() -> None:
    # The high-agreement 2x2 table used to show kappa's paradox (Gwet 2008; van Oest 2019,
    # table 4): 118 / 5 / 2 / 0 of 125. By hand: p_o = 0.944, p_e(kappa) = 14770/15625,
    # kappa = -0.02339; pi_pass = 243/250, p_e(AC1) = 2 * 0.972 * 0.028, AC1 = 0.94077.
    table = np.array([[118, 5], [2, 0]])
    p_e = (123 * 120 + 2 * 5) / 125**2
    assert ag.cohen_kappa(table) == pytest.approx((0.944 - p_e) / (1 - p_e))
    assert ag.cohen_kappa(table) == pytest.approx(-0.02339, abs=1e-5)
    assert ag.gwet_ac1(table) == pytest.approx((0.944 - 0.054432) / (1 - 0.054432))
    assert ag.gwet_ac1(table) == pytest.approx(0.94077, abs=1e-5)


# --- hand-computed small cases -------------------------------------------------------------------


def test_confusion_table_rows_are_human_columns_judge() -> None:
    human = [True, True, True, False, False]
    judge = [True, False, True, True, False]
    table = ag.confusion_table(human, judge)
    assert table.tolist() == [[2, 1], [1, 1]]
    assert ag.confusion_dict(table) == {
        "human_pass": {"judge_pass": 2, "judge_fail": 1},
        "human_fail": {"judge_pass": 1, "judge_fail": 1},
    }


def test_undefined_figures_are_none() -> None:
    one_category = np.array([[5, 0], [0, 0]])
    assert ag.cohen_kappa(one_category) is None
    assert ag.cohen_kappa(np.zeros((2, 2))) is None
    assert ag.raw_agreement(np.zeros((2, 2), dtype=np.int64)) is None
    assert ag.gwet_ac1(one_category) == pytest.approx(1.0)  # AC1 stays defined here
    assert ag.rate(3, 0) is None
    assert ag.fleiss_kappa(np.array([[1, 0], [0, 1]])) is None  # nobody rated twice


def test_fleiss_with_two_raters_matches_hand_value() -> None:
    # 4 items, 2 raters: agree pass, agree fail, disagree, agree pass.
    counts = np.array([[2, 0], [0, 2], [1, 1], [2, 0]])
    p_bar = (1 + 1 + 0 + 1) / 4
    p_pass = 5 / 8
    p_e = p_pass**2 + (1 - p_pass) ** 2
    assert ag.fleiss_kappa(counts) == pytest.approx((p_bar - p_e) / (1 - p_e))


def test_flip_rate_counts_only_items_with_two_scored_verdicts() -> None:
    rate, flipped, eligible = ag.flip_rate([[True, True], [True, False], [False], [False, False]])
    assert (flipped, eligible) == (1, 3)
    assert rate == pytest.approx(1 / 3)
    assert ag.flip_rate([[True], []]) == (None, 0, 0)


# --- bootstrap -----------------------------------------------------------------------------------


def _item_rows(human: list[bool], judge: list[bool]) -> np.ndarray:
    rows = []
    for h, j in zip(human, judge, strict=True):
        rows.append([int(h and j), int(h and not j), int(not h and j), int(not h and not j)])
    return np.array(rows)


def test_bootstrap_ci_is_seeded_and_brackets_kappa() -> None:
    rng = np.random.default_rng(7)
    human = list(rng.random(80) < 0.5)
    judge = [h if rng.random() < 0.85 else not h for h in human]
    rows = _item_rows(human, judge)
    ci1, degenerate = ag.bootstrap_kappa_ci(rows)
    ci2, _ = ag.bootstrap_kappa_ci(rows)
    kappa = ag.cohen_kappa(ag.confusion_table(human, judge))
    assert ci1 == ci2
    assert ci1 is not None and kappa is not None
    assert ci1[0] < kappa < ci1[1]
    assert ci1[0] >= -1.0 and ci1[1] <= 1.0
    assert degenerate == 0
    assert ag.bootstrap_kappa_ci(rows, seed=1)[0] != ci1  # the seed is really used


def test_bootstrap_degenerate_resamples_are_dropped_or_reported() -> None:
    # Every item in one shared category: kappa undefined in every resample.
    rows = _item_rows([True] * 10, [True] * 10)
    ci, degenerate = ag.bootstrap_kappa_ci(rows, resamples=200)
    assert ci is None and degenerate == 200
    # One item of the other category among 30: some resamples miss it and are dropped.
    rows = _item_rows([True] * 29 + [False], [True] * 29 + [False])
    ci, degenerate = ag.bootstrap_kappa_ci(rows, resamples=500)
    assert 0 < degenerate < 500
    assert ci == (1.0, 1.0)
    assert ag.bootstrap_kappa_ci(np.zeros((0, 4)))[0] is None


# --- threshold fitting ---------------------------------------------------------------------------


def test_best_threshold_separates_clean_scores() -> None:
    human = [True, True, True, False, False, False]
    p = [0.9, 0.7, 0.62, 0.6, 0.3, 0.1]
    cut, kappa = ag.best_threshold(human, p)
    assert 0.6 < cut <= 0.62
    assert kappa == pytest.approx(1.0)


def test_best_threshold_beats_the_default_half_when_scores_are_shifted() -> None:
    # A judge that is confident too low: every true pass scores 0.3-0.45.
    human = [True] * 5 + [False] * 5
    p = [0.45, 0.4, 0.35, 0.33, 0.3, 0.2, 0.15, 0.1, 0.05, 0.02]
    cut, kappa = ag.best_threshold(human, p)
    at_half = ag.cohen_kappa(ag.confusion_table(human, [x >= 0.5 for x in p]))
    assert 0.2 < cut <= 0.3
    assert kappa == pytest.approx(1.0)
    assert at_half == pytest.approx(0.0)


def test_stratified_halves_keep_label_mix_and_cover_all() -> None:
    labels = [True] * 31 + [False] * 20
    fit, hold = ag.stratified_halves(labels, seed=3)
    assert sorted(fit + hold) == list(range(51))
    assert not set(fit) & set(hold)
    assert sum(labels[i] for i in fit) == 16 and sum(labels[i] for i in hold) == 15
    assert ag.stratified_halves(labels, seed=3) == (fit, hold)


# --- properties ----------------------------------------------------------------------------------

pairs = st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=60)


@settings(max_examples=100, deadline=None)
@given(pairs)
def test_kappa_and_ac1_stay_within_bounds(data: list[tuple[bool, bool]]) -> None:
    table = ag.confusion_table([h for h, _ in data], [j for _, j in data])
    kappa, ac1 = ag.cohen_kappa(table), ag.gwet_ac1(table)
    if kappa is not None:
        assert -1.0 - 1e-12 <= kappa <= 1.0 + 1e-12
    assert ac1 is not None and -1.0 - 1e-12 <= ac1 <= 1.0 + 1e-12


@settings(max_examples=100, deadline=None)
@given(st.lists(st.booleans(), min_size=2, max_size=60).filter(lambda v: len(set(v)) == 2))
def test_perfect_agreement_gives_one(labels: list[bool]) -> None:
    table = ag.confusion_table(labels, labels)
    assert ag.cohen_kappa(table) == pytest.approx(1.0)
    assert ag.gwet_ac1(table) == pytest.approx(1.0)
    assert ag.raw_agreement(table) == 1.0


@settings(max_examples=100, deadline=None)
@given(pairs)
def test_kappa_is_symmetric_in_the_raters(data: list[tuple[bool, bool]]) -> None:
    table = ag.confusion_table([h for h, _ in data], [j for _, j in data])
    k1, k2 = ag.cohen_kappa(table), ag.cohen_kappa(table.T)
    assert (k1 is None and k2 is None) or math.isclose(k1 or 0.0, k2 or 0.0, abs_tol=1e-12)


def test_the_exact_kappa_bound_knows_how_many_items_agree() -> None:
    few = np.array([[5, 0], [0, 4]])
    many = few * 20
    low_few, low_many = ag.exact_kappa_low(few), ag.exact_kappa_low(many)
    assert low_few is not None and low_many is not None
    assert low_few < 0.5 < 0.9 < low_many < 1.0
    assert ag.exact_kappa_low(np.array([[9, 0], [0, 0]])) is None  # kappa undefined


@given(st.integers(1, 30), st.integers(0, 30), st.integers(0, 30), st.integers(1, 30))
def test_the_exact_kappa_bound_never_exceeds_kappa(a, b, c, d) -> None:
    table = np.array([[a, b], [c, d]])
    kappa, low = ag.cohen_kappa(table), ag.exact_kappa_low(table)
    assert kappa is not None and low is not None and -1.0 <= low <= kappa + 1e-12


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 5)), min_size=1, max_size=30))
def test_ranking_auc_is_the_share_of_pass_fail_pairs_ranked_right(pairs) -> None:
    labels = [h for h, _ in pairs]
    scores = [float(s) for _, s in pairs]
    positives = [s for h, s in pairs if h]
    negatives = [s for h, s in pairs if not h]
    if not positives or not negatives:
        assert ag.ranking_auc(labels, scores) is None
        return
    wins = sum((p > n) + 0.5 * (p == n) for p in positives for n in negatives)
    expected = wins / (len(positives) * len(negatives))
    assert ag.ranking_auc(labels, scores) == pytest.approx(expected)
    # Any increasing transform of the scores ranks the same.
    assert ag.ranking_auc(labels, [s * 3 + 1 for s in scores]) == pytest.approx(expected)
