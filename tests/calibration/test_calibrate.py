"""The calibrate run: shipped sets, end-to-end figures, unscored handling, repeats, fitting."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from builders_calibration import by_id, flip_on_hard, inputs_for, make_item, write_set
from toolgrade.calibration.agreement import best_threshold, stratified_folds
from toolgrade.calibration.calibrate import (
    CalibrationError,
    calibrate,
    human_kappa,
    load_set,
    parse_set,
)
from toolgrade.errors import InputError
from toolgrade.models import JUDGE_DIMENSIONS, JUDGE_INPUTS, JudgeDimension, JudgeRequest, Verdict


def _kappa(a: int, b: int, c: int, d: int) -> float:
    """Cohen's kappa written out by hand, independent of the module under test."""
    n = a + b + c + d
    p_o = (a + d) / n
    p_e = ((a + b) * (a + c) + (c + d) * (b + d)) / n**2
    return (p_o - p_e) / (1 - p_e)


# --- the shipped sets ----------------------------------------------------------------------------


@pytest.mark.parametrize("dimension", JUDGE_DIMENSIONS)
def test_shipped_set_is_well_formed(dimension: JudgeDimension) -> None:
    loaded = load_set(None, dimension)
    items = loaded.items
    passes = sum(it.label == "pass" for it in items)
    assert len(items) >= 80
    assert passes >= 30 and len(items) - passes >= 30
    assert all(set(it.inputs) == set(JUDGE_INPUTS[dimension]) for it in items)
    assert "by construction" in loaded.provenance["method"]
    assert loaded.provenance["dimension"] == dimension
    hard = [it for it in items if "hard" in it.tags]
    injection = [it for it in items if "injection" in it.tags]
    assert len(hard) >= 30
    assert len(injection) >= 4 and all(it.label == "fail" for it in injection)
    assert all(("easy" in it.tags) != ("hard" in it.tags) for it in items)
    annotated = [it for it in items if len(it.labels) >= 2]
    assert len(annotated) >= 20
    assert human_kappa(items)[1] == len(annotated)


@pytest.mark.parametrize("dimension", JUDGE_DIMENSIONS)
def test_calibrate_end_to_end_on_shipped_set(dimension: JudgeDimension) -> None:
    loaded = load_set(None, dimension)
    items = loaded.items
    judge = flip_on_hard(items)
    record = calibrate(items, judge, dimension=dimension, model="fake", set_sha256=loaded.sha256)

    # By hand: the judge is right on easy items and wrong on hard ones.
    easy_pass = sum(it.label == "pass" and "hard" not in it.tags for it in items)
    hard_pass = sum(it.label == "pass" and "hard" in it.tags for it in items)
    easy_fail = sum(it.label == "fail" and "hard" not in it.tags for it in items)
    hard_fail = sum(it.label == "fail" and "hard" in it.tags for it in items)
    a, b, c, d = easy_pass, hard_pass, hard_fail, easy_fail
    n = len(items)
    assert record.confusion == {
        "human_pass": {"judge_pass": a, "judge_fail": b},
        "human_fail": {"judge_pass": c, "judge_fail": d},
    }
    assert record.n == n and record.observations == n and record.unscored == 0
    assert record.agreement == pytest.approx((a + d) / n)
    assert record.kappa == pytest.approx(_kappa(a, b, c, d))
    assert record.human_pass_rate == pytest.approx((a + b) / n)
    assert record.judge_pass_rate == pytest.approx((a + c) / n)
    assert record.catch_rate == pytest.approx(d / (c + d))
    assert record.false_pass_rate == pytest.approx(c / (c + d))
    assert record.kappa_ci is not None and record.kappa_ci[0] <= record.kappa <= record.kappa_ci[1]
    assert record.per_tag["hard"].agreement == 0.0
    assert record.per_tag["easy"].agreement == 1.0
    assert record.per_tag["injection"].catch_rate == 0.0  # every injection item is hard
    assert record.flip_rate is None  # one repeat: nothing to compare
    assert len(record.disagreements) == b + c
    assert len(judge.requests) == n


def test_figures_on_a_small_hand_computed_set() -> None:
    items = [make_item(i, "pass", tags=["t1"]) for i in range(6)]
    items += [make_item(i, "fail", tags=["t1" if i < 8 else "t2"]) for i in range(6, 10)]
    verdicts = {f"it-{i}": "pass" for i in range(5)} | {"it-5": "fail"}
    verdicts |= {"it-6": "pass", "it-7": "fail", "it-8": "fail", "it-9": "fail"}
    record = calibrate(
        items, by_id(verdicts), dimension="argument_equivalence", model="m", set_sha256="0" * 64
    )
    # a=5, b=1, c=1, d=3; p_o = 0.8; p_e = (6*6 + 4*4)/100 = 0.52; kappa = 0.28/0.48
    assert record.kappa == pytest.approx(0.28 / 0.48)
    assert record.agreement == pytest.approx(0.8)
    # AC1: pi_pass = (6 + 6)/20 = 0.6, p_e = 2*0.6*0.4 = 0.48 -> 0.32/0.52
    assert record.ac1 == pytest.approx(0.32 / 0.52)
    assert record.catch_rate == pytest.approx(0.75)
    assert record.false_fail_rate == pytest.approx(1 / 6)
    assert record.per_tag["t2"].n == 2 and record.per_tag["t2"].catch_rate == 1.0
    assert record.per_tag["t2"].kappa is None  # only fails in that tag: undefined
    assert record.template_hash == "tmpl-1"
    # Degenerate resamples need all 10 draws from the 5 pass/pass items (p = 0.5**10 each):
    # a handful in 2000, dropped from the percentiles.
    assert record.bootstrap["resamples"] == 2000 and record.bootstrap["seed"] == 0
    assert 0 < record.bootstrap["degenerate"] < 20


def test_unscored_and_crashing_calls_are_counted_and_excluded() -> None:
    items = [make_item(i, "pass" if i < 5 else "fail") for i in range(10)]
    answers = {f"it-{i}": ("pass" if i < 5 else "fail") for i in range(10)}
    answers["it-1"] = "unscored"

    def answer(request: JudgeRequest) -> Verdict:
        if "it-7:" in str(request.inputs["task"]):
            raise RuntimeError("model server went away")
        return by_id(answers).answer(request)

    from builders_calibration import ScriptedJudge

    record = calibrate(
        items,
        ScriptedJudge(answer),
        dimension="argument_equivalence",
        model="m",
        set_sha256="0" * 64,
    )
    assert record.unscored == 2 and record.errors == 1
    assert record.observations == 8
    assert record.kappa == pytest.approx(1.0)  # the scored ones all agree
    assert record.n == 10


def test_repeats_measure_flips_with_a_fresh_judge_per_repeat() -> None:
    items = [make_item(i, "pass" if i % 2 else "fail") for i in range(8)]
    first = {f"it-{i}": ("pass" if i % 2 else "fail") for i in range(8)}
    second = dict(first, **{"it-0": "pass", "it-3": "fail"})  # two items flip
    made: list[int] = []

    def factory():  # type: ignore[no-untyped-def]
        made.append(1)
        return by_id(second)

    record = calibrate(
        items,
        by_id(first),
        dimension="argument_equivalence",
        model="m",
        set_sha256="0" * 64,
        repeats=2,
        judge_factory=factory,
    )
    assert made == [1]
    assert record.flip_rate == pytest.approx(2 / 8) and record.flipped == 2
    assert record.observations == 16
    # pooled observations: a=4+3, b=0+1, c=0+1, d=4+3
    assert record.kappa == pytest.approx(_kappa(7, 1, 1, 7))


def test_progress_is_reported_per_call() -> None:
    items = [make_item(i, "pass" if i < 2 else "fail") for i in range(4)]
    seen: list[tuple[int, int]] = []
    calibrate(
        items,
        by_id({f"it-{i}": "pass" for i in range(4)}),
        dimension="argument_equivalence",
        model="m",
        set_sha256="0" * 64,
        repeats=2,
        progress=lambda d, t: seen.append((d, t)),
    )
    assert seen == [(i, 8) for i in range(1, 9)]


def test_fit_threshold_on_synthetic_p_pass() -> None:
    # Passes score 0.30-0.49, fails 0.00-0.19: the 0.5 default calls everything fail.
    items = [make_item(i, "pass") for i in range(20)] + [
        make_item(i, "fail") for i in range(20, 40)
    ]
    p = {f"it-{i}": 0.30 + i * 0.01 for i in range(20)} | {
        f"it-{i}": (i - 20) * 0.01 for i in range(20, 40)
    }
    verdicts = {k: ("pass" if v >= 0.5 else "fail") for k, v in p.items()}
    record = calibrate(
        items,
        by_id(verdicts, p),
        dimension="alternate_route",
        model="m",
        set_sha256="0" * 64,
        fit_threshold=True,
        threshold=0.5,
    )
    assert record.kappa == pytest.approx(0.0)
    assert record.fitted_threshold is not None and 0.19 < record.fitted_threshold <= 0.30
    assert record.fit_split_kappa == pytest.approx(1.0)
    assert record.holdout_kappa == pytest.approx(1.0)
    assert record.threshold == 0.5
    # Separable scores: every fold's cut, fitted without the fold, still separates it.
    assert record.cv_folds == 5 and record.cv_kappa == pytest.approx(1.0)
    assert record.cv_threshold is not None and 0.19 < record.cv_threshold <= 0.30
    assert record.cv_kappa_ci == (pytest.approx(1.0), pytest.approx(1.0))


def test_cross_validated_kappa_is_not_in_sample() -> None:
    # P(pass) carries no signal: a cut fitted on all items finds some kappa by chance, but the
    # out-of-fold verdicts (each judged at a cut fitted without it) do not keep it.
    rng = random.Random(7)
    items = [make_item(i, "pass" if i % 2 else "fail") for i in range(60)]
    p = {f"it-{i}": rng.random() for i in range(60)}
    record = calibrate(
        items, by_id({k: "fail" for k in p}, p), dimension="recovery_quality", model="m",
        set_sha256="0" * 64, fit_threshold=True,
    )
    _, in_sample = best_threshold([it.label == "pass" for it in items], list(p.values()))
    assert in_sample is not None and record.cv_kappa is not None
    assert record.cv_kappa < in_sample - 0.2
    assert record.cv_kappa_ci is not None and record.cv_kappa_ci[0] < 0.0


def test_stratified_folds_cover_every_item_once_with_the_label_mix() -> None:
    labels = [i % 3 == 0 for i in range(31)]
    folds = stratified_folds(labels, 5, seed=1)
    assert sorted(i for fold in folds for i in fold) == list(range(31))
    assert all(abs(sum(labels[i] for i in fold) - sum(labels) / 5) <= 1 for fold in folds)
    assert folds == stratified_folds(labels, 5, seed=1)


def test_fit_threshold_needs_p_pass() -> None:
    items = [make_item(i, "pass" if i < 3 else "fail") for i in range(6)]
    with pytest.raises(CalibrationError, match="log-probability"):
        calibrate(
            items,
            by_id({f"it-{i}": "pass" for i in range(6)}),
            dimension="argument_equivalence",
            model="m",
            set_sha256="0" * 64,
            fit_threshold=True,
        )


# --- loading errors -------------------------------------------------------------------------------


def _good(n: int, dimension: JudgeDimension = "argument_equivalence") -> dict[str, object]:
    return make_item(n, "pass", dimension=dimension).model_dump()


def test_malformed_set_names_file_line_and_field(tmp_path: Path) -> None:
    bad_key = _good(3)
    bad_key["inputs"] = dict(bad_key["inputs"], extra=1)  # type: ignore[call-overload]
    del bad_key["inputs"]["rubric"]  # type: ignore[attr-defined]
    bad_label = dict(_good(4), label="maybe")
    path = write_set(
        tmp_path / "s.jsonl",
        [
            {"_provenance": {"author": "test"}},
            _good(1),
            "{not json",
            bad_key,
            bad_label,
            _good(1),
            "[1, 2]",
        ],
    )
    with pytest.raises(InputError) as caught:
        load_set(path, "argument_equivalence")
    text = str(caught.value)
    assert f"{path}:3: malformed JSON" in text
    assert f"{path}:4: inputs.extra: unknown key for argument_equivalence" in text
    assert f"{path}:4: inputs.rubric: missing" in text
    assert f"{path}:5: label:" in text
    assert f"{path}:6: id: duplicate of line 2" in text
    assert f"{path}:7: expected a JSON object" in text


def test_unknown_dimension_and_empty_set_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unknown dimension"):
        load_set(None, "vibes")
    with pytest.raises(InputError, match="no items"):
        parse_set(b"\n", dimension="argument_equivalence", source="empty.jsonl")
    with pytest.raises(InputError, match="cannot read"):
        load_set(tmp_path / "missing.jsonl", "argument_equivalence")


RQ_LINE = (
    '{"id": "a", "inputs": {"task": 1, "fault": 1, "stage": 1, "transcript": 1}, "label": "pass"}'
)


def test_provenance_must_come_first() -> None:
    data = "\n".join(
        [
            RQ_LINE,
            '{"_provenance": {"author": "late"}}',
        ]
    ).encode()
    with pytest.raises(InputError, match="2: _provenance: must be the first record"):
        parse_set(data, dimension="recovery_quality", source="s.jsonl")


def test_set_hash_is_of_the_bytes() -> None:
    import hashlib

    data = (RQ_LINE + "\n").encode()
    loaded = parse_set(data, dimension="recovery_quality", source="s.jsonl")
    assert loaded.sha256 == hashlib.sha256(data).hexdigest()


def test_human_kappa_ignores_the_constructed_label() -> None:
    items = [
        make_item(1, "pass", labels={"a": "pass", "b": "pass"}),
        make_item(2, "fail", labels={"a": "fail", "b": "fail"}),
        make_item(3, "pass", labels={"a": "fail", "b": "fail"}),  # annotators agree, label differs
        make_item(4, "pass", labels={"a": "pass"}),  # one label: not counted
    ]
    kappa, n = human_kappa(items)
    assert n == 3
    assert kappa == pytest.approx(1.0)


def test_a_set_that_is_not_utf8_is_an_input_error_naming_the_line() -> None:
    # Replacing the bad bytes would judge (and hash) text nobody wrote: report it instead.
    bad = RQ_LINE.replace('"a"', '"caf\xe9"').encode("latin-1")
    data = (RQ_LINE.replace('"a"', '"b"') + "\n").encode() + bad + b"\n"
    with pytest.raises(InputError, match=r"s\.jsonl:2: not UTF-8 text: byte 0xe9"):
        parse_set(data, dimension="recovery_quality", source="s.jsonl")


def test_a_byte_order_mark_is_dropped_like_the_suite_reader_does() -> None:
    data = ("\ufeff" + RQ_LINE + "\n").encode()
    loaded = parse_set(data, dimension="recovery_quality", source="s.jsonl")
    assert [item.id for item in loaded.items] == ["a"]


def test_line_separators_inside_json_strings_do_not_split_an_item() -> None:
    # JSON allows U+2028, U+2029 and NEL raw inside strings (json.dumps(ensure_ascii=False)
    # writes them so); only a newline ends a JSONL record.
    task = "first\u2028second\u2029third\x85fourth"
    line = RQ_LINE.replace('"task": 1', '"task": ' + json.dumps(task, ensure_ascii=False))
    data = (line + "\r\n" + RQ_LINE.replace('"a"', '"b"') + "\n").encode()
    loaded = parse_set(data, dimension="recovery_quality", source="s.jsonl")
    assert [item.id for item in loaded.items] == ["a", "b"]
    assert loaded.items[0].inputs["task"] == task


def test_line_numbers_count_newlines_only() -> None:
    line = RQ_LINE.replace('"task": 1', '"task": "a\u2028b"')
    data = (line + "\n{broken\n").encode()
    with pytest.raises(InputError) as caught:
        parse_set(data, dimension="recovery_quality", source="s.jsonl")
    assert [p.line for p in caught.value.problems] == [2]


def test_a_label_written_twice_is_refused_not_read_as_the_last(tmp_path: Path) -> None:
    text = json.dumps(_good(1))[:-1] + ', "label": "fail"}'
    path = write_set(tmp_path / "dup.jsonl", [text])
    with pytest.raises(InputError) as caught:
        load_set(path, "argument_equivalence")
    assert f"{path}:1: not valid JSON: duplicate key 'label'" in str(caught.value)


def test_fit_stores_the_band_fitted_to_the_target_kappa() -> None:
    # Clear items far from the cut, and a coin-flip middle: the band leaves the middle out.
    rng = random.Random(11)
    items, p = [], {}
    for i in range(100):
        label = "pass" if i % 2 else "fail"
        items.append(make_item(i, label))
        if i < 60:
            p[f"it-{i}"] = rng.uniform(0.8, 1.0) if label == "pass" else rng.uniform(0.0, 0.2)
        else:
            p[f"it-{i}"] = rng.uniform(0.4, 0.6)
    record = calibrate(
        items, by_id({k: "fail" for k in p}, p), dimension="argument_equivalence", model="m",
        set_sha256="0" * 64, fit_threshold=True,
    )
    assert record.schema_version == 2
    assert record.band_target_kappa == 0.8 and record.band_bound == "cv_decided_kappa_ci_low"
    assert record.band is not None and record.band[0] < 0.5 < record.band[1]
    assert record.cv_decided_kappa_ci is not None and record.cv_decided_kappa_ci[0] >= 0.8
    assert record.cv_coverage is not None and 0.45 <= record.cv_coverage <= 0.75
    assert record.cv_kappa is not None and record.cv_kappa < 0.8  # the plain kappa at the cut
    assert [level.level for level in record.band_levels][:2] == [1.0, 0.95]


def test_a_target_no_level_reaches_gives_the_band_that_decides_nothing() -> None:
    rng = random.Random(2)
    items = [make_item(i, "pass" if i % 2 else "fail") for i in range(40)]
    p = {f"it-{i}": rng.random() for i in range(40)}
    record = calibrate(
        items, by_id({k: "fail" for k in p}, p), dimension="argument_equivalence", model="m",
        set_sha256="0" * 64, fit_threshold=True, target_kappa=0.8,
    )
    assert record.band == (0.0, 1.0) and record.cv_coverage == 0.0
    assert record.cv_decided_kappa is None


def test_several_sets_load_together_and_an_id_in_two_is_refused(tmp_path: Path) -> None:
    from toolgrade.calibration.calibrate import load_sets

    def line(n: int) -> dict[str, object]:
        return {"id": f"it-{n}", "inputs": inputs_for("argument_equivalence", f"it-{n}"),
                "label": "pass"}

    one = write_set(tmp_path / "one.jsonl", [line(1), line(2)])
    two = write_set(tmp_path / "two.jsonl", [line(3)])
    both = load_sets([one, two], "argument_equivalence")
    assert [i.id for i in both.items] == ["it-1", "it-2", "it-3"]
    assert both.sha256 != load_sets([one], "argument_equivalence").sha256
    clash = write_set(tmp_path / "clash.jsonl", [line(2)])
    with pytest.raises(InputError, match="also in"):
        load_sets([one, clash], "argument_equivalence")
