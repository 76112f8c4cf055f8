"""The escalation judge of a run: built beside the first judge, with its own calibration records.

Its record is looked up as the first judge's is (the user's records, then the shipped ones), by
its own model in reasoned mode, and shown under `summary.judges.D.escalation.calibration`. Where
the suite asks a dimension to decide outcomes, the escalation judge decides them too, so it
needs a record over the same floor: without one it is not asked for that dimension (its items
are left for people) unless `[judge] require_calibration = false`, and the run says so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from toolgrade.models import JudgeDimension
from toolgrade.models.judge_usage import RunJudge, UsageByDimension
from toolgrade.settings import JudgeSettings

if TYPE_CHECKING:
    from toolgrade.calibration.records import CalibrationRecord
    from toolgrade.judging.judge import JudgeEngine


def _record(settings: JudgeSettings, model: str, dimension: JudgeDimension,
            template_hash: str) -> CalibrationRecord | None:
    """The escalation model's record for `dimension` (reasoned mode, this template), or None."""
    from toolgrade.calibration.records import (
        calibration_dir,
        find_record,
        record_mismatch,
        shipped_records_dir,
    )

    for folder in (calibration_dir(settings.calibration_dir), shipped_records_dir()):
        record = find_record(folder, model, dimension, mode="reasoned")
        if record is not None and record_mismatch(record, "reasoned", template_hash) is None:
            return record
    return None


def _allowed(dimension: JudgeDimension, model: str, record: CalibrationRecord | None,
             settings: JudgeSettings,
             deciding: Mapping[JudgeDimension, list[str]], notify: Callable[[str], None]) -> bool:
    """May the escalation judge answer `dimension`? Always, unless the suite makes it decide
    outcomes and it has no record over the floor (then only with require_calibration off)."""
    from toolgrade.calibration.records import DECIDING_KAPPA_FLOOR, check_floor

    if not deciding.get(dimension):
        return True
    floor = settings.for_dimension(dimension).kappa_floor
    why = check_floor(record, DECIDING_KAPPA_FLOOR if floor is None else floor)
    if why is None:
        return True
    if settings.require_calibration is not False:  # only an explicit false lets it decide
        notify(f"warning: escalation judge {model} is not asked about {dimension}: it decides "
               f"outcomes there and is not calibrated over the floor ({why}); its undecided "
               "items are left for people (`toolgrade adjudicate`)")
        return False
    notify(f"warning: [judge] require_calibration = false: escalation judge {model} decides "
           f"{dimension} outcomes with no calibration record over the floor")
    return True


def add_escalation(
    engine: RunJudge,
    settings: JudgeSettings,
    deciding: Mapping[JudgeDimension, list[str]] | None,
    notify: Callable[[str], None],
) -> tuple[RunJudge, UsageByDimension]:
    """`engine` wrapped with its escalation judge (unchanged when none is configured), and per
    escalating dimension `{model, calibration}` for the summary."""
    from toolgrade.calibration.records import summary_for_run
    from toolgrade.judging.escalation import EscalatingJudge, build_escalation

    second = build_escalation(settings, notify=notify)
    if second is None:
        return engine, {}
    shown: UsageByDimension = {}
    allowed: list[JudgeDimension] = []
    for dim, model in _models(second).items():
        record = _record(settings, model, dim, second.template_hash_for(dim))
        shown[dim] = {"model": model, "calibration": summary_for_run(record)}
        if _allowed(dim, model, record, settings, deciding or {}, notify):
            allowed.append(dim)
        else:
            shown[dim]["status"] = "not asked: uncalibrated for a deciding dimension"
    return EscalatingJudge(engine, second, allowed), shown


def _models(second: JudgeEngine) -> dict[JudgeDimension, str]:
    from toolgrade.models import JUDGE_DIMENSIONS

    return {d: m for d in JUDGE_DIMENSIONS if (m := second.model_for(d)) != "unconfigured"}
