"""`calibrate --fit` on a checklist judge: question answers are features beside the signals."""

from __future__ import annotations

from toolgrade.calibration.calibrate import (
    CalibrationItem,
    ItemOutcome,
    SignalSource,
    fit_combined_threshold,
    summarise,
)
from toolgrade.models import Verdict


def _outcome(n: int, human_pass: bool, telling: float, noise: float) -> ItemOutcome:
    item = CalibrationItem(id=f"i{n}", inputs={"n": n}, label="pass" if human_pass else "fail")
    verdict = Verdict(verdict="pass", p_pass=0.5, answers={"q_telling": telling,
                                                            "q_noise": noise},
                      checklist_hash="c" * 64, template_hash="t" * 64)
    return ItemOutcome(item, [verdict])


def _outcomes() -> list[ItemOutcome]:
    out = []
    for n in range(40):
        human_pass = n % 2 == 0
        telling = 0.9 if human_pass != (n % 10 == 0) else 0.1  # right on 8 items in 10
        out.append(_outcome(n, human_pass, telling, noise=(n * 7 % 10) / 10))
    return out


NO_SIGNALS = SignalSource(signals=lambda inputs: {"stage_bad": 0.0},
                          settled=lambda inputs: False)


def test_the_fit_weighs_each_question_and_the_telling_one_most() -> None:
    fit = fit_combined_threshold(_outcomes(), NO_SIGNALS)
    assert fit.combination is not None
    weights = dict(zip(fit.combination.features, fit.combination.weights, strict=True))
    assert {"q_telling", "q_noise", "stage_bad"} <= set(weights)
    assert weights["q_telling"] > 1.0
    assert abs(weights["q_noise"]) < weights["q_telling"] / 3
    assert fit.cv_kappa is not None and fit.cv_kappa > 0.4


def test_the_record_keeps_the_checklist_hash() -> None:
    record = summarise(_outcomes(), dimension="recovery_quality", model="m",
                       set_sha256="s" * 64, repeats=1)
    assert record.checklist_hash == "c" * 64
    assert record.template_hash == "t" * 64


def test_a_single_question_record_is_written_without_the_field() -> None:
    from toolgrade.calibration.records import record_json

    single = [ItemOutcome(o.item, [Verdict(verdict="pass", p_pass=0.5)]) for o in _outcomes()]
    record = summarise(single, dimension="recovery_quality", model="m", set_sha256="s" * 64,
                       repeats=1)
    assert record.checklist_hash is None
    assert "checklist_hash" not in record_json(record)
