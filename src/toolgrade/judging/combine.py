"""Apply a dimension's fitted combination, then its abstention band, to a model verdict
(log-probability mode).

The model's P(pass) and the request's deterministic signals go through the logistic weights of
the settings' `combination`; the verdict is pass when the combined P(pass) reaches the
threshold. The reason says what the model said and which signals fired, so the verdict can be
checked by hand. Verdicts without a P(pass) (unscored, settled, reasoned mode) pass through.

The band (`[judge.dimensions.D] band`, from the calibration record by default) is where the
final P(pass) decides nothing: a verdict inside it becomes `unscored`, reason `uncertain`, so it
never passes, goes to the escalation judge where one is set and is listed by `toolgrade
adjudicate` otherwise (docs/calibration.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolgrade.calibration.band import in_band
from toolgrade.models import JudgeDimension, Verdict
from toolgrade.settings import JudgeSettings
from toolgrade.signals import signals_for


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
    # Checklist answers (`q_<id>`, P(yes)) are features beside the signals.
    p_combined = combination.score(verdict.p_pass, {**signals.values, **(verdict.answers or {})})
    cut = settings.threshold
    passed = p_combined >= cut
    fired = "; ".join(signals.notes) if signals.notes else "no signal fired"
    said = "checklist" if verdict.answers is not None else "model"
    reason = (
        f"combined P(pass) = {p_combined:.3f} against cut {cut:.3f} ({said} P(pass) "
        f"{verdict.p_pass:.3f}; signals: {fired})"
    )
    return verdict.model_copy(
        update={"verdict": "pass" if passed else "fail", "reason": reason, "p_pass": p_combined}
    )


def uncertain_reason(band: tuple[float, float]) -> str:
    """`uncertain: P(pass) inside the calibrated band [0.310, 0.620], ...`: one wording per
    band, so reports group a dimension's undecided items; the item's own P(pass) is the
    verdict's `p_pass`."""
    return f"uncertain: P(pass) inside the calibrated band [{band[0]:.3f}, " \
        f"{band[1]:.3f}], where this judge does not decide"


def abstain(settings: JudgeSettings, verdict: Verdict) -> Verdict:
    """`verdict` made `unscored` (reason uncertain) when its final P(pass) is inside the band
    (log-probability mode)."""
    return verdict if settings.mode != "logprob" else apply_band(settings.band, verdict)


def apply_band(band: tuple[float, float] | None, verdict: Verdict) -> Verdict:
    """`verdict` made `unscored` (reason uncertain) when its P(pass) is inside `band`."""
    if (band is None or verdict.p_pass is None or not verdict.scored
            or not in_band(band, verdict.p_pass)):
        return verdict
    return verdict.model_copy(update={
        "verdict": "unscored", "reason": uncertain_reason(band), "label": None,
    })


#: The reason of a verdict no model was asked for: the band covers every P(pass).
NOTHING_DECIDED = ("uncertain: the calibrated band covers every P(pass), so this judge decides "
                   "no item: its calibration found no band reaching the target kappa")


def decides_nothing(settings: JudgeSettings) -> bool:
    """True when the band holds every P(pass): nothing the model says would be decided."""
    band = settings.band
    return settings.mode == "logprob" and band is not None and band[0] <= 0.0 and band[1] >= 1.0
