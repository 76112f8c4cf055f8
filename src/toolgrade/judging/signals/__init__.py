"""Deterministic signals per judge dimension: what code can read off a request before any model.

Each extractor returns `Signals`: named numbers (the inputs of the fitted combination stored
with a calibration record: `toolgrade.models.combination`, applied by `judging.combine`) and
the sentences a verdict's reason quotes for the signals that fired. Extractors are pure and
total: any input shape the loaders accept gives signals, never an exception.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from toolgrade.judging.signals.base import Extractor, Signals
from toolgrade.judging.signals.recovery import recovery_signals
from toolgrade.judging.signals.results import result_signals
from toolgrade.judging.signals.routes import route_signals
from toolgrade.models import JudgeDimension

if TYPE_CHECKING:
    from toolgrade.calibration.calibrate import SignalSource

#: The extractor of each dimension that has one.
EXTRACTORS: dict[JudgeDimension, Extractor] = {
    "alternate_route": route_signals,
    "recovery_quality": recovery_signals,
    "result_interpretation": result_signals,
}


def signals_for(dimension: JudgeDimension, inputs: Mapping[str, Any]) -> Signals:
    """The signals of one request; a dimension without an extractor has none."""
    extractor = EXTRACTORS.get(dimension)
    return extractor(inputs) if extractor is not None else Signals({})


def signal_source(dimension: JudgeDimension) -> SignalSource:
    """What `calibrate --fit` needs from judging for `dimension`: each item's signals, and
    whether the engine settles it without the model (log-probability mode)."""
    from toolgrade.calibration.calibrate import SignalSource
    from toolgrade.judging.settle import settle

    return SignalSource(
        signals=lambda inputs: signals_for(dimension, inputs).values,
        settled=lambda inputs: settle(dimension, inputs, "logprob") is not None,
    )


__all__ = ["EXTRACTORS", "Extractor", "Signals", "signal_source", "signals_for"]
