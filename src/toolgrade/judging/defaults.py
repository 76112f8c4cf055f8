"""Defaults that carry the calibration: the embedded judge, per dimension, as it was measured.

With no settings the local model would otherwise judge every dimension in the reasoned JSON
mode, a configuration no shipped record describes. Instead, for each dimension the local model
judges and the settings leave unconfigured (no `mode`, `threshold` or `enabled` in its table,
none at the top level), the shipped calibration record decides: its mode, its fitted P(pass)
cut and, where `calibrate --fit` stored one, its combination of P(pass) with the deterministic
signals are used, and its abstention band (picked at the settings' `target_kappa` where one is
set, among the levels the record measured), so the record shown beside the verdicts is the one
that measured them; and a dimension whose record's kappa lower bound (the cross-validated
decided kappa's where the record has a band, else the cross-validated kappa's) is under the
floor stays off, with a one-line reason. A band that decides nothing keeps the dimension on:
its items all go, `uncertain`, to the escalation judge or to people. A settings file still
overrides all of this: any key set there is kept as written.

Where the model's record says it adds less than `MODEL_GAIN_MIN` of ranking AUC over the
dimension's signals alone, and a record of the signals judge exists, the dimension is judged by
the signals judge by default (no model asked; `judging.signals_judge`), unless the settings
name a model for it. A dimension whose settings say `model = "signals"` is configured from the
signals judge's record the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from toolgrade.calibration.records import signals_suffice
from toolgrade.judging.signals_judge import SIGNALS_MODEL, is_signals_model
from toolgrade.models import JUDGE_DIMENSIONS, JudgeDimension
from toolgrade.settings import DimensionSettings, JudgeSettings

#: The kappa lower bound a default-on dimension needs when the settings name no floor.
DEFAULT_FLOOR = 0.2
#: Keys that, set by the user (top level or the dimension's table), leave the dimension alone.
_CHOSEN = ("mode", "threshold", "enabled", "combination", "checklist")


@dataclass(frozen=True)
class DefaultChoice:
    """What the shipped record says one dimension should run as."""

    mode: str
    threshold: float | None
    enabled: bool
    reason: str
    combination: Any = None
    band: tuple[float, float] | None = None


def _user_chose(settings: JudgeSettings, dimension: JudgeDimension) -> bool:
    if any(key in settings.model_fields_set for key in _CHOSEN):
        return True
    table = settings.dimensions.get(dimension)
    return table is not None and any(getattr(table, key) is not None for key in _CHOSEN)


def kappa_low(record: Any) -> float | None:
    """The lower bound a default is judged by: cross-validated where the record has it."""
    ci = record.cv_kappa_ci or record.kappa_ci
    return float(ci[0]) if ci else None


def choice_from_record(
    record: Any, floor: float, target_kappa: float | None = None
) -> DefaultChoice:
    """The configuration a shipped record supports, and whether it clears `floor`."""
    from toolgrade.calibration.records import band_for_target

    mode = record.mode or "reasoned"
    cut = record.cv_threshold if record.cv_threshold is not None else record.fitted_threshold
    combination = getattr(record, "combination", None)  # absent from older records' fakes
    banded = band_for_target(record, target_kappa) if hasattr(record, "band_levels") else None
    if banded is not None and mode == "logprob":
        return _banded_choice(record, banded, mode, cut, combination, floor)
    low = kappa_low(record)
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


def _banded_choice(
    record: Any, banded: Any, mode: str, cut: float | None, combination: Any, floor: float
) -> DefaultChoice:
    """A record with a band: the floor reads the cross-validated decided kappa's lower bound."""
    dim = record.dimension
    if banded.cv_coverage <= 0.0:
        return DefaultChoice(
            mode, cut, True, combination=combination, band=banded.band, reason=
            f"{dim}: decides no item (no band reached decided kappa {banded.target_kappa:.2f}); "
            "every item goes to the escalation judge or to people",
        )
    ci = banded.cv_decided_kappa_ci
    low = float(ci[0]) if ci else None
    enabled = low is not None and low >= floor
    shown = "undefined" if low is None else f"{low:.2f}"
    reason = (
        f"{dim}: {mode} mode, decides {banded.cv_coverage:.0%} of items at decided kappa "
        f"{banded.cv_decided_kappa:.2f} (lower bound {shown}), the rest uncertain"
        if enabled else
        f"{dim}: off by default: the local judge's decided kappa has a lower bound of {shown}, "
        f"under the floor {floor:.2f} (switch it on with `enabled = true` in "
        f"[judge.dimensions.{dim}])")
    return DefaultChoice(mode, cut, enabled, combination=combination, band=banded.band,
                         reason=reason)


def configured(
    settings: JudgeSettings,
    notify: Callable[[str], None] | None = None,
    find: Callable[[str, JudgeDimension], Any] | None = None,
) -> JudgeSettings:
    """Each dimension's judge configuration (mode, cut, combination, band, on or off) from the
    settings plus the calibration records: the one function `run`, `calibrate` and the pytest
    plugin build their judges through, so `calibrate` with no settings measures exactly the
    judge `run` uses."""
    from toolgrade.judging.factory import resolve_models

    return apply_local_defaults(settings, resolve_models(settings), notify, find)


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
    find = find or _default_finder(settings)
    floor = settings.kappa_floor if settings.kappa_floor is not None else DEFAULT_FLOOR
    tables = dict(settings.dimensions)
    for dimension in JUDGE_DIMENSIONS:
        model = models.get(dimension)
        if _user_chose(settings, dimension):
            continue
        found = _record_to_follow(settings, dimension, model, find)
        if found is None:
            continue
        model, record = found
        dim_settings = settings.for_dimension(dimension)
        choice = choice_from_record(record, floor, dim_settings.target_kappa)
        base = tables.get(dimension) or DimensionSettings()
        tables[dimension] = base.model_copy(update={
            "model": model if is_signals_model(model) else base.model,
            "mode": choice.mode, "threshold": choice.threshold, "enabled": choice.enabled,
            "combination": choice.combination,
            # A record measured on a checklist judge is followed in checklist mode.
            "checklist": True if getattr(record, "checklist_hash", None) else None,
            # A band the settings name wins over the record's.
            "band": base.band if base.band is not None else choice.band,
            "examples": _examples(settings, base, record),
        })
        if not choice.enabled and notify is not None:
            notify(choice.reason)
    return settings.model_copy(update={"dimensions": tables})


def _examples(settings: JudgeSettings, table: DimensionSettings, record: Any) -> int | None:
    """The nearest examples per item: the settings' where they name a number, else the
    record's (a record measured with examples is followed with them)."""
    if table.examples is not None or "examples" in settings.model_fields_set:
        return table.examples
    return getattr(record, "examples", None) or None


def _record_to_follow(
    settings: JudgeSettings,
    dimension: JudgeDimension,
    model: str | None,
    find: Callable[[str, JudgeDimension], Any],
) -> tuple[str, Any] | None:
    """The judge a default-configured dimension runs as and the record that configures it: the
    local model's, or the signals judge's where the model adds too little over the signals and
    the settings name no model; None when no record applies."""
    from toolgrade.judging.local import is_local_model

    if is_signals_model(model):
        record = find(SIGNALS_MODEL, dimension)
        return None if record is None else (SIGNALS_MODEL, record)
    if not is_local_model(model):
        return None
    assert model is not None
    record = find(model, dimension)
    if record is None:
        return None
    if not _model_named(settings, dimension) and signals_suffice(record):
        signals = find(SIGNALS_MODEL, dimension)
        if signals is not None:
            return SIGNALS_MODEL, signals
    return model, record


def _model_named(settings: JudgeSettings, dimension: JudgeDimension) -> bool:
    """True when the settings name the judge model (top level or the dimension's table)."""
    table = settings.dimensions.get(dimension)
    return "model" in settings.model_fields_set or (table is not None and table.model is not None)


def _default_finder(settings: JudgeSettings) -> Callable[[str, JudgeDimension], Any]:
    """Records the defaults follow: the shipped ones, and for the signals judge the team's own
    first (`calibrate --model signals --fit` writes it to the calibration folder)."""
    from toolgrade.calibration.records import calibration_dir, find_record, shipped_records_dir

    def find(model: str, dimension: JudgeDimension) -> Any:
        if is_signals_model(model):
            own = find_record(calibration_dir(settings.calibration_dir), model, dimension)
            if own is not None:
                return own
        return find_record(shipped_records_dir(), model, dimension)

    return find
