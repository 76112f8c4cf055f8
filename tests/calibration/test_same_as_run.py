"""`calibrate` with no settings measures the judge `run` uses: one configuration, one verdict."""

from __future__ import annotations

import math

import pytest

from builders_judging import no_sleep, request_for
from toolgrade.calibration.records import CalibrationRecord
from toolgrade.cli import calibrate_cmd
from toolgrade.judging import factory
from toolgrade.judging.defaults import configured
from toolgrade.judging.judge import JudgeEngine
from toolgrade.judging.local import LOCAL_MODEL
from toolgrade.judging.scripted import FakeClient, logprob_reply
from toolgrade.models import JUDGE_DIMENSIONS, Combination, JudgeDimension
from toolgrade.settings import JudgeSettings

COMBINATION = Combination(features=["model_logit"], weights=[1.5], bias=-0.2)


def _record(dimension: str) -> CalibrationRecord:
    return CalibrationRecord.model_validate({
        "model": LOCAL_MODEL, "dimension": dimension, "set_sha256": "0" * 64, "n": 90,
        "observations": 90, "unscored": 0, "human_pass_rate": 0.5, "judge_pass_rate": 0.5,
        "confusion": {}, "agreement": 0.7, "kappa": 0.4, "kappa_ci": (0.3, 0.5), "ac1": 0.4,
        "catch_rate": 0.7, "false_pass_rate": 0.3, "flip_rate": None, "mode": "logprob",
        "cv_threshold": 0.41, "cv_kappa": 0.45, "cv_kappa_ci": (0.3, 0.6),
        "combination": COMBINATION.model_dump(), "band": (0.3, 0.6), "band_target_kappa": 0.8,
        "band_bound": "cv_decided_kappa_ci_low", "cv_coverage": 0.55,
        "cv_decided_kappa": 0.88, "cv_decided_kappa_ci": (0.8, 0.95),
        "created_at": "2026-12-05T00:00:00+00:00",
    })


def _find(model: str, dimension: JudgeDimension) -> CalibrationRecord:
    return _record(dimension)


def _verdict(settings: JudgeSettings, dimension: JudgeDimension, p_pass: float) -> object:
    client = FakeClient([logprob_reply(yes=math.log(p_pass), no=math.log(1 - p_pass))])
    engine = JudgeEngine(settings.model_copy(update={"use_cache": False}), client,
                         models=dict.fromkeys(JUDGE_DIMENSIONS, LOCAL_MODEL), sleep=no_sleep,
                         presettle=None)
    verdict = engine.judge(request_for(dimension))
    return verdict.verdict, verdict.reason, verdict.p_pass


@pytest.mark.parametrize("dimension", JUDGE_DIMENSIONS)
def test_calibrate_and_run_judge_an_item_identically_with_no_settings(
    dimension: JudgeDimension, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(factory, "_local_model", lambda: LOCAL_MODEL)
    run = configured(JudgeSettings(), find=_find)
    calibrating = calibrate_cmd._judge_settings(
        JudgeSettings(), dimension, model=None, cache_dir=None, no_cache=True, logprob=False,
        find=_find)
    ran, measured = run.for_dimension(dimension), calibrating.for_dimension(dimension)
    for key in ("mode", "threshold", "combination", "band", "enabled"):
        assert getattr(measured, key) == getattr(ran, key), key
    assert (ran.mode, ran.threshold, ran.band) == ("logprob", 0.41, (0.3, 0.6))
    for p_pass in (0.05, 0.45, 0.95):  # fail, uncertain, pass
        assert _verdict(calibrating, dimension, p_pass) == _verdict(run, dimension, p_pass)
    assert _verdict(run, dimension, 0.45)[0] == "unscored"


def test_run_and_the_plugin_build_their_judges_through_the_same_function(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from toolgrade.composition.judges import setup_judges
    from toolgrade.judging import defaults
    from toolgrade.settings import Settings

    seen: list[JudgeSettings] = []

    def spy(settings: JudgeSettings, notify: object = None, find: object = None) -> JudgeSettings:
        seen.append(settings)
        return configured(settings, find=_find)

    monkeypatch.setattr(defaults, "configured", spy)
    monkeypatch.setattr(factory, "_local_model", lambda: LOCAL_MODEL)
    monkeypatch.setattr(factory, "_local_module", lambda: None)  # no runtime: nothing loads
    setup = setup_judges(Settings(judge=JudgeSettings(use_cache=False)), notify=lambda m: None)
    assert len(seen) == 1  # `run` (and the pytest plugin, which calls setup_judges)
    used = setup.settings.for_dimension("alternate_route")
    assert (used.mode, used.threshold, used.band) == ("logprob", 0.41, (0.3, 0.6))


@pytest.mark.parametrize(("dimension", "message"), [
    ("alternate_route", "needs fitted weights"),
    ("argument_equivalence", "has no deterministic signals"),
])
def test_run_refuses_a_signals_judge_it_cannot_weigh(monkeypatch: pytest.MonkeyPatch,
                                                     dimension: str, message: str) -> None:
    from toolgrade.composition.judges import setup_judges
    from toolgrade.errors import ConfigError
    from toolgrade.judging import defaults
    from toolgrade.settings import DimensionSettings, Settings

    # No record anywhere: nothing fills the weights in.
    monkeypatch.setattr(defaults, "configured", lambda settings, notify=None: settings)
    table = {dimension: DimensionSettings(model="signals")}
    settings = Settings(judge=JudgeSettings(model="openai/gpt-4o", use_cache=False,
                                            dimensions=table))
    with pytest.raises(ConfigError, match=message):
        setup_judges(settings, notify=lambda m: None)


def test_run_follows_the_shipped_signals_record_when_the_settings_name_that_judge() -> None:
    from toolgrade.composition.judges import setup_judges
    from toolgrade.settings import DimensionSettings, Settings

    table = {"recovery_quality": DimensionSettings(model="signals")}
    settings = Settings(judge=JudgeSettings(model="openai/gpt-4o", use_cache=False,
                                            dimensions=table))
    setup = setup_judges(settings, notify=lambda m: None)
    used = setup.settings.for_dimension("recovery_quality")
    assert used.combination is not None and "model_logit" not in used.combination.features
    verdict = setup.engine.judge(request_for("recovery_quality"))  # type: ignore[union-attr]
    assert verdict.model == "signals"
    assert setup.calibration["recovery_quality"] is not None  # its record is shown
