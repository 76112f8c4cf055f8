"""The calibration short form's TypedDict is tied to what `summary_for_run` writes."""

from __future__ import annotations

from builders_calibration import floor_record
from toolgrade.calibration.records import summary_for_run
from toolgrade.models.calibration_data import CalibrationSummary


def test_summary_for_run_writes_exactly_the_typed_keys_in_order() -> None:
    shown = summary_for_run(floor_record("argument_equivalence", 0.5))
    assert shown is not None
    assert list(shown) == list(CalibrationSummary.__annotations__)
