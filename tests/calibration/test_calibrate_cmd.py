"""`toolgrade calibrate` through typer, with a fake judge in place of the engine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner, Result

from builders_calibration import flip_on_hard, write_set
from toolgrade.calibration.calibrate import load_set
from toolgrade.calibration.records import CALIBRATION_DIR_ENV, find_record
from toolgrade.cli import calibrate_cmd
from toolgrade.models import JudgeRequest, Verdict


class _Engine:
    """Stands in for JudgeEngine: judge(), model_for(), usage(), close()."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.closed = False

    def judge(self, request: JudgeRequest) -> Verdict:
        return self.inner.judge(request)  # type: ignore[no-any-return]

    def model_for(self, dimension: str) -> str:
        return "fake/judge"

    def usage(self) -> dict[str, dict[str, int]]:
        return {"alternate_route": {"calls": 1}}

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def app(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> typer.Typer:
    monkeypatch.chdir(tmp_path)  # no toolgrade.toml / pyproject settings from the repo
    monkeypatch.setenv(CALIBRATION_DIR_ENV, str(tmp_path / "records"))
    built: list[_Engine] = []
    items = load_set(None, "alternate_route").items

    def fake_new(self: Any) -> _Engine:
        engine = _Engine(flip_on_hard(items))
        built.append(engine)
        self.engines.append(engine)
        return engine

    monkeypatch.setattr(calibrate_cmd._Judges, "new", fake_new)
    application = typer.Typer()
    application.command("calibrate")(calibrate_cmd.calibrate)
    application.command("noop")(lambda: None)  # two commands, so typer keeps the subcommand name
    application.built = built  # type: ignore[attr-defined]
    return application


def test_calibrate_writes_record_and_prints_summary(app: typer.Typer, tmp_path: Path) -> None:
    out = tmp_path / "out" / "ar.json"
    result = CliRunner().invoke(
        app, ["calibrate", "--dimension", "alternate_route", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "Cohen's kappa" in result.output and "fake/judge" in result.output
    data = json.loads(out.read_text())
    assert data["dimension"] == "alternate_route" and data["n"] == len(_ar_items())
    assert data["model"] == "fake/judge"
    assert find_record(tmp_path / "records", "fake/judge", "alternate_route") is not None
    assert all(engine.closed for engine in app.built)  # type: ignore[attr-defined]


def test_repeats_build_a_fresh_engine_per_repeat(app: typer.Typer, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        ["calibrate", "-d", "alternate_route", "--repeats", "3", "--out", str(tmp_path / "r.json")],
    )
    assert result.exit_code == 0, result.output
    assert len(app.built) == 3  # type: ignore[attr-defined]
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["repeats"] == 3 and data["flip_rate"] == 0.0


def test_unknown_dimension_exits_2(app: typer.Typer) -> None:
    result = CliRunner().invoke(app, ["calibrate", "--dimension", "vibes"])
    assert result.exit_code == 2
    assert "unknown dimension 'vibes'" in result.output


def test_malformed_set_exits_2_naming_the_line(app: typer.Typer, tmp_path: Path) -> None:
    path = write_set(tmp_path / "bad.jsonl", ['{"id": "x", "inputs": {}, "label": "pass"}'])
    result = CliRunner().invoke(
        app, ["calibrate", "--dimension", "alternate_route", "--set", str(path)]
    )
    assert result.exit_code == 2
    assert f"{path}:1: inputs.actual_route: missing" in result.output


def test_fit_threshold_without_p_pass_exits_2(app: typer.Typer) -> None:
    result = CliRunner().invoke(app, ["calibrate", "-d", "alternate_route", "--fit-threshold"])
    assert result.exit_code == 2
    assert "log-probability" in result.output


def test_out_naming_a_folder_exits_2_before_judging(app: typer.Typer, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["calibrate", "-d", "alternate_route", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "is a folder" in result.output
    assert app.built == []  # type: ignore[attr-defined]


class _Down:
    """A judge whose every call failed past its retries, as the engine reports it."""

    def judge(self, request: JudgeRequest) -> Verdict:
        return Verdict.unscored("provider unavailable", error="503 Service Unavailable")


def _rerun_keeps_the_record(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, judge: Any
) -> Result:
    """Calibrate alternate_route with the fake judge, then again with `judge`: the second
    run's result, after checking that it left the first run's record as it was."""
    # The model is named: with none, the embedded judge's shipped record would configure the
    # dimension, and a record that decides nothing is refused before the outage is looked at.
    args = ["calibrate", "-d", "alternate_route", "--model", "fake/judge"]
    good = CliRunner().invoke(app, args)
    assert good.exit_code == 0, good.output
    before = find_record(tmp_path / "records", "fake/judge", "alternate_route")
    assert before is not None and before.observations == len(_ar_items())

    def new(self: Any) -> _Engine:
        engine = _Engine(judge)
        self.engines.append(engine)
        return engine

    monkeypatch.setattr(calibrate_cmd._Judges, "new", new)
    result = CliRunner().invoke(app, args)
    assert find_record(tmp_path / "records", "fake/judge", "alternate_route") == before
    return result


def test_a_run_that_scored_nothing_keeps_the_old_record(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _rerun_keeps_the_record(app, tmp_path, monkeypatch, _Down())
    assert result.exit_code == 1
    n = len(_ar_items())
    assert f"no verdict was scored ({n} unscored, {n} errors); the record was not written" in (
        result.output
    )


def test_judge_settings_apply_model_and_mode_to_the_dimension() -> None:
    from toolgrade.settings import JudgeSettings

    base = JudgeSettings(enabled=False, dimensions={"alternate_route": {"model": "x"}})  # type: ignore[dict-item]
    js = calibrate_cmd._judge_settings(
        base, "alternate_route", model="m", cache_dir=Path("c"), no_cache=True, logprob=True
    )
    dim = js.for_dimension("alternate_route")
    assert js.enabled and not js.use_cache and js.cache_dir == Path("c")
    assert dim.model == "m" and dim.mode == "logprob"
    assert js.for_dimension("recovery_quality").mode == "reasoned"


def test_calibrating_a_dimension_switched_off_in_the_settings_judges_it() -> None:
    from toolgrade.settings import JudgeSettings

    base = JudgeSettings.model_validate({"dimensions": {"alternate_route": {"enabled": False}}})
    js = calibrate_cmd._judge_settings(
        base, "alternate_route", model="m", cache_dir=None, no_cache=True, logprob=False
    )
    assert js.for_dimension("alternate_route").enabled is True


class _MostlyDown:
    """A rate-limited provider: every call failed past its retries but those for `answered`
    (item ids), which got through and were answered right."""

    def __init__(self, labels: dict[str, str], answered: set[str]) -> None:
        self.labels, self.answered = labels, answered
        self.by_inputs = {json.dumps(i.inputs, sort_keys=True): i.id for i in _ar_items()}

    def judge(self, request: JudgeRequest) -> Verdict:
        item = self.by_inputs[json.dumps(request.inputs, sort_keys=True)]
        if item in self.answered:
            return Verdict(verdict=self.labels[item], reason="ok")  # type: ignore[arg-type]
        return Verdict.unscored("the judge model call failed", error="RateLimitError: 429")


def _ar_items() -> list[Any]:
    return load_set(None, "alternate_route").items


def test_a_run_where_most_calls_failed_keeps_the_old_record(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 6 right verdicts out of all give kappa 1.0 [1.0, 1.0]: a rate-limit storm must not replace
    # a measurement with that, nor let it pass a kappa floor.
    labels = {item.id: item.label for item in _ar_items()}
    answered = {i for i, lab in labels.items() if lab == "pass"}
    answered = set(sorted(answered)[:3]) | set(sorted(set(labels) - answered)[:3])
    result = _rerun_keeps_the_record(app, tmp_path, monkeypatch, _MostlyDown(labels, answered))
    assert result.exit_code == 1, result.output
    n = len(labels)
    assert f"{n - 6} of {n} verdicts are model-call errors" in result.output
    assert "the record was not written" in result.output


def test_fit_stores_a_combination_and_prints_its_weights(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    items = {json.dumps(it.inputs, sort_keys=True): it for it in
             load_set(None, "alternate_route").items}

    class _Knowing:
        def judge(self, request: JudgeRequest) -> Verdict:
            item = items[json.dumps(request.inputs, sort_keys=True)]
            p = 0.8 if item.label == "pass" else 0.2
            return Verdict(verdict="pass" if p >= 0.5 else "fail", p_pass=p)

    def fake_new(self: Any) -> _Engine:
        engine = _Engine(_Knowing())
        self.engines.append(engine)
        return engine

    monkeypatch.setattr(calibrate_cmd._Judges, "new", fake_new)
    out = tmp_path / "fit.json"
    result = CliRunner().invoke(app, ["calibrate", "-d", "alternate_route", "--fit",
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "combination (logistic)" in result.output and "model_logit" in result.output
    data = json.loads(out.read_text())
    assert data["combination"]["features"][0] == "model_logit"
    assert "missing_writes" in data["combination"]["features"]
    assert data["cv_kappa"] > 0.9 and data["cv_folds"] == 5
    # A judge that knows every label ranks better than the signals: the model is asked.
    assert data["cv_auc"] == pytest.approx(1.0) and data["signals_cv_auc"] < 0.95
    assert "ranking AUC (cross-validated)" in result.output
    assert calibrate_cmd._auc_line(find_record(tmp_path / "records", "fake/judge",
                                               "alternate_route")).endswith(
        "(at least 0.050: the model is asked)")


def test_the_signals_judge_is_calibrated_without_any_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(CALIBRATION_DIR_ENV, str(tmp_path / "records"))
    application = typer.Typer()
    application.command("calibrate")(calibrate_cmd.calibrate)
    application.command("noop")(lambda: None)
    out = tmp_path / "signals.json"
    result = CliRunner().invoke(application, ["calibrate", "-d", "recovery_quality", "-m",
                                              "signals", "--fit", "--no-cache", "--out",
                                              str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["model"] == "signals" and data["template_hash"] == "signals-v1"
    assert "model_logit" not in data["combination"]["features"]
    assert data["cv_auc"] > 0.7 and data["signals_cv_auc"] is None
    assert find_record(tmp_path / "records", "signals", "recovery_quality") is not None
    assert "judge usage: calls 0" in result.output


def test_fit_judges_with_the_models_own_p_pass() -> None:
    from toolgrade.models import Combination
    from toolgrade.settings import DimensionSettings, JudgeSettings

    combination = Combination(features=["model_logit"], weights=[1.0], bias=0.0)
    base = JudgeSettings(dimensions={"alternate_route": DimensionSettings(
        combination=combination)})
    fitting = calibrate_cmd._judge_settings(base, "alternate_route", model=None, cache_dir=None,
                                            no_cache=False, logprob=True, raw=True)
    measuring = calibrate_cmd._judge_settings(base, "alternate_route", model=None,
                                              cache_dir=None, no_cache=False, logprob=True)
    assert fitting.for_dimension("alternate_route").combination is None
    assert measuring.for_dimension("alternate_route").combination == combination
