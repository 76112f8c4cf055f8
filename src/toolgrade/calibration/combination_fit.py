"""Fit a dimension's combination (`toolgrade calibrate --fit`) and cross-validate it.

The logistic model over the judge's log-odds and the dimension's signals is fitted by
L2-penalised maximum likelihood (scipy's L-BFGS; deterministic), then the P(pass) cut that
maximises kappa on the same items. What the pair can be trusted to reach on new items is the
k-fold figure: each item is judged by weights and a cut fitted without it. Items the engine
settles without the model (the injection screen, decisive evidence) always fail at run time, so
they are left out of the fit and counted as fails in every figure.

The signals judge (no model asked: `judging.signals_judge`) is fitted the same way without the
model's feature; an item on which no signal fired (`silent`) is one that judge never decides,
so it is left out of the fit and of the cut, and the band figures count it undecided.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from toolgrade.calibration import agreement as ag
from toolgrade.models import Combination
from toolgrade.models.combination import MODEL_FEATURE, model_logit

#: L2 penalty on the weights (the bias is not penalised); measured on the shipped and the
#: development sets: 1-3 gave the best cross-validated kappa, larger shrank every signal away.
L2_PENALTY = 2.0

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class FitRow:
    """One item as the fit sees it: model P(pass) (None: no model asked), signals, human
    label, settled or not, and whether the signals judge abstains on it (no signal fired)."""

    p_pass: float | None
    signals: Mapping[str, float]
    human_pass: bool
    settled: bool = False
    silent: bool = False


@dataclass(frozen=True)
class CombinationFit:
    """The combination and cut fitted on every item, and its k-fold figures."""

    combination: Combination
    threshold: float
    fit_kappa: float | None  # in-sample, at `threshold`
    cv_verdicts: list[bool]
    folds: int
    cv_scores: list[float]  # each item's P(pass) from weights fitted without it


def _matrix(rows: Sequence[FitRow], features: list[str]) -> FloatArray:
    return np.array(
        [[model_logit(r.p_pass if r.p_pass is not None else 0.5) if f == MODEL_FEATURE
          else float(r.signals.get(f, 0.0))
          for f in features] for r in rows],
        dtype=np.float64,
    ).reshape(len(rows), len(features))


def fit_logistic(x: FloatArray, y: FloatArray, l2: float = L2_PENALTY) -> tuple[FloatArray, float]:
    """Weights and bias minimising mean log-loss + l2 * |w|^2 / (2n)."""
    from scipy.optimize import minimize

    n, k = x.shape

    def loss(wb: FloatArray) -> tuple[float, FloatArray]:
        w, b = wb[:k], wb[k]
        z = x @ w + b
        p = 1.0 / (1.0 + np.exp(-z))
        value = float(np.mean(np.logaddexp(0, -z) * y + np.logaddexp(0, z) * (1 - y)))
        value += l2 * float(w @ w) / (2 * n)
        grad_z = (p - y) / n
        grad = np.concatenate([x.T @ grad_z + l2 * w / n, [grad_z.sum()]])
        return value, grad

    result = minimize(loss, np.zeros(k + 1), jac=True, method="L-BFGS-B")
    wb = np.asarray(result.x, dtype=np.float64)
    return wb[:k], float(wb[k])


def fit_with_cut(
    rows: Sequence[FitRow], features: list[str], l2: float = L2_PENALTY
) -> tuple[Combination, float, float | None]:
    """The combination fitted on the unsettled `rows`, its best cut over all the rows it
    decides (silent ones never) and the (in-sample) kappa at that cut."""
    model_rows = [r for r in rows if not r.settled and not r.silent]
    x = _matrix(model_rows, features)
    y = np.array([float(r.human_pass) for r in model_rows], dtype=np.float64)
    weights, bias = fit_logistic(x, y, l2)
    combination = Combination(
        features=features, weights=[round(float(w), 6) for w in weights], bias=round(bias, 6)
    )
    judged = [r for r in rows if not r.silent]
    scores = [score_row(combination, r) for r in judged]
    cut, kappa = ag.best_threshold([r.human_pass for r in judged], scores)
    return combination, cut, kappa


def score_row(combination: Combination, row: FitRow) -> float:
    """The combined P(pass) of one row; a settled row is a certain fail."""
    return 0.0 if row.settled else combination.score(row.p_pass, row.signals)


def fit_combination(
    rows: Sequence[FitRow],
    features: list[str],
    folds: int,
    seed: int = ag.BOOTSTRAP_SEED,
    l2: float = L2_PENALTY,
) -> CombinationFit:
    """Fit on every row; cross-validate over `folds` stratified folds (>= 2)."""
    labels = [r.human_pass for r in rows]
    verdicts = [False] * len(rows)
    scores = [0.0] * len(rows)
    for fold in ag.stratified_folds(labels, folds, seed):
        held = set(fold)
        train = [r for i, r in enumerate(rows) if i not in held]
        combination, cut, _ = fit_with_cut(train, features, l2)
        for i in fold:
            scores[i] = score_row(combination, rows[i])
            verdicts[i] = scores[i] >= cut
    combination, cut, kappa = fit_with_cut(rows, features, l2)
    return CombinationFit(combination, cut, kappa, verdicts, folds, scores)


def feature_names(signals: Sequence[Mapping[str, Any]], *, model: bool = True) -> list[str]:
    """The model's log-odds first (unless `model` is False: the signals judge), then every
    signal name in first-seen order."""
    names = [MODEL_FEATURE] if model else []
    for values in signals:
        names += [k for k in values if k not in names]
    return names
