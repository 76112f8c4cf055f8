"""Escalation of a deciding dimension (alternate_route) on examples/adjudication: the parcel
route the first judge could not parse is decided by the escalation judge, with a warning that it
is uncalibrated (require_calibration = false lets it decide)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders_adjudication import copy_example
from toolgrade.cli.main import app


def test_an_uncalibrated_escalation_judge_decides_a_route_only_when_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = copy_example(tmp_path)
    monkeypatch.chdir(folder)
    monkeypatch.setenv("TOOLGRADE_CALIBRATION_DIR", str(tmp_path / "records"))
    (folder / "escalation.json").write_text(json.dumps({"rules": [], "default": {
        "reason": "tracking answers where a parcel is", "verdict": "pass"}}))
    config = folder / "toolgrade.toml"
    config.write_text(config.read_text().replace(
        "[judge]\n", '[judge]\nescalate_to = "scripted/escalation.json"\n'))
    result = CliRunner().invoke(app, ["run", "suite.yaml", "runs", "--out", "out"])
    assert result.exit_code == 0, result.output
    assert "escalation judge scripted/escalation.json decides alternate_route outcomes" \
        in result.output
    judges = json.loads((folder / "out" / "summary.json").read_text())["judges"]
    items = judges["alternate_route"]["items"]
    assert items["escalated"] == 2 and items["left_for_people"] == 0
    assert judges["alternate_route"]["escalation"]["calls"] == 1  # the parcel route, once
    adjudicated = json.loads((folder / "out" / "summary.json").read_text())["adjudication"]
    assert adjudicated["selection"]["judge"] == {"pass": 4, "fail": 2, "unscored": 0}
