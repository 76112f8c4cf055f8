"""Agreement statistics between a judge and human labels: short formulas, numpy only.

Conventions used throughout: labels are booleans (True = pass). A 2x2 table is
``[[a, b], [c, d]]`` with rows = the human label (pass, fail) and columns = the judge
(pass, fail). Undefined figures (a zero denominator) are ``None``, never a made-up number.

Formulas (pinned in tests by published vectors):

- Cohen's kappa: (p_o - p_e) / (1 - p_e), p_e from the two raters' own marginals.
- Gwet's AC1 (Gwet 2008): p_e = 1/(q-1) * sum_k pi_k (1 - pi_k), pi_k the mean of the two
  raters' marginal shares of category k.
- Fleiss' kappa (Fleiss 1971), generalised to a varying number of raters per item: per-item
  agreement P_i = sum_j n_ij (n_ij - 1) / (n_i (n_i - 1)), P_bar their mean, p_j the share of all
  ratings in category j, P_e = sum_j p_j^2. With a constant n_i this is Fleiss' formula exactly.
- Ranking AUC (Mann-Whitney): the chance a random human-pass item scores above a random
  human-fail one, ties counting half.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

#: Bootstrap defaults: resamples and the seed of the numpy Generator (results are reproducible).
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0

FloatArray = NDArray[np.float64]


def confusion_table(human: Sequence[bool], judge: Sequence[bool]) -> NDArray[np.int64]:
    """The 2x2 table [[pass/pass, pass/fail], [fail/pass, fail/fail]] (rows human, cols judge)."""
    if len(human) != len(judge):
        raise ValueError("human and judge labels differ in length")
    h = np.asarray(human, dtype=bool)
    j = np.asarray(judge, dtype=bool)
    return np.array(
        [[np.sum(h & j), np.sum(h & ~j)], [np.sum(~h & j), np.sum(~h & ~j)]], dtype=np.int64
    )


def paired_rows(human: Sequence[bool], judge: Sequence[bool]) -> NDArray[np.int64]:
    """Each item's (a, b, c, d) contribution to the 2x2 table, one verdict per item: the rows
    `bootstrap_kappa_ci` resamples."""
    return np.array(
        [[h and j, h and not j, not h and j, not h and not j]
         for h, j in zip(human, judge, strict=True)],
        dtype=np.int64,
    ).reshape(-1, 4)


def confusion_dict(table: NDArray[np.int64]) -> dict[str, dict[str, int]]:
    """The table as the JSON the calibration record carries (keys name rows and columns)."""
    return {
        "human_pass": {"judge_pass": int(table[0, 0]), "judge_fail": int(table[0, 1])},
        "human_fail": {"judge_pass": int(table[1, 0]), "judge_fail": int(table[1, 1])},
    }


def raw_agreement(table: NDArray[np.int64]) -> float | None:
    """Share of observations on the diagonal of a square table."""
    n = int(table.sum())
    return float(np.trace(table)) / n if n else None


def cohen_kappa(table: NDArray[np.int64] | FloatArray) -> float | None:
    """Cohen's kappa of a square contingency table; None when p_e = 1 (one shared category)."""
    t = np.asarray(table, dtype=np.float64)
    n = t.sum()
    if n == 0:
        return None
    p_o = np.trace(t) / n
    p_e = float(np.dot(t.sum(axis=1), t.sum(axis=0))) / (n * n)
    if np.isclose(p_e, 1.0):
        return None
    return float((p_o - p_e) / (1.0 - p_e))


def exact_kappa_low(table: NDArray[np.int64] | FloatArray, level: float = 0.95) -> float | None:
    """Cohen's kappa at the exact (Clopper-Pearson) lower bound of the agreement rate, p_e held
    at the table's own: a bound that knows how many items there are. Nine items that all agree
    give agreement >= 0.66 at 95%, which a bootstrap over those same nine items cannot show
    (every resample agrees: [1, 1]). None where kappa is undefined."""
    t = np.asarray(table, dtype=np.float64)
    n = t.sum()
    if n == 0 or cohen_kappa(t) is None:
        return None
    from scipy.stats import beta  # lazily: scipy.stats costs start-up time on every run

    agreeing = float(np.trace(t))
    tail = (1.0 - level) / 2.0
    p_o_low = float(beta.ppf(tail, agreeing, n - agreeing + 1)) if agreeing > 0 else 0.0
    p_e = float(np.dot(t.sum(axis=1), t.sum(axis=0))) / (n * n)
    # With p_e held fixed the formula can fall under -1, which no kappa of a 2x2 table does.
    return float(max(-1.0, (p_o_low - p_e) / (1.0 - p_e)))


def gwet_ac1(table: NDArray[np.int64] | FloatArray) -> float | None:
    """Gwet's AC1 of a square q x q contingency table (q >= 2); None on an empty table."""
    t = np.asarray(table, dtype=np.float64)
    n = t.sum()
    q = t.shape[0]
    if n == 0 or q < 2:
        return None
    p_a = np.trace(t) / n
    pi = (t.sum(axis=1) + t.sum(axis=0)) / (2.0 * n)
    p_e = float(np.sum(pi * (1.0 - pi))) / (q - 1)
    # p_e <= (q-1)/q < 1 for q >= 2, so the denominator never vanishes.
    return float((p_a - p_e) / (1.0 - p_e))


def fleiss_kappa(counts: NDArray[np.int64] | FloatArray) -> float | None:
    """Fleiss' kappa from an items x categories matrix of rating counts.

    Items with fewer than two ratings carry no agreement information and are dropped.
    None when no item has two ratings or when every rating falls in one category.
    """
    c = np.asarray(counts, dtype=np.float64)
    n_i = c.sum(axis=1)
    c = c[n_i >= 2]
    n_i = n_i[n_i >= 2]
    if c.shape[0] == 0:
        return None
    p_i = (np.sum(c * (c - 1.0), axis=1)) / (n_i * (n_i - 1.0))
    p_bar = float(np.mean(p_i))
    p_j = c.sum(axis=0) / c.sum()
    p_e = float(np.sum(p_j**2))
    if np.isclose(p_e, 1.0):
        return None
    return (p_bar - p_e) / (1.0 - p_e)


def ranking_auc(human: Sequence[bool], scores: Sequence[float]) -> float | None:
    """The Mann-Whitney AUC of `scores` against the human labels (ties half); None without
    both labels."""
    from scipy.stats import rankdata

    h = np.asarray(human, dtype=bool)
    n_pass, n_fail = int(h.sum()), int((~h).sum())
    if n_pass == 0 or n_fail == 0:
        return None
    ranks = rankdata(np.asarray(scores, dtype=np.float64))  # ties get their mean rank
    u = float(ranks[h].sum()) - n_pass * (n_pass + 1) / 2.0
    return u / (n_pass * n_fail)


def rate(numerator: int, denominator: int) -> float | None:
    """numerator / denominator, None when the denominator is zero."""
    return numerator / denominator if denominator else None


def _kappa_vectorised(a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray) -> FloatArray:
    """Cohen's kappa of many 2x2 tables at once; NaN where undefined."""
    n = a + b + c + d
    with np.errstate(divide="ignore", invalid="ignore"):
        p_o = (a + d) / n
        p_e = ((a + b) * (a + c) + (c + d) * (b + d)) / (n * n)
        kappa = (p_o - p_e) / (1.0 - p_e)
    kappa[np.isclose(p_e, 1.0) | (n == 0)] = np.nan
    return np.asarray(kappa, dtype=np.float64)


def kappa_of_tables(a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray) -> FloatArray:
    """Cohen's kappa of many 2x2 tables [[a, b], [c, d]] at once; NaN where undefined."""
    return _kappa_vectorised(a, b, c, d)


def bootstrap_kappa_ci(
    item_tables: NDArray[np.int64],
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    level: float = 0.95,
) -> tuple[tuple[float, float] | None, int]:
    """Paired percentile bootstrap interval for Cohen's kappa.

    `item_tables` is items x 4: each item's (a, b, c, d) contribution (one observation per
    repeat), so resampling items keeps an item's human label, its verdicts and its repeats
    together (paired, clustered). Returns the interval and the number of degenerate resamples
    (kappa undefined: every resampled observation in one shared category), which are left out
    of the percentiles. None when fewer than half the resamples are usable.
    """
    items = np.asarray(item_tables, dtype=np.float64)
    if items.shape[0] == 0:
        return None, resamples
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, items.shape[0], size=(resamples, items.shape[0]))
    sums = items[idx].sum(axis=1)  # resamples x 4
    kappas = _kappa_vectorised(sums[:, 0], sums[:, 1], sums[:, 2], sums[:, 3])
    usable = kappas[~np.isnan(kappas)]
    degenerate = int(resamples - usable.size)
    if usable.size * 2 < resamples:
        return None, degenerate
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(usable, [tail, 100.0 - tail])
    return (float(low), float(high)), degenerate


def flip_rate(verdicts_per_item: Sequence[Sequence[bool]]) -> tuple[float | None, int, int]:
    """Share of items whose scored verdicts differ between repeats.

    Only items with at least two scored verdicts can flip, so only they are counted.
    Returns (rate, flipped items, items with two or more scored verdicts).
    """
    eligible = [v for v in verdicts_per_item if len(v) >= 2]
    flipped = sum(1 for v in eligible if len(set(v)) > 1)
    return rate(flipped, len(eligible)), flipped, len(eligible)


def _split_kappa(human: NDArray[np.bool_], p_pass: FloatArray, threshold: float) -> float | None:
    return cohen_kappa(confusion_table(list(human), list(p_pass >= threshold)))


def best_threshold(human: Sequence[bool], p_pass: Sequence[float]) -> tuple[float, float | None]:
    """The P(pass) cut (verdict pass when p >= cut) that maximises kappa on these items.

    Candidates are midpoints between consecutive distinct P(pass) values plus both ends; ties
    go to the cut nearest 0.5 so the choice does not drift on flat stretches.
    """
    h = np.asarray(human, dtype=bool)
    p = np.asarray(p_pass, dtype=np.float64)
    values = np.unique(p)
    mids = (values[:-1] + values[1:]) / 2.0 if values.size > 1 else np.array([], dtype=np.float64)
    candidates = np.concatenate([[0.0], mids, [float(values.max(initial=0.0)) + 1e-9]])
    best: tuple[float, float | None] = (0.5, None)
    best_key = (-np.inf, -np.inf)
    for cut in candidates:
        kappa = _split_kappa(h, p, float(cut))
        key = (kappa if kappa is not None else -np.inf, -abs(float(cut) - 0.5))
        if key > best_key:
            best_key, best = key, (float(cut), kappa)
    return best


def stratified_halves(
    labels: Sequence[bool], seed: int = BOOTSTRAP_SEED
) -> tuple[list[int], list[int]]:
    """Split item indices into two halves with the same label mix (seeded, reproducible)."""
    rng = np.random.default_rng(seed)
    fit: list[int] = []
    hold: list[int] = []
    for value in (True, False):
        members = np.array([i for i, lab in enumerate(labels) if lab == value], dtype=np.int64)
        rng.shuffle(members)
        half = (members.size + 1) // 2
        fit.extend(int(i) for i in members[:half])
        hold.extend(int(i) for i in members[half:])
    return sorted(fit), sorted(hold)


def stratified_folds(
    labels: Sequence[bool], k: int, seed: int = BOOTSTRAP_SEED
) -> list[list[int]]:
    """Split item indices into `k` folds with the same label mix (seeded, reproducible)."""
    if k < 2:
        raise ValueError("cross-validation needs at least 2 folds")
    rng = np.random.default_rng(seed)
    folds: list[list[int]] = [[] for _ in range(k)]
    position = 0
    for value in (True, False):
        members = np.array([i for i, lab in enumerate(labels) if lab == value], dtype=np.int64)
        rng.shuffle(members)
        for index in members:
            folds[position % k].append(int(index))
            position += 1
    return [sorted(fold) for fold in folds]


def out_of_fold_verdicts(
    human: Sequence[bool], p_pass: Sequence[float], k: int, seed: int = BOOTSTRAP_SEED
) -> tuple[list[bool], list[float]]:
    """Each item's verdict at the cut fitted (`best_threshold`) on the other folds, and the
    cut used for each fold: a verdict never depends on the item's own label."""
    h = list(human)
    p = list(p_pass)
    verdicts = [False] * len(h)
    cuts: list[float] = []
    for fold in stratified_folds(h, k, seed):
        held = set(fold)
        train = [i for i in range(len(h)) if i not in held]
        cut, _ = best_threshold([h[i] for i in train], [p[i] for i in train])
        cuts.append(cut)
        for i in fold:
            verdicts[i] = p[i] >= cut
    return verdicts, cuts
