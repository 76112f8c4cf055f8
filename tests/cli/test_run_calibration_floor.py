"""`toolgrade run` with a kappa floor: refuse an uncalibrated or weak judge (exit 2) before any
grading, and show a calibrated judge's record in summary.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders_calibration import floor_record as _record
from builders_foundation import SIMPLE_CASE, steps_run, write_jsonl, write_yaml_suite
from toolgrade.calibration.records import write_record
from toolgrade.cli.main import app
from toolgrade.models import JUDGE_DIMENSIONS

runner = CliRunner()
MODEL = "openai/never-called"  # the suite has no judge-only field, so no request is made


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    monkeypatch.chdir(tmp_path)
    records = tmp_path / "records"
    (tmp_path / "toolgrade.toml").write_text(
        f'[judge]\nmodel = "{MODEL}"\nkappa_floor = 0.5\ncalibration_dir = "{records}"\n'
        f'cache_dir = "{tmp_path / "cache"}"\n'
    )
    suite = write_yaml_suite(tmp_path, SIMPLE_CASE)
    runs = write_jsonl(
        tmp_path / "runs.jsonl", [steps_run("c1", ("lookup_order", {"order_id": "A1"}))]
    )
    return suite, runs, records


def test_uncalibrated_judge_is_refused_before_grading(
    project: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    suite, runs, _ = project
    result = runner.invoke(app, ["run", str(suite), str(runs), "--out", str(tmp_path / "o"), "-q"])
    assert result.exit_code == 2
    assert "kappa floor" in result.output and "no calibration record" in result.output
    assert not (tmp_path / "o").exists()


def test_weak_judge_is_refused_with_its_figures(
    project: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    suite, runs, records = project
    for dimension in JUDGE_DIMENSIONS:
        write_record(
            _record(dimension, low=0.3 if dimension == "recovery_quality" else 0.6), records
        )
    result = runner.invoke(app, ["run", str(suite), str(runs), "--out", str(tmp_path / "o"), "-q"])
    assert result.exit_code == 2
    assert "recovery_quality" in result.output and "0.300 is under the floor 0.50" in result.output


def test_calibrated_judge_runs_and_its_record_is_reported(
    project: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    suite, runs, records = project
    for dimension in JUDGE_DIMENSIONS:
        write_record(_record(dimension, low=0.6), records)
    result = runner.invoke(app, ["run", str(suite), str(runs), "--out", str(tmp_path / "o"), "-q"])
    assert result.exit_code == 0, result.output
    judges = json.loads((tmp_path / "o" / "summary.json").read_text())["judges"]
    block = judges["argument_equivalence"]
    assert block["model"] == MODEL
    assert block["calibration"]["kappa"] == 0.75
    assert block["calibration"]["kappa_ci"] == [0.6, 0.9]


def test_a_dimension_switched_off_needs_no_record_and_says_off(
    project: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    suite, runs, records = project
    for dimension in JUDGE_DIMENSIONS:
        if dimension != "recovery_quality":
            write_record(_record(dimension, low=0.6), records)
    config = (tmp_path / "toolgrade.toml").read_text()
    config += "\n[judge.dimensions.recovery_quality]\nenabled = false\n"
    (tmp_path / "toolgrade.toml").write_text(config)
    result = runner.invoke(app, ["run", str(suite), str(runs), "--out", str(tmp_path / "o"), "-q"])
    assert result.exit_code == 0, result.output
    judges = json.loads((tmp_path / "o" / "summary.json").read_text())["judges"]
    assert judges["recovery_quality"]["model"] is None
    assert judges["recovery_quality"]["status"] == "off (settings)"
    assert judges["recovery_quality"]["calibration"] is None
    assert judges["argument_equivalence"]["model"] == MODEL


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        # The run judges in the default reasoned mode; this record was measured in logprob mode.
        ({"mode": "logprob"}, "measured in logprob mode, this run judges in reasoned mode"),
        ({"template_hash": "0" * 64}, "another version of the prompt template"),
    ],
)
def test_a_record_of_another_judge_is_neither_shown_nor_trusted(
    project: tuple[Path, Path, Path], tmp_path: Path, change: dict[str, str], reason: str
) -> None:
    suite, runs, records = project
    for dimension in JUDGE_DIMENSIONS:
        write_record(_record(dimension, low=0.6).model_copy(update=change), records)
    result = runner.invoke(app, ["run", str(suite), str(runs), "--out", str(tmp_path / "o"), "-q"])
    assert result.exit_code == 2
    assert reason in result.output


def test_a_users_record_of_another_mode_does_not_hide_one_that_matches(
    project: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    # The user calibrated in logprob mode once, then in reasoned mode: both records are kept
    # (named apart), and a reasoned run finds its own.
    suite, runs, records = project
    for dimension in JUDGE_DIMENSIONS:
        base = _record(dimension, low=0.6)
        write_record(base.model_copy(update={"mode": "reasoned"}), records)
        newer = base.model_copy(update={"mode": "logprob", "kappa_ci": (0.1, 0.9),
                                        "created_at": "2100-01-01T00:00:00+00:00"})
        write_record(newer, records)
    assert len(list(records.iterdir())) == 2 * len(JUDGE_DIMENSIONS)
    result = runner.invoke(app, ["run", str(suite), str(runs), "--out", str(tmp_path / "o"), "-q"])
    assert result.exit_code == 0, result.output
    judges = json.loads((tmp_path / "o" / "summary.json").read_text())["judges"]
    assert judges["argument_equivalence"]["calibration"]["mode"] == "reasoned"


@pytest.mark.parametrize("checklist", [False, True])
def test_single_question_and_checklist_records_are_kept_apart(
    project: tuple[Path, Path, Path], tmp_path: Path, checklist: bool
) -> None:
    # Calibrated with one question, then with the checklist: both records stay (named apart),
    # and a run finds the one of the judge it builds, not merely the newest.
    suite, runs, records = project
    for dimension in JUDGE_DIMENSIONS:
        single = _record(dimension, low=0.6).model_copy(update={"mode": "logprob"})
        write_record(single, records)
        listed = single.model_copy(update={"checklist_hash": "c" * 64, "kappa_ci": (0.55, 0.9),
                                           "created_at": "2100-01-01T00:00:00+00:00"})
        write_record(listed, records)
    assert len(list(records.iterdir())) == 2 * len(JUDGE_DIMENSIONS)
    config = (tmp_path / "toolgrade.toml").read_text().replace(
        "[judge]\n", f'[judge]\nmode = "logprob"\nchecklist = {str(checklist).lower()}\n')
    (tmp_path / "toolgrade.toml").write_text(config)
    result = runner.invoke(app, ["run", str(suite), str(runs), "--out", str(tmp_path / "o"), "-q"])
    assert result.exit_code == 0, result.output
    judges = json.loads((tmp_path / "o" / "summary.json").read_text())["judges"]
    low = judges["argument_equivalence"]["calibration"]["kappa_ci"][0]
    assert low == (0.55 if checklist else 0.6)
