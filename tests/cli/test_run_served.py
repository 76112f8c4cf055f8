"""`toolgrade run` with the judge on a served model: the settings file points litellm at the
stand-in server on loopback, which throttles a fifth of the requests with Retry-After."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolgrade.cli.main import app
from toolgrade.judging.standin import FaultPlan, StandInServer

HELPDESK = Path(__file__).resolve().parents[2] / "examples" / "helpdesk"


def test_a_throttled_server_judges_every_item_within_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copy(HELPDESK / "suite.yaml", tmp_path)
    shutil.copytree(HELPDESK / "runs", tmp_path / "runs")
    monkeypatch.chdir(tmp_path)
    plan = FaultPlan(rate=0.2, kinds=("429", "503"), retry_after="0.05", delay_s=0.02)
    with StandInServer(plan) as server:
        (tmp_path / "toolgrade.toml").write_text(
            f'[judge]\nmodel = "hosted_vllm/judge"\napi_base = "{server.url}"\n'
            "max_in_flight = 2\nuse_cache = false\nrequire_calibration = false\n")
        result = CliRunner().invoke(app, ["run", "suite.yaml", "runs", "--out", "out", "-q"])
    assert result.exit_code == 0, result.output
    judges = json.loads((tmp_path / "out" / "summary.json").read_text())["judges"]
    assert sum(server.faults.values()) >= 5
    assert all((block["unscored"], block["errors"]) == (0, 0) for block in judges.values())
    assert sum(block["calls"] for block in judges.values()) == server.requests
    assert server.max_in_flight <= 2
