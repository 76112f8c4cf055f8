"""A judge asked to decide outcomes must be calibrated. Without a record over the floor it
does not decide and does not stop the run: what it would decide is left unscored, awaiting
adjudication, said in one line. `require_calibration = true` refuses such a run (exit 2, before
any grading or model call); `require_calibration = false` lets it decide, warned once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders_calibration import floor_record
from builders_foundation import steps_run, write_jsonl, write_yaml_suite
from toolgrade.calibration.records import write_record
from toolgrade.cli.main import app

runner = CliRunner()
MODEL = "scripted/script.json"

CASES = """
- id: c1
  input: refund my order
  expected:
    selection: {tools: [lookup_order, refund], judge_alternates: true}
- id: c2
  input: refund my order again
  expected:
    recovery: {faults: [{tool: lookup_order}], judge_quality: true}
"""


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extra: str = "") -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "script.json").write_text(json.dumps(
        {"default": {"reason": "a fine route", "verdict": "pass"}}))
    (tmp_path / "toolgrade.toml").write_text(
        f'[judge]\nmodel = "{MODEL}"\nuse_cache = false\ncalibration_dir = "records"\n{extra}'
        "[judge.dimensions.argument_equivalence]\nenabled = false\n"
        "[judge.dimensions.result_interpretation]\nenabled = false\n")
    write_yaml_suite(tmp_path, CASES)
    write_jsonl(tmp_path / "runs.jsonl", [
        steps_run("c1", ("refund", {"order_id": "A1"})),
        steps_run("c2", ("lookup_order", {"order_id": "A1"}), ("lookup_order", {"order_id": "A1"})),
    ])
    return tmp_path / "records"


def _run() -> tuple[int, str]:
    result = runner.invoke(app, ["run", "suite.yaml", "runs.jsonl", "--out", "o", "-q"])
    return result.exit_code, result.output


def _records(records: Path, low: float) -> None:
    for dimension in ("alternate_route", "recovery_quality"):
        write_record(floor_record(dimension, low=low, model=MODEL), records)


def test_an_uncalibrated_deciding_judge_leaves_its_items_awaiting_adjudication(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(tmp_path, monkeypatch)
    code, output = _run()
    assert code == 0, output
    flat = " ".join(output.split())
    assert flat.count("awaiting adjudication") == 1  # one line, not one per run
    assert "alternate_route, recovery_quality not calibrated over the kappa floor" in flat
    [c1, c2] = [json.loads(x) for x in (tmp_path / "o" / "results.jsonl").read_text().splitlines()]
    selection = c1["checks"]["selection"]
    assert (selection["passed"], selection["status"], selection["adjudicated"]) == (
        False, "unscored", "unscored")
    assert selection["adjudication_reason"].startswith("awaiting adjudication")
    assert c1["aggregate"]["status"] == "unscored"
    # The quality verdict is withheld too; the deterministic recovery outcome stands.
    [quality] = c2["checks"]["recovery"]["judge_recovery"]
    assert quality["verdict"] == "unscored"
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["judges"]["alternate_route"]["calls"] == 0  # no model was asked
    assert summary["judges"]["alternate_route"]["withheld"] == 1
    assert summary["unscored"]["checks"]["selection"]["runs"] == 1
    # `toolgrade adjudicate` lists the route and the quality item it would have decided.
    listed = runner.invoke(app, ["adjudicate", "o", "--json"])
    assert listed.exit_code == 0, listed.output
    groups = json.loads(listed.output)
    [group] = [g for g in groups if "route" in g]
    assert group["route"] == ["refund"] and group["judge"] == {"unscored": 1}
    [item] = [g for g in groups if "route" not in g]
    assert (item["dimension"], item["cases"]) == ("recovery_quality", ["c2"])


def test_require_calibration_refuses_an_uncalibrated_deciding_judge_before_grading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(tmp_path, monkeypatch, extra="require_calibration = true\n")
    code, output = _run()
    assert code == 2
    flat = " ".join(output.split())
    assert ("alternate_route decides outcomes in 1 case(s) (selection.judge_alternates: true: "
            "c1)") in flat
    assert "recovery_quality decides outcomes in 1 case(s) (recovery.judge_quality: true: c2)" \
        in flat
    assert "no calibration record for this model" in flat
    assert f"toolgrade calibrate --dimension alternate_route --model {MODEL}" in flat
    assert "leave [judge] require_calibration unset" in flat
    assert not (tmp_path / "o").exists()  # nothing graded, no model asked


def test_a_record_under_the_default_floor_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _records(_project(tmp_path, monkeypatch, extra="require_calibration = true\n"), low=0.5)
    code, output = _run()
    assert code == 2
    assert "0.500 is under the floor 0.60" in " ".join(output.split())


def test_a_users_calibrated_record_lets_the_judge_decide(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _records(_project(tmp_path, monkeypatch), low=0.7)
    code, output = _run()
    assert code == 0, output
    [c1, c2] = [json.loads(x) for x in (tmp_path / "o" / "results.jsonl").read_text().splitlines()]
    assert c1["checks"]["selection"]["passed"] is True
    assert c1["checks"]["selection"]["adjudicated"] == "pass"
    assert (c2["checks"]["recovery"]["passed"], c2["checks"]["recovery"]["adjudicated"]) == (
        True, "pass")
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["judges"]["alternate_route"]["calibration"]["kappa_ci"] == [0.7, 0.9]


def test_a_configured_floor_replaces_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _records(_project(tmp_path, monkeypatch, extra="kappa_floor = 0.4\n"), low=0.5)
    code, output = _run()
    assert code == 0, output


def test_opting_out_is_warned_once_and_the_judge_decides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(tmp_path, monkeypatch, extra="require_calibration = false\n")
    code, output = _run()
    assert code == 0, output
    assert output.count("require_calibration = false") == 1
    assert "alternate_route, recovery_quality decide(s) outcomes" in " ".join(output.split())
    [c1, _] = [json.loads(x) for x in (tmp_path / "o" / "results.jsonl").read_text().splitlines()]
    assert c1["checks"]["selection"]["passed"] is True


def test_without_a_judge_nothing_is_refused_and_nothing_passes_by_judgement(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(tmp_path, monkeypatch)
    result = runner.invoke(app, ["run", "suite.yaml", "runs.jsonl", "--out", "o", "-q",
                                 "--no-judge"])
    assert result.exit_code == 0, result.output
    [c1, _] = [json.loads(x) for x in (tmp_path / "o" / "results.jsonl").read_text().splitlines()]
    assert c1["checks"]["selection"]["passed"] is False
    assert c1["checks"]["selection"]["adjudicated"] == "unscored"
