"""The demo's settings (`examples/helpdesk/toolgrade.toml`) load, and run each dimension as its
shipped calibration record for the embedded model says: the record's mode, fitted cut and
combination (the signals judge's record where the model's says the model adds too little over
the signals), and on exactly when the record's kappa lower bound clears the demo's floor."""

from __future__ import annotations

from pathlib import Path

from toolgrade.calibration.records import (
    check_floor,
    find_record,
    judges_as_fitted,
    shipped_records_dir,
    signals_suffice,
)
from toolgrade.judging.defaults import apply_local_defaults, kappa_low
from toolgrade.judging.local import LOCAL_MODEL
from toolgrade.models import JUDGE_DIMENSIONS
from toolgrade.models.combination import SIGNALS_MODEL
from toolgrade.settings import load_settings

DEMO = Path(__file__).resolve().parents[1] / "examples" / "helpdesk" / "toolgrade.toml"


def test_demo_runs_each_dimension_as_its_shipped_record_measured_it() -> None:
    judge = load_settings(DEMO).judge
    assert judge.kappa_floor is not None
    applied = apply_local_defaults(judge, dict.fromkeys(JUDGE_DIMENSIONS, LOCAL_MODEL))
    on = set()
    for dimension in JUDGE_DIMENSIONS:
        record = find_record(shipped_records_dir(), LOCAL_MODEL, dimension)
        assert record is not None and record.cv_threshold is not None, dimension
        settings = applied.for_dimension(dimension)
        if signals_suffice(record):
            assert settings.model == SIGNALS_MODEL, dimension
            record = find_record(shipped_records_dir(), SIGNALS_MODEL, dimension)
            assert record is not None and record.cv_threshold is not None, dimension
        else:
            assert settings.model is None, dimension  # the local model, as resolved
        assert (settings.mode, settings.threshold) == ("logprob", record.cv_threshold)
        assert settings.combination == record.combination
        if record.band is not None and record.cv_coverage == 0.0:
            # No band reached the target: the judge is on but decides nothing, so every item
            # goes to escalation or to people (docs/calibration.md, the abstention band).
            assert settings.enabled and settings.band == (0.0, 1.0)
            continue
        ci = record.cv_decided_kappa_ci if record.band is not None else None
        low = float(ci[0]) if ci else kappa_low(record)
        assert settings.enabled == (low is not None and low >= judge.kappa_floor)
        if settings.enabled:
            on.add(dimension)
            fitted = judges_as_fitted(record, settings.threshold, settings.combination)
            assert fitted and check_floor(record, judge.kappa_floor, fitted=True) is None
    # The records re-fitted on 5 December 2026 on sets with real-length items, to the n-aware
    # lower bound: no dimension reaches the target, so none decides (docs/local_judge.md); the
    # model adds nothing over the signals on routes, recovery and results.
    assert on == set()
    judged_by = {d: applied.for_dimension(d).model for d in JUDGE_DIMENSIONS}
    assert judged_by == {"argument_equivalence": None, "alternate_route": SIGNALS_MODEL,
                         "recovery_quality": SIGNALS_MODEL,
                         "result_interpretation": SIGNALS_MODEL}
