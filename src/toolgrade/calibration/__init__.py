"""Calibration: how far an LLM judge agrees with labelled sets (docs/calibration.md).

`calibrate` runs a judge over a set and returns a `CalibrationRecord`; `records` stores them per
(model, dimension, set hash) and answers `find_record` / `check_floor` for `toolgrade run`.
"""

from toolgrade.calibration.calibrate import (
    CalibrationError,
    CalibrationItem,
    CalibrationSet,
    calibrate,
    load_set,
    parse_set,
)
from toolgrade.calibration.records import (
    CalibrationRecord,
    calibration_dir,
    check_floor,
    find_record,
    read_record,
    shipped_set_sha256,
    summary_for_run,
    write_record,
)

__all__ = [
    "CalibrationError",
    "CalibrationItem",
    "CalibrationRecord",
    "CalibrationSet",
    "calibrate",
    "calibration_dir",
    "check_floor",
    "find_record",
    "load_set",
    "parse_set",
    "read_record",
    "shipped_set_sha256",
    "summary_for_run",
    "write_record",
]
