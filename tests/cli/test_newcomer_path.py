"""A newcomer's path: `toolgrade run SUITE RUNS --out DIR` on each shipped example, from a folder
with no settings file, with `--no-judge` and with a judge (a scripted stand-in: no network, no
local model). It never exits 2, and every run that did not pass says why: each check that did
not pass names its failures, its undecided items and their reason, or its crash."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from toolgrade.cli.main import app
from toolgrade.models.status import check_status, unscored_items

runner = CliRunner()
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

#: (suite, runs) of every shipped example; the OTLP exports are the helpdesk agents' traces.
EXAMPLE_INPUTS = {
    "helpdesk": ("helpdesk/suite.yaml", "helpdesk/runs"),
    "adjudication": ("adjudication/suite.yaml", "adjudication/runs"),
    "adjudication-loop": ("adjudication/loop/suite.yaml", "adjudication/loop/runs"),
    "otel": ("helpdesk/suite.yaml", "otel/exports"),
    "mcp": ("mcp/suite.yaml", "mcp/runs"),
}
#: A judge that passes whatever it is asked: the example runs judged, offline.
PASSING_SCRIPT = {"default": {"reason": "scripted: fine", "verdict": "pass"}}
JUDGE_MODES = {
    "no-judge": ["--no-judge"],
    "scripted-judge": ["--judge-model", "scripted/script.json", "--cache-dir", "cache"],
}


def test_every_shipped_example_is_covered() -> None:
    suites = {p.parent.relative_to(EXAMPLES).as_posix() for p in EXAMPLES.rglob("suite.yaml")}
    covered = {Path(suite).parent.as_posix() for suite, _ in EXAMPLE_INPUTS.values()}
    assert suites == covered
    folders = {Path(path).parts[0] for pair in EXAMPLE_INPUTS.values() for path in pair}
    assert {p.name for p in EXAMPLES.iterdir() if p.is_dir()} == folders


def _why(check: str, block: dict[str, Any]) -> list[str]:
    """What a check that did not pass gives as its reason (empty: none given)."""
    state = check_status(check, block)
    if state == "fail":
        return [str(f["name"]) for f in block.get("failures") or [] if f.get("name")]
    if state == "unscored":
        return [item.reason for item in unscored_items(check, block) if item.reason]
    if state == "error":
        return [str(block["error"])] if block.get("error") else []
    return ["passed or not applicable"]


def _unexplained(results: Path) -> list[str]:
    missing = []
    for line in results.read_text().splitlines():
        record = json.loads(line)
        if record["aggregate"]["passed"]:
            continue
        for check, block in record["checks"].items():
            if not _why(check, block):
                missing.append(f"{record['case_id']} {record.get('agent')} {check}")
    return missing


@pytest.mark.parametrize("mode", JUDGE_MODES)
@pytest.mark.parametrize("example", EXAMPLE_INPUTS)
def test_run_on_each_example_exits_0_or_1_and_names_why(
    example: str, mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no toolgrade.toml, no pyproject: the defaults
    (tmp_path / "script.json").write_text(json.dumps(PASSING_SCRIPT))
    suite, runs = (EXAMPLES / part for part in EXAMPLE_INPUTS[example])
    result = runner.invoke(
        app, ["run", str(suite), str(runs), "--out", "out", "-q", *JUDGE_MODES[mode]]
    )
    assert result.exit_code in (0, 1), result.output
    results = tmp_path / "out" / "results.jsonl"
    records = results.read_text().splitlines()
    assert records, "nothing was graded"
    assert _unexplained(results) == []
