"""Calibration records: round trip, lookup by (model, dimension, set hash), floors, directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders_calibration import by_id, make_item
from toolgrade.calibration.calibrate import calibrate
from toolgrade.calibration.records import (
    CALIBRATION_DIR_ENV,
    CalibrationRecord,
    calibration_dir,
    check_floor,
    find_record,
    read_record,
    record_filename,
    record_mismatch,
    shipped_set_sha256,
    summary_for_run,
    write_record,
)
from toolgrade.errors import ConfigError


def _record(
    model: str = "openai/gpt-4o-mini", sha: str = "a" * 64, **changes: object
) -> CalibrationRecord:
    items = [make_item(i, "pass" if i < 10 else "fail") for i in range(20)]
    verdicts = {f"it-{i}": ("pass" if i < 9 or i == 19 else "fail") for i in range(20)}
    record = calibrate(
        items, by_id(verdicts), dimension="argument_equivalence", model=model, set_sha256=sha
    )
    return record.model_copy(update=changes)


def test_round_trip(tmp_path: Path) -> None:
    record = _record()
    path = write_record(record, tmp_path / "records")
    assert path.parent == tmp_path / "records"
    assert read_record(path) == record
    assert not list(path.parent.glob("*.tmp"))


def test_file_name_is_per_model_dimension_and_set() -> None:
    a = record_filename("openai/gpt-4o-mini", "alternate_route", "b" * 64)
    assert a.startswith("alternate_route__openai_gpt-4o-mini-") and a.endswith(
        "__bbbbbbbbbbbb.json"
    )
    assert a != record_filename("openai:gpt-4o-mini", "alternate_route", "b" * 64)
    assert a != record_filename("openai/gpt-4o-mini", "alternate_route", "c" * 64)


def test_find_record_matches_model_dimension_and_hash(tmp_path: Path) -> None:
    older = _record(created_at="2025-01-01T00:00:00+00:00", kappa=0.1)
    newer = _record(created_at="2025-02-01T00:00:00+00:00", kappa=0.9)
    write_record(older, tmp_path / "x")  # same key: the newer write replaces it
    write_record(newer, tmp_path)
    write_record(older, tmp_path / "y")
    (tmp_path / "argument_equivalence__junk.json").write_text("{broken")
    write_record(_record(model="other"), tmp_path)
    found = find_record(tmp_path, "openai/gpt-4o-mini", "argument_equivalence", "a" * 64)
    assert found is not None and found.kappa == 0.9
    assert find_record(tmp_path, "openai/gpt-4o-mini", "argument_equivalence", "b" * 64) is None
    assert find_record(tmp_path, "openai/gpt-4o-mini", "recovery_quality", "a" * 64) is None
    assert find_record(tmp_path / "missing", "m", "argument_equivalence", "a" * 64) is None


def test_find_record_defaults_to_the_shipped_set_hash(tmp_path: Path) -> None:
    sha = shipped_set_sha256("argument_equivalence")
    assert len(sha) == 64
    write_record(_record(sha=sha), tmp_path)
    write_record(_record(model="m2"), tmp_path)
    assert find_record(tmp_path, "openai/gpt-4o-mini", "argument_equivalence") is not None
    assert find_record(tmp_path, "m2", "argument_equivalence") is None  # measured on another set


def test_newest_of_two_files_for_the_same_key_wins(tmp_path: Path) -> None:
    old = _record(created_at="2025-01-01T00:00:00+00:00", kappa=0.2)
    new = _record(created_at="2025-03-01T00:00:00+00:00", kappa=0.7)
    write_record(new, tmp_path)
    # A copied-in older file under another name must not shadow the newer one.
    (tmp_path / "argument_equivalence__copy.json").write_text(old.model_dump_json())
    found = find_record(tmp_path, "openai/gpt-4o-mini", "argument_equivalence", "a" * 64)
    assert found is not None and found.kappa == 0.7


def test_read_record_rejects_garbage(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text('{"model": "m"}')
    with pytest.raises(ConfigError, match="not a calibration record"):
        read_record(path)


def test_check_floor() -> None:
    record = _record(kappa=0.7, kappa_ci=(0.55, 0.85))
    assert check_floor(record, None) is None
    assert check_floor(None, None) is None
    assert check_floor(record, 0.5) is None
    reason = check_floor(record, 0.6)
    assert reason is not None and "0.550" in reason and "0.60" in reason
    assert "argument_equivalence judge openai/gpt-4o-mini" in reason
    missing = check_floor(None, 0.4)
    assert missing is not None and "no calibration record" in missing
    undefined = check_floor(record.model_copy(update={"kappa_ci": None}), 0.4)
    assert undefined is not None and "undefined" in undefined


def test_a_judge_that_left_most_of_its_set_unscored_cannot_pass_a_floor() -> None:
    # 3 answered (and right) of 20: a fine interval over the few it chose to answer.
    record = _record(kappa=1.0, kappa_ci=(0.9, 1.0)).model_copy(
        update={"observations": 3, "unscored": 17}
    )
    reason = check_floor(record, 0.4)
    assert reason is not None and "17 of 20 verdicts" in reason and "0.40" in reason
    assert check_floor(record, None) is None  # no floor, nothing refused
    half = record.model_copy(update={"observations": 10, "unscored": 10})
    assert check_floor(half, 0.4) is None  # at most half unscored: the interval decides


def test_summary_for_run() -> None:
    record = _record()
    short = summary_for_run(record)
    assert short is not None
    assert short["kappa"] == record.kappa and short["n"] == 20
    assert short["kappa_ci"] == list(record.kappa_ci or [])
    # Where the interval was measured, for a run that judges at another cut.
    fitted = record.model_copy(update={"mode": "logprob", "threshold": 0.5,
                                       "fitted_threshold": 0.41, "holdout_kappa": 0.58})
    short = summary_for_run(fitted)
    assert short is not None
    assert (short["mode"], short["threshold"], short["fitted_threshold"]) == ("logprob", 0.5, 0.41)
    assert short["holdout_kappa"] == 0.58
    assert summary_for_run(None) is None


def test_calibration_dir_precedence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(CALIBRATION_DIR_ENV, str(tmp_path / "env"))
    assert calibration_dir(tmp_path / "cfg") == tmp_path / "cfg"
    assert calibration_dir(None) == tmp_path / "env"
    monkeypatch.delenv(CALIBRATION_DIR_ENV)
    assert calibration_dir(None) == Path.home() / ".cache" / "toolgrade" / "calibration"


def test_a_run_judging_as_fitted_is_held_to_the_cross_validated_interval() -> None:
    from toolgrade.calibration.records import judges_as_fitted
    from toolgrade.models import Combination

    combination = Combination(features=["model_logit"], weights=[1.0], bias=0.0)
    record = _record(kappa_ci=(0.05, 0.3)).model_copy(update={
        "cv_threshold": 0.4, "cv_kappa": 0.6, "cv_kappa_ci": (0.45, 0.75),
        "combination": combination})
    assert judges_as_fitted(record, 0.4, combination)
    assert not judges_as_fitted(record, 0.5, combination)
    assert not judges_as_fitted(record, 0.4, None)
    assert check_floor(record, 0.4, fitted=True) is None
    unfitted = check_floor(record, 0.4)
    assert unfitted is not None and "kappa 95% CI lower bound 0.050" in unfitted
    strict = check_floor(record, 0.5, fitted=True)
    assert strict is not None and "cross-validated kappa 95% CI lower bound 0.450" in strict


def test_a_version_1_record_still_loads_with_no_band(tmp_path: Path) -> None:
    import json

    from toolgrade.calibration.records import RECORD_SCHEMA_VERSION, read_record

    data = json.loads(_record().model_dump_json())
    data["schema_version"] = 1
    for key in ("band", "band_target_kappa", "band_bound", "cv_coverage", "cv_decided_kappa",
                "cv_decided_kappa_ci", "band_levels"):
        data.pop(key)
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    old = read_record(path)
    assert old.schema_version == 1 and RECORD_SCHEMA_VERSION == 2
    assert old.band is None and old.cv_coverage is None and old.band_levels == []


def _banded(**changes: object) -> CalibrationRecord:
    fields: dict[str, object] = {
        "cv_threshold": 0.4, "cv_kappa": 0.5, "cv_kappa_ci": (0.3, 0.7), "band": (0.3, 0.6),
        "band_target_kappa": 0.8, "cv_coverage": 0.55, "cv_decided_kappa": 0.9,
        "cv_decided_kappa_ci": (0.82, 0.97)}
    return _record(**{**fields, **changes})


def test_with_its_band_a_floor_reads_the_cross_validated_decided_kappa() -> None:
    from toolgrade.calibration.records import in_use

    record = _banded()
    figures = in_use(record, fitted=True, band=(0.3, 0.6))
    assert (figures.coverage, figures.decided_kappa_ci, figures.floor_reads) == (
        0.55, (0.82, 0.97), "cv_decided_kappa")
    assert figures.plain_kappa == 0.5 and figures.plain_cut == 0.4
    assert check_floor(record, 0.8, fitted=True, band=(0.3, 0.6)) is None
    refused = check_floor(record, 0.85, fitted=True, band=(0.3, 0.6))
    assert refused is not None and "cross-validated decided kappa 95% CI lower bound 0.820" \
        in refused
    # No band: the plain cross-validated kappa is what the floor reads.
    assert in_use(record, fitted=True).floor_reads == "cv_kappa"


def test_a_band_that_decides_nothing_is_not_refused_by_a_floor() -> None:
    record = _banded(band=(0.0, 1.0), cv_coverage=0.0, cv_decided_kappa=None,
                     cv_decided_kappa_ci=None)
    assert check_floor(record, 0.8, fitted=True, band=(0.0, 1.0)) is None


def test_a_checklist_record_is_named_and_found_apart(tmp_path: Path) -> None:
    single = _record(created_at="2025-01-01T00:00:00+00:00", kappa=0.4)
    listed = _record(created_at="2025-02-01T00:00:00+00:00", kappa=0.8, checklist_hash="c" * 64)
    first, second = write_record(single, tmp_path), write_record(listed, tmp_path)
    assert first != second and second.name.endswith("__checklist.json")
    key = ("openai/gpt-4o-mini", "argument_equivalence", "a" * 64)
    found = find_record(tmp_path, *key, checklist=False)
    assert found is not None and found.kappa == 0.4
    found = find_record(tmp_path, *key, checklist=True)
    assert found is not None and found.kappa == 0.8
    newest = find_record(tmp_path, *key)
    assert newest is not None and newest.kappa == 0.8


def test_a_record_of_the_other_question_form_says_why_it_does_not_apply() -> None:
    listed = _record(checklist_hash="c" * 64)
    assert record_mismatch(listed, "reasoned", None, checklist=True) is None
    assert record_mismatch(listed, "reasoned", None, checklist=False) == (
        "its record was measured with the checklist, this run asks the one question")
    assert record_mismatch(_record(), "reasoned", None, checklist=True) == (
        "its record was measured with the one question, this run asks the checklist")
