"""Defaults that carry the calibration: the embedded judge, per dimension, as it was measured.

With no settings the local model would otherwise judge every dimension in the reasoned JSON
mode, a configuration no shipped record describes. Instead, for each dimension the local model
judges and the settings leave unconfigured (no `mode`, `threshold` or `enabled` in its table,
none at the top level), the shipped calibration record decides: its mode, its fitted P(pass)
cut and, where `calibrate --fit` stored one, its combination of P(pass) with the deterministic
signals are used, so the record shown beside the verdicts is the one that measured them; and a
dimension whose record's kappa lower bound (the cross-validated one where the record has it)
is under the floor stays off, with a one-line reason. A settings file still overrides all of
this: any key set there is kept as written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from toolgrade.models import JUDGE_DIMENSIONS, JudgeDimension
from toolgrade.settings import DimensionSettings, JudgeSettings

#: The kappa lower bound a default-on dimension needs when the settings name no floor.
DEFAULT_FLOOR = 0.2
#: Keys that, set by the user (top level or the dimension's table), leave the dimension alone.
_CHOSEN = ("mode", "threshold", "enabled", "combination")


@dataclass(frozen=True)
class DefaultChoice:
    """What the shipped record says one dimension should run as."""

    mode: str
    threshold: float | None
    enabled: bool
    reason: str
    combination: Any = None


def _user_chose(settings: JudgeSettings, dimension: JudgeDimension) -> bool:
    if any(key in settings.model_fields_set for key in _CHOSEN):
        return True
    table = settings.dimensions.get(dimension)
    return table is not None and any(getattr(table, key) is not None for key in _CHOSEN)


def kappa_low(record: Any) -> float | None:
    """The lower bound a default is judged by: cross-validated where the record has it."""
    ci = record.cv_kappa_ci or record.kappa_ci
    return float(ci[0]) if ci else None


def choice_from_record(record: Any, floor: float) -> DefaultChoice:
    """The configuration a shipped record supports, and whether it clears `floor`."""
    mode = record.mode or "reasoned"
    cut = record.cv_threshold if record.cv_threshold is not None else record.fitted_threshold
    low = kappa_low(record)
    combination = getattr(record, "combination", None)  # absent from older records' fakes
    if low is None or low < floor:
        shown = "undefined" if low is None else f"{low:.2f}"
        return DefaultChoice(
            mode, cut, False, combination=combination, reason=
            f"{record.dimension}: off by default: the local judge's calibration record has a "
            f"kappa lower bound of {shown}, under the floor {floor:.2f} (switch it on with "
            f"`enabled = true` in [judge.dimensions.{record.dimension}])",
        )
    kappa = record.cv_kappa if record.cv_kappa is not None else record.kappa
    combined = ", combined with signals" if combination is not None else ""
    return DefaultChoice(
        mode, cut, True, combination=combination,
        reason=f"{record.dimension}: {mode} mode{combined}"
        + (f", cut {cut:.3f}" if cut is not None else "")
        + f" (calibrated kappa {kappa:.2f}, lower bound {low:.2f})",
    )


def apply_local_defaults(
    settings: JudgeSettings,
    models: dict[JudgeDimension, str | None],
    notify: Callable[[str], None] | None = None,
    find: Callable[[str, JudgeDimension], Any] | None = None,
) -> JudgeSettings:
    """`settings` with each unconfigured local-model dimension set as its shipped record says.

    `models` are the resolved models per dimension; `find(model, dimension)` returns the shipped
    record (tests pass a fake). Dimensions switched off are named through `notify`.
    """
    from toolgrade.judging.local import is_local_model

    find = find or _shipped_record
    floor = settings.kappa_floor if settings.kappa_floor is not None else DEFAULT_FLOOR
    tables = dict(settings.dimensions)
    for dimension in JUDGE_DIMENSIONS:
        model = models.get(dimension)
        if not is_local_model(model) or _user_chose(settings, dimension):
            continue
        assert model is not None
        record = find(model, dimension)
        if record is None:
            continue
        choice = choice_from_record(record, floor)
        base = tables.get(dimension) or DimensionSettings()
        tables[dimension] = base.model_copy(update={
            "mode": choice.mode, "threshold": choice.threshold, "enabled": choice.enabled,
            "combination": choice.combination,
        })
        if not choice.enabled and notify is not None:
            notify(choice.reason)
    return settings.model_copy(update={"dimensions": tables})


def _shipped_record(model: str, dimension: JudgeDimension) -> Any:
    from toolgrade.calibration.records import find_record, shipped_records_dir

    return find_record(shipped_records_dir(), model, dimension)
