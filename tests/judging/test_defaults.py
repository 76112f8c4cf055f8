"""Defaults that carry the calibration: an unconfigured local-model dimension runs as its shipped
record measured it, and one whose record is under the floor stays off with a reason."""

from __future__ import annotations

from typing import Any

from toolgrade.calibration.records import CalibrationRecord
from toolgrade.judging.defaults import DEFAULT_FLOOR, apply_local_defaults
from toolgrade.judging.local import LOCAL_MODEL
from toolgrade.models import JUDGE_DIMENSIONS, JudgeDimension
from toolgrade.settings import DimensionSettings, JudgeSettings


def record(dimension: str, cv_ci: tuple[float, float] | None, **extra: Any) -> CalibrationRecord:
    """A logprob record with a cross-validated interval `cv_ci` and cut 0.31."""
    fields: dict[str, Any] = {
        "model": LOCAL_MODEL, "dimension": dimension, "set_sha256": "0" * 64, "n": 90,
        "observations": 90, "unscored": 0, "human_pass_rate": 0.5, "judge_pass_rate": 0.5,
        "confusion": {}, "agreement": 0.7, "kappa": 0.4, "kappa_ci": (0.3, 0.5), "ac1": 0.4,
        "catch_rate": 0.7, "false_pass_rate": 0.3, "flip_rate": None, "mode": "logprob",
        "cv_threshold": 0.31, "cv_kappa": 0.45, "cv_kappa_ci": cv_ci,
        "created_at": "2026-12-01T00:00:00+00:00",
    }
    return CalibrationRecord(**{**fields, **extra})


LOCAL: dict[JudgeDimension, str | None] = dict.fromkeys(JUDGE_DIMENSIONS, LOCAL_MODEL)
RECORDS = {
    "argument_equivalence": record("argument_equivalence", (0.45, 0.75)),
    "recovery_quality": record("recovery_quality", (0.05, 0.4)),
    "alternate_route": record("alternate_route", None, kappa_ci=(0.25, 0.6)),
}


def find(model: str, dimension: JudgeDimension) -> CalibrationRecord | None:
    return RECORDS.get(dimension)


def test_no_settings_take_the_records_mode_and_cut_and_switch_off_weak_dimensions() -> None:
    said: list[str] = []
    out = apply_local_defaults(JudgeSettings(), LOCAL, said.append, find)
    ae = out.for_dimension("argument_equivalence")
    assert (ae.mode, ae.threshold, ae.enabled) == ("logprob", 0.31, True)
    # No cross-validated interval: the record's own kappa interval decides (0.25 >= floor).
    assert out.for_dimension("alternate_route").enabled
    rq = out.for_dimension("recovery_quality")
    assert rq.enabled is False and rq.mode == "logprob"
    assert len(said) == 1 and said[0].startswith("recovery_quality: off by default")
    assert f"0.05, under the floor {DEFAULT_FLOOR:.2f}" in said[0]
    # No record at all: left exactly as configured.
    ri = out.for_dimension("result_interpretation")
    assert (ri.mode, ri.threshold, ri.enabled) == ("reasoned", 0.5, True)
    assert "result_interpretation" not in out.dimensions


def test_the_settings_floor_is_the_floor() -> None:
    out = apply_local_defaults(JudgeSettings(kappa_floor=0.5), LOCAL, None, find)
    assert not out.for_dimension("argument_equivalence").enabled  # 0.45 < 0.5


def test_anything_the_user_set_is_kept() -> None:
    top = JudgeSettings(mode="reasoned")
    assert apply_local_defaults(top, LOCAL, None, find) == top
    table = JudgeSettings(dimensions={"recovery_quality": DimensionSettings(enabled=True)})
    out = apply_local_defaults(table, LOCAL, None, find)
    assert out.for_dimension("recovery_quality").enabled is True
    assert out.for_dimension("recovery_quality").mode == "reasoned"
    assert out.for_dimension("argument_equivalence").mode == "logprob"


def test_a_hosted_model_is_left_alone() -> None:
    hosted: dict[JudgeDimension, str | None] = dict.fromkeys(JUDGE_DIMENSIONS, "openai/gpt-4o")
    settings = JudgeSettings(model="openai/gpt-4o")
    assert apply_local_defaults(settings, hosted, None, find) == settings


def test_a_records_combination_becomes_the_default_and_settings_still_override_it() -> None:
    from toolgrade.models import Combination

    combination = Combination(features=["model_logit", "stage_bad"], weights=[0.5, -2.0],
                              bias=0.1)
    records = {"recovery_quality": record("recovery_quality", (0.5, 0.8),
                                          combination=combination)}
    said: list[str] = []
    out = apply_local_defaults(JudgeSettings(), LOCAL, said.append,
                               lambda model, dim: records.get(dim))
    rq = out.for_dimension("recovery_quality")
    assert rq.enabled and rq.combination == combination and rq.threshold == 0.31
    chosen = JudgeSettings(dimensions={"recovery_quality": DimensionSettings(threshold=0.6)})
    kept = apply_local_defaults(chosen, LOCAL, said.append, lambda model, dim: records.get(dim))
    assert kept.for_dimension("recovery_quality").combination is None


def _banded(dimension: str, coverage: float, band: tuple[float, float] | None,
            ci: tuple[float, float] | None) -> CalibrationRecord:
    levels = [
        {"level": 1.0, "band": None, "cv_coverage": 1.0, "cv_decided_kappa": 0.5,
         "cv_decided_kappa_ci": (0.35, 0.65)},
        {"level": 0.6, "band": (0.25, 0.4), "cv_coverage": 0.62, "cv_decided_kappa": 0.75,
         "cv_decided_kappa_ci": (0.62, 0.88)},
        {"level": 0.4, "band": (0.2, 0.5), "cv_coverage": 0.41, "cv_decided_kappa": 0.9,
         "cv_decided_kappa_ci": (0.81, 0.97)},
    ]
    return record(dimension, (0.35, 0.65), band=band, band_target_kappa=0.8,
                  band_bound="cv_decided_kappa_ci_low", cv_coverage=coverage,
                  cv_decided_kappa=None if ci is None else 0.9, cv_decided_kappa_ci=ci,
                  band_levels=levels)


def test_the_records_band_is_applied_and_the_floor_reads_the_decided_kappa() -> None:
    banded = {"argument_equivalence": _banded("argument_equivalence", 0.41, (0.2, 0.5),
                                              (0.81, 0.97)),
              "recovery_quality": _banded("recovery_quality", 0.0, (0.0, 1.0), None)}
    said: list[str] = []
    out = apply_local_defaults(JudgeSettings(kappa_floor=0.7), LOCAL, said.append,
                               lambda m, d: banded.get(d))
    ae = out.for_dimension("argument_equivalence")
    assert (ae.enabled, ae.band, ae.threshold) == (True, (0.2, 0.5), 0.31)
    # Deciding nothing keeps the dimension on: its items go, uncertain, to people.
    rq = out.for_dimension("recovery_quality")
    assert rq.enabled and rq.band == (0.0, 1.0)
    assert said == []


def test_a_target_kappa_in_the_settings_picks_the_records_level() -> None:
    banded = _banded("argument_equivalence", 0.41, (0.2, 0.5), (0.81, 0.97))
    table = DimensionSettings(target_kappa=0.6)
    out = apply_local_defaults(JudgeSettings(dimensions={"argument_equivalence": table}),
                               LOCAL, None, lambda m, d: banded)
    assert out.for_dimension("argument_equivalence").band == (0.25, 0.4)
    harsh = apply_local_defaults(JudgeSettings(target_kappa=0.95), LOCAL, None,
                                 lambda m, d: banded)
    assert harsh.for_dimension("argument_equivalence").band == (0.0, 1.0)


def test_a_band_in_the_settings_wins_over_the_records() -> None:
    banded = _banded("argument_equivalence", 0.41, (0.2, 0.5), (0.81, 0.97))
    table = DimensionSettings(band=(0.1, 0.9))
    out = apply_local_defaults(JudgeSettings(dimensions={"argument_equivalence": table}),
                               LOCAL, None, lambda m, d: banded)
    ae = out.for_dimension("argument_equivalence")
    assert ae.band == (0.1, 0.9) and ae.mode == "logprob"


def test_a_record_measured_on_a_checklist_runs_the_checklist_by_default() -> None:
    listed = record("recovery_quality", (0.45, 0.75), checklist_hash="c" * 64)
    out = apply_local_defaults(JudgeSettings(), LOCAL, None, lambda model, dim: (
        listed if dim == "recovery_quality" else RECORDS.get(dim)))
    assert out.for_dimension("recovery_quality").checklist is True
    assert out.for_dimension("argument_equivalence").checklist is False


def _with_signals(model_auc: float) -> Any:
    """A finder whose local-model record of alternate_route measured `model_auc` against the
    signals' 0.89, beside a fitted signals-judge record."""
    from toolgrade.models import Combination
    from toolgrade.models.combination import SIGNALS_MODEL

    weights = Combination(features=["missing_writes"], weights=[-2.0], bias=1.0)
    model = record("alternate_route", (0.5, 0.8), cv_auc=model_auc, signals_cv_auc=0.89)
    signals = record("alternate_route", (0.5, 0.8), model=SIGNALS_MODEL, combination=weights,
                     cv_threshold=0.4, cv_auc=0.89)

    def find_both(model_name: str, dimension: JudgeDimension) -> CalibrationRecord | None:
        if dimension != "alternate_route":
            return None
        return signals if model_name == SIGNALS_MODEL else model

    return find_both


def test_where_the_model_adds_too_little_the_signals_judge_is_the_default() -> None:
    out = apply_local_defaults(JudgeSettings(), LOCAL, None, _with_signals(0.90))
    ar = out.for_dimension("alternate_route")
    assert (ar.model, ar.mode, ar.threshold) == ("signals", "logprob", 0.4)
    assert ar.combination is not None and ar.combination.features == ["missing_writes"]


def test_where_the_model_adds_enough_it_stays_the_judge() -> None:
    out = apply_local_defaults(JudgeSettings(), LOCAL, None, _with_signals(0.95))
    ar = out.for_dimension("alternate_route")
    assert ar.model is None and ar.threshold == 0.31  # the local model, at its record's cut


def test_settings_that_name_the_model_keep_asking_it() -> None:
    named = JudgeSettings(model=LOCAL_MODEL)
    assert apply_local_defaults(named, LOCAL, None, _with_signals(0.90)).for_dimension(
        "alternate_route").model == LOCAL_MODEL
    table = JudgeSettings(dimensions={"alternate_route": DimensionSettings(model=LOCAL_MODEL)})
    assert apply_local_defaults(table, LOCAL, None, _with_signals(0.90)).for_dimension(
        "alternate_route").model == LOCAL_MODEL


def test_settings_that_name_the_signals_judge_get_its_records_weights() -> None:
    models: dict[JudgeDimension, str | None] = {**LOCAL, "alternate_route": "signals"}
    table = JudgeSettings(dimensions={"alternate_route": DimensionSettings(model="signals")})
    ar = apply_local_defaults(table, models, None, _with_signals(0.99)).for_dimension(
        "alternate_route")
    assert ar.model == "signals" and ar.combination is not None and ar.threshold == 0.4


def test_a_record_measured_with_examples_runs_with_them_unless_the_settings_say() -> None:
    shown = record("recovery_quality", (0.45, 0.75), examples=3, examples_pool_sha256="p" * 64)

    def find(model: str, dim: JudgeDimension) -> CalibrationRecord | None:
        return shown if dim == "recovery_quality" else RECORDS.get(dim)

    out = apply_local_defaults(JudgeSettings(), LOCAL, None, find)
    assert out.for_dimension("recovery_quality").examples == 3
    assert out.for_dimension("argument_equivalence").examples == 0
    chosen = apply_local_defaults(JudgeSettings(examples=1), LOCAL, None, find)
    assert chosen.for_dimension("recovery_quality").examples == 1
    table = {"recovery_quality": DimensionSettings(examples=0)}
    off = apply_local_defaults(JudgeSettings(dimensions=table), LOCAL, None, find)
    assert off.for_dimension("recovery_quality").examples == 0


def test_a_teams_own_signals_record_is_followed_before_the_shipped_one(
    tmp_path: Any, monkeypatch: Any
) -> None:
    from toolgrade.calibration.records import (
        CALIBRATION_DIR_ENV,
        find_record,
        shipped_records_dir,
        write_record,
    )

    shipped = find_record(shipped_records_dir(), "signals", "recovery_quality")
    assert shipped is not None
    own = shipped.model_copy(update={"cv_threshold": 0.123})
    write_record(own, tmp_path)
    monkeypatch.setenv(CALIBRATION_DIR_ENV, str(tmp_path))
    models: dict[JudgeDimension, str | None] = {**LOCAL, "recovery_quality": "signals"}
    table = JudgeSettings(dimensions={"recovery_quality": DimensionSettings(model="signals")})
    used = apply_local_defaults(table, models).for_dimension("recovery_quality")
    assert used.threshold == 0.123
    monkeypatch.setenv(CALIBRATION_DIR_ENV, str(tmp_path / "empty"))
    assert apply_local_defaults(table, models).for_dimension(
        "recovery_quality").threshold == shipped.cv_threshold
