"""results.jsonl has a type: every line of the examples validates, keeping every value."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from toolgrade.cli.main import app
from toolgrade.models.result_line import ResultLine

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


@pytest.fixture(scope="module")
def helpdesk_lines(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, object]]:
    out = tmp_path_factory.mktemp("results") / "out"
    example = ROOT / "examples" / "helpdesk"
    result = runner.invoke(app, ["run", str(example / "suite.yaml"), str(example / "runs"),
                                 "--no-judge", "--out", str(out), "-q"])
    assert result.exit_code in (0, 1), result.output
    lines = (out / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_every_written_line_validates_and_keeps_its_values(
    helpdesk_lines: list[dict[str, object]],
) -> None:
    for data in helpdesk_lines:
        line = ResultLine.model_validate(data)
        assert line.model_dump(mode="json", exclude_unset=True) == data
    first = ResultLine.model_validate(helpdesk_lines[0])
    assert first.checks.selection is not None and first.checks.selection.tp is not None


def test_schema_results_prints_a_schema_every_line_meets(
    helpdesk_lines: list[dict[str, object]],
) -> None:
    result = runner.invoke(app, ["schema", "--results"])
    assert result.exit_code == 0
    schema = json.loads(result.output)
    assert schema["title"].startswith("toolgrade results.jsonl line")
    validator = jsonschema.Draft202012Validator(schema)
    assert all(validator.is_valid(line) for line in helpdesk_lines)
    broken = json.loads(json.dumps(helpdesk_lines[0]))
    broken["checks"]["selection"]["tp"] = "three"
    assert not validator.is_valid(broken)
