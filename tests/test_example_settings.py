"""The demo's settings (`examples/helpdesk/toolgrade.toml`) load, and judge exactly the
dimensions whose shipped calibration record for the embedded model clears the demo's floor."""

from __future__ import annotations

from pathlib import Path

from toolgrade.calibration.records import find_record, shipped_records_dir
from toolgrade.judging.factory import switched_on
from toolgrade.judging.local import LOCAL_MODEL
from toolgrade.models import JUDGE_DIMENSIONS
from toolgrade.settings import load_settings

DEMO = Path(__file__).resolve().parents[1] / "examples" / "helpdesk" / "toolgrade.toml"


def test_demo_judges_exactly_the_dimensions_that_clear_its_kappa_floor() -> None:
    judge = load_settings(DEMO).judge
    assert judge.kappa_floor is not None
    clear = set()
    for dimension in JUDGE_DIMENSIONS:
        record = find_record(shipped_records_dir(), LOCAL_MODEL, dimension)
        assert record is not None and record.kappa_ci is not None, dimension
        if record.kappa_ci[0] >= judge.kappa_floor:
            clear.add(dimension)
    assert set(switched_on(judge)) == clear == {"argument_equivalence"}


def test_demo_uses_the_cut_fitted_by_the_shipped_argument_record() -> None:
    judge = load_settings(DEMO).judge
    record = find_record(shipped_records_dir(), LOCAL_MODEL, "argument_equivalence")
    assert record is not None and record.cv_threshold is not None
    assert judge.mode == "logprob"
    # The cut fitted on every item, as the defaults use it (cross-validated kappa beside it).
    assert abs(judge.threshold - record.cv_threshold) < 0.001
