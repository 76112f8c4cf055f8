"""The abstention band: where on the final P(pass) the judge decides nothing.

A judge's verdict is the cut's (pass when P(pass) >= cut); the band `[low, high]` holds the cut,
and a P(pass) inside it is `unscored`, reason `uncertain` (docs/calibration.md). Fitting it
(`toolgrade calibrate --fit`) is cross-validated, so the figures say what the band reaches on
items it never saw:

- A coverage level q in `COVERAGE_LEVELS` is a rule: "abstain on at most (1 - q) of the
  items". On a set of items scored by a combination and cut fitted on them, the band at level q
  is an interval holding the cut, bounded by midpoints between neighbouring scores, that leaves
  out that many items (fewer only where tied scores force it), placed where kappa on the items
  it decides is highest: left to choose, a fold whose training items happen to separate would
  fit no band at all and decide its held-out hard items.
- Each fold's items are judged by a scorer, cut and band all fitted on the other folds. At each
  level the out-of-fold verdicts give the cross-validated coverage (share of items decided) and
  the decided items' kappa with its paired bootstrap 95% interval.
- The level chosen for a target kappa is the one of widest cross-validated coverage whose
  decided kappa's *lower* 95% bound reaches the target: the point estimate over 20 levels on
  a hundred items picks the luckiest level, and the bound is what a team can gate on. The
  lower bound is the smaller of the paired bootstrap's and the kappa at the exact
  (Clopper-Pearson) lower bound of the decided items' agreement rate: a bootstrap over nine
  decided items that all agree reads [1, 1], while the exact bound says 0.66 agreement, so a
  band that decides a handful of items cannot pass for a reliable one. The
  shipped band is the one fitted at that level on every item. No level reaching it: the band
  is [0, 1], the judge decides nothing, and says so (coverage 0).

Items the engine settles without the model (`fixed`) are always decided fails, never in a band.
Items the judge never decides (`silent`: the signals judge where no signal fired) are never
decided: they count in every coverage's denominator and in no decided kappa.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from toolgrade.calibration import agreement as ag

#: Coverage levels tried, widest first (1.0: no band, the judge decides every item).
COVERAGE_LEVELS: tuple[float, ...] = tuple(round(1.0 - 0.05 * i, 2) for i in range(20))
#: The decided-items kappa a band is fitted to when none is asked for.
DEFAULT_TARGET_KAPPA = 0.8
#: Which figure a band's target is read against (stated in the record).
TARGET_BOUND = "cv_decided_kappa_ci_low"
#: The band that decides nothing.
EVERYTHING: tuple[float, float] = (0.0, 1.0)

BoolArray = NDArray[np.bool_]
FloatArray = NDArray[np.float64]
#: fold scorer(train indices) -> (every item's score, the cut), both fitted on `train` only.
FoldScorer = Callable[[Sequence[int]], tuple[FloatArray, float]]


def in_band(band: tuple[float, float] | None, p_pass: float) -> bool:
    """True when `p_pass` falls inside `band` (closed); no band holds nothing."""
    return band is not None and band[0] <= p_pass <= band[1]


@dataclass(frozen=True)
class BandPoint:
    """One coverage level's cross-validated figures and the band fitted on every item."""

    level: float
    band: tuple[float, float] | None
    cv_coverage: float
    cv_decided_kappa: float | None
    cv_decided_kappa_ci: tuple[float, float] | None
    cv_decided: int


def _boundary(scores: FloatArray, k: int) -> float:
    """The score between sorted positions k - 1 and k (0 below all, 1 above all)."""
    if k <= 0:
        return 0.0
    if k >= scores.size:
        return 1.0
    return float((scores[k - 1] + scores[k]) / 2.0)


def _window_kappas(
    human: BoolArray, scores: FloatArray, cut: float, fixed_pass: int, fixed_fail: int
) -> tuple[NDArray[np.int64], NDArray[np.int64], FloatArray]:
    """Every window (a, b) of sorted positions around the cut, and the decided kappa of each:
    items below a fail, from b on pass, fixed items fail."""
    n = scores.size
    valid = [k for k in range(n + 1) if k in (0, n) or scores[k - 1] < scores[k]]
    kc = int(np.sum(scores < cut))
    lows = np.array([k for k in valid if k <= kc], dtype=np.int64)
    highs = np.array([k for k in valid if k >= kc], dtype=np.int64)
    grid_a, grid_b = np.meshgrid(lows, highs, indexing="ij")
    a, b = grid_a.ravel(), grid_b.ravel()
    passes = np.concatenate([[0], np.cumsum(human.astype(np.int64))])
    tp = (passes[n] - passes[b]).astype(np.float64)
    fp = (n - b) - tp
    fn = passes[a] + fixed_pass
    tn = a - passes[a] + fixed_fail
    kappas = ag.kappa_of_tables(tp, fn.astype(np.float64), fp.astype(np.float64),
                                tn.astype(np.float64))
    return a, b, kappas


def fit_band(
    human: Sequence[bool],
    scores: Sequence[float],
    cut: float,
    max_abstain: int,
    fixed: Sequence[bool] | None = None,
) -> tuple[float, float] | None:
    """The band around `cut` leaving out as many items as it may (`max_abstain`, fewer only
    where tied P(pass) values force it), placed where kappa on the items it decides is highest
    (ties: the one nearest centred on the cut); None when it leaves out none."""
    fixed_mask = np.zeros(len(human), dtype=bool) if fixed is None else np.asarray(fixed, bool)
    h = np.asarray(human, dtype=bool)
    s = np.asarray(scores, dtype=np.float64)
    free = ~fixed_mask
    order = np.argsort(s[free], kind="stable")
    hs, ss = h[free][order], s[free][order]
    fixed_pass = int(np.sum(h[fixed_mask]))
    fixed_fail = int(np.sum(fixed_mask)) - fixed_pass
    a, b, kappas = _window_kappas(hs, ss, cut, fixed_pass, fixed_fail)
    width = b - a
    usable = (width <= max_abstain) & ~np.isnan(kappas)
    if not np.any(usable):
        return None
    # The level is a coverage: leave out as many as allowed (ties of P(pass) may force fewer),
    # placed where the decided items agree best; then nearest centred on the cut.
    widest = int(width[usable].max())
    if widest == 0:
        return None
    kc = int(np.sum(ss < cut))
    off_centre = np.abs((a + b) - 2 * kc)
    candidates = np.flatnonzero(usable & (width == widest))
    best = int(candidates[np.lexsort((off_centre[candidates], -kappas[candidates]))[0]])
    low, high = _boundary(ss, int(a[best])), _boundary(ss, int(b[best]))
    # The band reaches the cut where no scored item lies between them (a P(pass) equal to the
    # cut is a pass the window did not leave out, so it stays outside).
    if int(b[best]) > kc:
        low = min(low, cut)
    if int(a[best]) < kc:
        high = max(high, cut) if kc == ss.size or ss[kc] > cut else high
    return (low, high)


def _decided_figures(
    human: Sequence[bool], verdicts: Sequence[bool], decided: Sequence[bool], seed: int
) -> tuple[float | None, tuple[float, float] | None]:
    pairs = [(h, v) for h, v, d in zip(human, verdicts, decided, strict=True) if d]
    if not pairs:
        return None, None
    hs, vs = [h for h, _ in pairs], [v for _, v in pairs]
    rows = ag.paired_rows(hs, vs)
    table = rows.sum(axis=0).reshape(2, 2)
    ci, _ = ag.bootstrap_kappa_ci(rows, seed=seed)
    exact_low = ag.exact_kappa_low(table)
    if ci is not None and exact_low is not None:
        # The lower end is the smaller of the two bounds: the bootstrap's knows the spread of
        # disagreements, the exact one knows how few items there are.
        ci = (min(ci[0], exact_low), ci[1])
    return ag.cohen_kappa(table), ci


def band_curve(
    human: Sequence[bool],
    fixed: Sequence[bool],
    folds: list[list[int]],
    fold_scorer: FoldScorer,
    seed: int = ag.BOOTSTRAP_SEED,
    silent: Sequence[bool] | None = None,
) -> list[BandPoint]:
    """Every coverage level's cross-validated coverage and decided kappa [CI], with the band
    fitted at that level on every item (`silent` items are never decided)."""
    n = len(human)
    never = list(silent) if silent is not None else [False] * n
    every = list(range(n))
    oof: dict[float, tuple[list[bool], list[bool]]] = {
        q: ([False] * n, [False] * n) for q in COVERAGE_LEVELS
    }
    for fold in folds:
        held = set(fold)
        train = [i for i in every if i not in held and not never[i]]
        scores, cut = fold_scorer(train)
        train_h = [human[i] for i in train]
        train_f = [fixed[i] for i in train]
        for q in COVERAGE_LEVELS:
            band = fit_band(train_h, [float(scores[i]) for i in train], cut,
                            _max_abstain(q, len(train)), train_f)
            decided, verdicts = oof[q]
            for i in fold:
                p = float(scores[i])
                decided[i] = fixed[i] or (not never[i] and not in_band(band, p))
                verdicts[i] = (not fixed[i]) and p >= cut
    judged = [i for i in every if not never[i]]
    scores, cut = fold_scorer(judged)
    points = []
    for q in COVERAGE_LEVELS:
        decided, verdicts = oof[q]
        kappa, ci = _decided_figures(human, verdicts, decided, seed)
        band = fit_band([human[i] for i in judged], [float(scores[i]) for i in judged], cut,
                        _max_abstain(q, len(judged)), [fixed[i] for i in judged])
        points.append(BandPoint(q, band, sum(decided) / n if n else 0.0, kappa, ci,
                                sum(decided)))
    return points


def _max_abstain(level: float, n: int) -> int:
    return int(np.floor((1.0 - level) * n + 1e-9))


def choose(points: Sequence[BandPoint], target: float) -> BandPoint | None:
    """The point of widest cross-validated coverage whose decided kappa's lower 95% bound
    reaches `target` (ties: the higher decided kappa); None when none does."""
    reaching = [p for p in points
                if p.cv_decided_kappa_ci is not None and p.cv_decided_kappa_ci[0] >= target]
    if not reaching:
        return None
    return max(reaching, key=lambda p: (p.cv_coverage, p.cv_decided_kappa or -1.0, p.level))
