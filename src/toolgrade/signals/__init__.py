"""Deterministic signals per judge dimension: what code can read off a request before any model.

Each extractor returns `Signals`: named numbers (the inputs of the fitted combination stored
with a calibration record: `toolgrade.models.combination`, applied by `judging.combine`) and
the sentences a verdict's reason quotes for the signals that fired. Extractors are pure and
total: any input shape the loaders accept gives signals, never an exception. `evidence` settles
an argument pair whose facts code can read exactly (dates, amounts, units) before any model.

No model is called here: the package imports `models`, `jsonio` and `units` only, so it sits in
the layer of `checks/`, below `judging/`, which reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolgrade.models import JudgeDimension
from toolgrade.signals.base import Extractor, Signals
from toolgrade.signals.recovery import recovery_signals
from toolgrade.signals.results import result_signals
from toolgrade.signals.routes import route_signals

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


__all__ = ["EXTRACTORS", "Extractor", "Signals", "signals_for"]
