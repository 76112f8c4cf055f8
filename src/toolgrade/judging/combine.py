"""Apply a dimension's fitted combination to a model verdict (log-probability mode).

The model's P(pass) and the request's deterministic signals go through the logistic weights of
the settings' `combination`; the verdict is pass when the combined P(pass) reaches the
threshold. The reason says what the model said and which signals fired, so the verdict can be
checked by hand. Verdicts without a P(pass) (unscored, settled, reasoned mode) pass through.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolgrade.judging.signals import signals_for
from toolgrade.models import JudgeDimension, Verdict
from toolgrade.settings import JudgeSettings


def combine(
    dimension: JudgeDimension,
    settings: JudgeSettings,
    inputs: Mapping[str, Any],
    verdict: Verdict,
) -> Verdict:
    """`verdict` judged by the combined P(pass) when the settings carry a combination."""
    combination = settings.combination
    if (combination is None or settings.mode != "logprob" or verdict.p_pass is None
            or not verdict.scored):
        return verdict
    signals = signals_for(dimension, inputs)
    p_combined = combination.score(verdict.p_pass, signals.values)
    cut = settings.threshold
    passed = p_combined >= cut
    fired = "; ".join(signals.notes) if signals.notes else "no signal fired"
    reason = (
        f"combined P(pass) = {p_combined:.3f} against cut {cut:.3f} (model P(pass) "
        f"{verdict.p_pass:.3f}; signals: {fired})"
    )
    return verdict.model_copy(
        update={"verdict": "pass" if passed else "fail", "reason": reason, "p_pass": p_combined}
    )
