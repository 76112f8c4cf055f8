"""The short form of a calibration record that a run shows beside each judge.

`calibration.records.summary_for_run` builds it from a `CalibrationRecord`; it is written under
`summary.json` `judges.<dimension>.calibration` (and `...escalation.calibration`). A TypedDict,
not a model: it is JSON the summary carries as it was built, key order included.
"""

from __future__ import annotations

from typing import Literal, TypedDict


class InUseSummary(TypedDict):
    """The figures of the configuration a run judges with (`calibration.records.in_use`)."""

    #: Share of items the judge decides (cross-validated); 1.0 without a band.
    coverage: float | None
    #: Kappa on the decided items, with its 95% interval: what the floor reads.
    decided_kappa: float | None
    decided_kappa_ci: list[float] | None
    #: Kappa at the cut over every item (cross-validated where the record fitted the cut).
    plain_kappa: float | None
    plain_kappa_ci: list[float] | None
    cut: float | None
    band: list[float] | None
    target_kappa: float | None
    #: cv_decided_kappa, cv_kappa or kappa.
    floor_reads: str


class CalibrationSummary(TypedDict):
    """A judge's agreement with its calibration set, as the run reports it (every key is
    always written; a figure the record lacks is None)."""

    kappa: float | None
    #: [low, high] of kappa's 95% bootstrap interval.
    kappa_ci: list[float] | None
    ac1: float | None
    agreement: float | None
    catch_rate: float | None
    n: int
    set_sha256: str
    created_at: str
    #: The mode and P(pass) cut the figures above were measured at.
    mode: Literal["reasoned", "logprob"] | None
    threshold: float | None
    fitted_threshold: float | None
    holdout_kappa: float | None
    cv_threshold: float | None
    cv_kappa: float | None
    cv_kappa_ci: list[float] | None
    in_use: InUseSummary
