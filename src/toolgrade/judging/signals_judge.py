"""The signals judge: a dimension judged by its deterministic signals alone, no model asked.

Where the model adds nothing measurable to the signals (its calibration record's `cv_auc`
within `calibration.records.MODEL_GAIN_MIN` of `signals_cv_auc`), asking it costs seconds per
item and buys no agreement. The signals judge is then the embedded judge's default for that
dimension (`judging.defaults`), and any settings file can name it: `model = "signals"` in
`[judge.dimensions.D]`. It weighs the dimension's signals (`toolgrade.signals`) with the
logistic combination `toolgrade calibrate --model signals --fit` stores in its record, cuts the
combined P(pass) like a model's, and abstains (unscored, `uncertain`) inside the record's band
and wherever no signal fired: silence is not evidence of a pass. The injection screen and the
decisive evidence still settle an item first, as for a model (docs/calibration.md, "The
signals judge").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolgrade.models import JudgeDimension, Verdict
from toolgrade.models.combination import SIGNALS_MODEL
from toolgrade.settings import JudgeSettings
from toolgrade.signals import EXTRACTORS, signals_for

#: Stands for the prompt template in records and cache keys: the signals judge renders none.
SIGNALS_TEMPLATE_HASH = "signals-v1"

__all__ = ["SIGNALS_MODEL", "SIGNALS_TEMPLATE_HASH", "has_signals", "is_signals_model",
           "signals_verdict"]

#: The reason of an item on which no signal fired.
SILENT = ("uncertain: no deterministic signal fired, and the signals judge does not decide "
          "an item its signals say nothing about")
#: The reason given while the judge has no weights: `calibrate --fit` measures it this way.
UNWEIGHTED = "the signals judge has no fitted combination: every item reads P(pass) 0.5"


def is_signals_model(model: str | None) -> bool:
    """True when `model` names the signals judge."""
    return model == SIGNALS_MODEL


def has_signals(dimension: JudgeDimension) -> bool:
    """True when the dimension has signals the judge can weigh."""
    return dimension in EXTRACTORS


def signals_verdict(
    dimension: JudgeDimension, settings: JudgeSettings, inputs: Mapping[str, Any]
) -> Verdict:
    """The verdict of the signals alone, before the band (`combine.abstain` applies it)."""
    stamp = {"model": SIGNALS_MODEL, "template_hash": SIGNALS_TEMPLATE_HASH}
    if not has_signals(dimension):
        return Verdict.unscored(f"{dimension} has no deterministic signals for the signals "
                                "judge to weigh", **stamp)
    signals = signals_for(dimension, inputs)
    combination = settings.combination
    if combination is None:
        # Calibration asks the unweighted judge so every item gets a row to fit on.
        return Verdict(verdict="pass", reason=UNWEIGHTED, p_pass=0.5, **stamp)
    if not any(signals.values.values()):
        return Verdict.unscored(SILENT, **stamp)
    p_pass = combination.score(None, signals.values)
    cut = settings.threshold
    return Verdict(
        verdict="pass" if p_pass >= cut else "fail", p_pass=p_pass,
        reason=f"signals P(pass) = {p_pass:.3f} against cut {cut:.3f} (no model asked; "
        f"signals: {'; '.join(signals.notes) or 'none noted'})",
        **stamp,
    )
