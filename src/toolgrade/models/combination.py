"""A fitted combination of a judge's P(pass) with the deterministic signals of its request.

A small model's P(pass) on three of the four dimensions carries little signal by itself, and
code reads some facts (a status the answer contradicts, a write the route left out, the
recovery check's stage) better than the model does. `toolgrade calibrate --fit` fits a logistic
model over the model's log-odds and the dimension's signals (`toolgrade.signals`), with
the P(pass) cut, and stores both in the calibration record; the judge engine applies it
(settings `[judge.dimensions.D] combination`, filled from the shipped record by default) to
every model verdict of that dimension. The weights are plain numbers in the record, so a
verdict can always be explained: its reason lists the signals that fired.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field, model_validator

#: The model name of the signals judge, which weighs the signals alone and asks no model
#: (`judging.signals_judge`).
SIGNALS_MODEL = "signals"
#: The feature name of the model's own log-odds of pass.
MODEL_FEATURE = "model_logit"
#: Log-odds are clipped: a reply of P = 1e-12 must not outweigh every signal.
LOGIT_CLIP = 6.0


def model_logit(p_pass: float) -> float:
    """The clipped log-odds of a P(pass)."""
    p = min(max(p_pass, 1e-6), 1 - 1e-6)
    return max(-LOGIT_CLIP, min(LOGIT_CLIP, math.log(p / (1 - p))))


class Combination(BaseModel):
    """Logistic weights over named features; `score` gives the combined P(pass)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    features: list[str] = Field(
        min_length=1, description="Feature names, model_logit first (absent: the signals judge)."
    )
    weights: list[float]
    bias: float

    @model_validator(mode="after")
    def _same_length(self) -> Combination:
        if len(self.features) != len(self.weights):
            raise ValueError("features and weights must have the same length")
        return self

    def score(self, p_pass: float | None, signals: Mapping[str, float]) -> float:
        """The combined P(pass); a signal the request lacks counts as 0. `p_pass` None: no
        model was asked (the signals judge), so the combination must not weigh the model."""
        if p_pass is None:
            if MODEL_FEATURE in self.features:
                raise ValueError("this combination weighs the model's P(pass); none was given")
            row = dict(signals)
        else:
            row = {**signals, MODEL_FEATURE: model_logit(p_pass)}
        z = self.bias + sum(w * row.get(f, 0.0) for f, w in zip(self.features, self.weights,
                                                                 strict=True))
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))
