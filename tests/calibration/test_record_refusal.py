"""When `toolgrade calibrate` must not write its record (calibration.records.refusal_to_write):
a record of nothing, or of mostly model-call errors, would replace a good one."""

from __future__ import annotations

from builders_calibration import floor_record
from toolgrade.calibration.records import CalibrationRecord, refusal_to_write


def _record(observations: int, errors: int = 0, unscored: int = 0) -> CalibrationRecord:
    return floor_record("recovery_quality", 0.5).model_copy(
        update={"observations": observations, "errors": errors, "unscored": unscored})


def test_a_sound_record_is_written() -> None:
    assert refusal_to_write(_record(80), decides_nothing=False, cached=True) is None
    assert refusal_to_write(_record(40, errors=40), decides_nothing=False, cached=True) is None


def test_a_judge_that_decides_nothing_is_not_recorded() -> None:
    why = refusal_to_write(_record(0, unscored=80), decides_nothing=True, cached=True)
    assert why is not None and why.startswith("the recovery_quality judge as run configures it")
    assert why.endswith("Measure the model itself with --fit")


def test_no_scored_verdict_is_not_recorded() -> None:
    why = refusal_to_write(_record(0, errors=3, unscored=77), decides_nothing=False, cached=True)
    assert why == "no verdict was scored (77 unscored, 3 errors); the record was not written"


def test_mostly_errors_is_not_recorded_and_says_whether_verdicts_were_cached() -> None:
    cached = refusal_to_write(_record(39, errors=41), decides_nothing=False, cached=True)
    fresh = refusal_to_write(_record(39, errors=41), decides_nothing=False, cached=False)
    assert cached is not None and cached.startswith("41 of 80 verdicts are model-call errors")
    assert cached.endswith("(scored verdicts are cached).") and fresh is not None
    assert fresh.endswith("Run again once the provider answers.")
