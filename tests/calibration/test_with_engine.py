"""Calibration through the real judge engine (templates, parsing) with the scripted FakeClient."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from builders_calibration import make_item
from toolgrade.calibration.calibrate import calibrate, load_set
from toolgrade.calibration.records import CALIBRATION_DIR_ENV
from toolgrade.cli import calibrate_cmd
from toolgrade.judging import build_judge
from toolgrade.judging.client import ChatRequest
from toolgrade.judging.scripted import FakeClient, logprob_reply, verdict_json
from toolgrade.judging.settle import settle
from toolgrade.models import JUDGE_DIMENSIONS, JudgeDimension, JudgeRequest, Verdict
from toolgrade.settings import JudgeSettings

SETTINGS = JudgeSettings(model="fake/judge", use_cache=False, max_attempts=1)


@pytest.mark.parametrize("dimension", JUDGE_DIMENSIONS)
def test_every_shipped_set_runs_through_the_engine(dimension: JudgeDimension) -> None:
    loaded = load_set(None, dimension)
    client = FakeClient(lambda request: verdict_json("pass", "looks fine"))
    engine = build_judge(SETTINGS, client=client)
    assert engine is not None
    record = calibrate(
        loaded.items, engine, dimension=dimension, model="fake/judge", set_sha256=loaded.sha256
    )
    n = len(loaded.items)
    fails = sum(it.label == "fail" for it in loaded.items)
    # Items the screen or the evidence settle never reach the (always-pass) model; every one
    # of them is an item labelled fail, so they are the judge's only fails.
    settled = [it for it in loaded.items if settle(dimension, it.inputs, "reasoned")]
    assert settled and all(it.label == "fail" for it in settled)
    assert client.calls == n - len(settled)
    assert record.unscored == 0
    assert record.judge_pass_rate == pytest.approx((n - len(settled)) / n)
    assert record.confusion["human_fail"] == {
        "judge_pass": fails - len(settled), "judge_fail": len(settled)
    }
    assert record.confusion["human_pass"] == {"judge_pass": n - fails, "judge_fail": 0}
    assert record.template_hash is not None
    assert record.mode == "reasoned"  # verdicts without P(pass)


def test_unparseable_replies_end_unscored_and_the_run_completes() -> None:
    loaded = load_set(None, "recovery_quality")
    engine = build_judge(SETTINGS, client=FakeClient(["I think it is fine?"]))
    assert engine is not None
    record = calibrate(
        loaded.items,
        engine,
        dimension="recovery_quality",
        model="fake/judge",
        set_sha256=loaded.sha256,
    )
    settled = [it for it in loaded.items if settle("recovery_quality", it.inputs, "reasoned")]
    assert record.unscored == len(loaded.items) - len(settled)
    assert record.observations == len(settled)  # the screen's fails, all labelled fail
    assert record.confusion["human_pass"] == {"judge_pass": 0, "judge_fail": 0}


def _p_by_marker(p: dict[int, float]):  # type: ignore[no-untyped-def]
    def answer(request: ChatRequest):  # type: ignore[no-untyped-def]
        text = json.dumps(request.messages)
        n = int(re.search(r"it-(\d+):", text).group(1))  # type: ignore[union-attr]
        return logprob_reply(yes=math.log(p[n]), no=math.log(1 - p[n]))

    return answer


def test_fit_threshold_through_the_logprob_engine() -> None:
    items = [make_item(i, "pass") for i in range(16)] + [
        make_item(i, "fail") for i in range(16, 32)
    ]
    p = {i: 0.30 + 0.01 * i for i in range(16)} | {i: 0.05 + 0.01 * (i - 16) for i in range(16, 32)}
    settings = SETTINGS.model_copy(update={"mode": "logprob", "threshold": 0.5})
    engine = build_judge(settings, client=FakeClient(_p_by_marker(p)))
    assert engine is not None
    record = calibrate(
        items,
        engine,
        dimension="argument_equivalence",
        model="fake/judge",
        set_sha256="0" * 64,
        fit_threshold=True,
        threshold=0.5,
    )
    assert record.kappa == pytest.approx(0.0)  # at 0.5 every item is judged fail
    assert record.fitted_threshold is not None and 0.20 < record.fitted_threshold <= 0.30
    assert record.holdout_kappa == pytest.approx(1.0)
    assert record.mode == "logprob"  # the record says how the judge answered


def test_cli_end_to_end_with_build_judge(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(CALIBRATION_DIR_ENV, str(tmp_path / "records"))
    monkeypatch.setattr(
        "toolgrade.judging.factory.LiteLLMClient",
        lambda: FakeClient(lambda request: verdict_json("fail", "scripted")),
    )
    app = typer.Typer()
    app.command("calibrate")(calibrate_cmd.calibrate)
    app.command("noop")(lambda: None)
    out = tmp_path / "ri.json"
    result = CliRunner().invoke(
        app,
        [
            "calibrate",
            "-d",
            "result_interpretation",
            "-m",
            "fake/judge",
            "--out",
            str(out),
            "--cache-dir",
            str(tmp_path / "cache"),
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["model"] == "fake/judge" and data["judge_pass_rate"] == 0.0
    assert data["catch_rate"] == 1.0
    items = load_set(None, "result_interpretation").items
    settled = [it for it in items if settle("result_interpretation", it.inputs, "reasoned")]
    assert f"calls {len(items) - len(settled)}" in result.output
    assert list((tmp_path / "records").glob("result_interpretation__*.json"))


def test_repeats_with_a_memoising_engine_and_no_factory_are_refused() -> None:
    class Memo:
        memoises = True

        def judge(self, request: JudgeRequest) -> Verdict:
            return Verdict(verdict="pass", reason="r")

    items = load_set(None, "alternate_route").items[:3]
    with pytest.raises(ValueError, match="needs judge_factory"):
        calibrate(items, Memo(), dimension="alternate_route", model="m", set_sha256="0" * 64,
                  repeats=2)
    record = calibrate(items, Memo(), dimension="alternate_route", model="m",
                       set_sha256="0" * 64, repeats=2, judge_factory=Memo)
    assert record.observations == 6
