"""`calibrate --fit`: the logistic combination of P(pass) and signals, cross-validated."""

from __future__ import annotations

import random

import numpy as np
import pytest

from builders_calibration import by_id, make_item
from toolgrade.calibration.calibrate import CalibrationError, SignalSource, calibrate
from toolgrade.calibration.combination_fit import FitRow, fit_combination, fit_logistic
from toolgrade.models.combination import MODEL_FEATURE


def test_logistic_fit_finds_the_sign_and_the_size_of_a_separating_feature() -> None:
    rng = np.random.default_rng(3)
    x = rng.integers(0, 2, size=(200, 2)).astype(np.float64)
    y = x[:, 0].copy()  # the label is feature 0; feature 1 is noise
    weights, _ = fit_logistic(x, y)
    assert weights[0] > 3.0 and abs(weights[1]) < 0.5 * weights[0]


def test_a_larger_penalty_shrinks_the_weights() -> None:
    x = np.array([[0.0], [1.0]] * 20)
    y = np.array([0.0, 1.0] * 20)
    loose, _ = fit_logistic(x, y, l2=0.1)
    tight, _ = fit_logistic(x, y, l2=10.0)
    assert abs(tight[0]) < abs(loose[0])


def _rows(n: int, seed: int) -> list[FitRow]:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        passed = i % 2 == 0
        # The model guesses; the signal "bad" fires on 90% of the fails and 5% of the passes.
        bad = rng.random() < (0.05 if passed else 0.9)
        rows.append(FitRow(rng.random(), {"bad": float(bad)}, passed))
    return rows


def test_cross_validation_keeps_a_real_signal_and_the_cut_separates() -> None:
    fit = fit_combination(_rows(80, 1), [MODEL_FEATURE, "bad"], folds=5)
    assert fit.combination.weights[1] < -1.0
    labels = [r.human_pass for r in _rows(80, 1)]
    agreement = np.mean([v == h for v, h in zip(fit.cv_verdicts, labels, strict=True)])
    assert agreement > 0.8


def test_settled_rows_are_left_out_of_the_fit_and_always_fail() -> None:
    rows = [*_rows(40, 2), FitRow(0.0, {"bad": 0.0}, True, settled=True)]
    fit = fit_combination(rows, [MODEL_FEATURE, "bad"], folds=5)
    assert fit.cv_verdicts[-1] is False


def _items_and_judge(n: int = 60) -> tuple[list, object]:
    items = [make_item(i, "pass" if i % 2 == 0 else "fail", dimension="result_interpretation")
             for i in range(n)]
    rng = random.Random(5)
    p = {f"it-{i}": rng.random() for i in range(n)}  # a model that guesses
    return items, by_id({k: "fail" for k in p}, p)


def test_calibrate_with_a_signal_source_stores_the_combination_and_its_cv_figures() -> None:
    items, judge = _items_and_judge()
    source = SignalSource(
        signals=lambda inputs: {"bad": float(int(str(inputs["task"]).split(":")[0][3:]) % 2)},
        settled=lambda inputs: False,
    )
    record = calibrate(items, judge, dimension="result_interpretation", model="m",  # type: ignore[arg-type]
                       set_sha256="0" * 64, signal_source=source)
    assert record.combination is not None
    assert record.combination.features == [MODEL_FEATURE, "bad"]
    assert record.combination.weights[1] < 0
    assert record.cv_kappa == pytest.approx(1.0) and record.cv_folds == 5
    assert record.cv_threshold == record.fitted_threshold


def test_fit_without_p_pass_is_refused() -> None:
    items = [make_item(i, "pass" if i % 2 else "fail") for i in range(10)]
    judge = by_id({f"it-{i}": "pass" for i in range(10)})
    source = SignalSource(signals=lambda inputs: {}, settled=lambda inputs: False)
    with pytest.raises(CalibrationError, match="--fit needs P\\(pass\\)"):
        calibrate(items, judge, dimension="argument_equivalence", model="m",
                  set_sha256="0" * 64, signal_source=source)


def _signals_source(silent_every: int) -> SignalSource:
    """'bad' fires on the fails; every `silent_every`-th item fires nothing at all."""

    def signals(inputs: dict) -> dict[str, float]:
        i = int(str(inputs["task"]).split(":")[0][3:])
        if i % silent_every == 0:
            return {"bad": 0.0, "good": 0.0}
        return {"bad": float(i % 2), "good": float(1 - i % 2)}

    return SignalSource(signals=signals, settled=lambda inputs: False)


def test_the_signals_judge_is_fitted_without_the_model_and_never_decides_silent_items() -> None:
    items, judge = _items_and_judge()
    record = calibrate(items, judge, dimension="result_interpretation", model="signals",  # type: ignore[arg-type]
                       set_sha256="0" * 64, signal_source=_signals_source(4),
                       signals_only=True)
    assert record.combination is not None
    assert MODEL_FEATURE not in record.combination.features
    assert record.cv_auc is not None and record.cv_auc > 0.9
    assert record.signals_cv_auc is None  # a comparison only a model's record carries
    # 15 of 60 items fire no signal: no band level may decide them.
    assert max(level.cv_coverage for level in record.band_levels) <= 45 / 60 + 1e-9
    # Its disagreements are its out-of-fold verdicts', never a silent item's.
    silent = {f"it-{i}" for i in range(0, 60, 4)}
    assert all(d.reason.startswith("the signals judge") for d in record.disagreements)
    assert not silent & {d.id for d in record.disagreements}


def test_a_models_record_measures_the_signals_alone_on_the_same_items() -> None:
    items, judge = _items_and_judge()
    record = calibrate(items, judge, dimension="result_interpretation", model="m",  # type: ignore[arg-type]
                       set_sha256="0" * 64, signal_source=_signals_source(1000))
    # The model guesses and the signals separate: the model adds nothing to their ranking.
    assert record.signals_cv_auc is not None and record.cv_auc is not None
    assert record.signals_cv_auc > 0.95
    assert record.cv_auc - record.signals_cv_auc < 0.05
