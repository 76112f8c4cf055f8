"""summary.json has a type: every written summary validates, and validating changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from toolgrade.cli.main import app
from toolgrade.models.summary import RunSummary

HELPDESK = Path(__file__).resolve().parents[2] / "examples" / "helpdesk"
runner = CliRunner()


@pytest.fixture(scope="module")
def helpdesk_summary(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    out = tmp_path_factory.mktemp("summary") / "out"
    result = runner.invoke(app, ["run", str(HELPDESK / "suite.yaml"), str(HELPDESK / "runs"),
                                 "--no-judge", "--out", str(out), "-q"])
    assert result.exit_code in (0, 1), result.output
    loaded: dict[str, object] = json.loads((out / "summary.json").read_text())
    return loaded


def test_a_written_summary_validates_and_round_trips(helpdesk_summary: dict[str, object]) -> None:
    summary = RunSummary.model_validate(helpdesk_summary)
    assert summary.trajectories == 90 and summary.checks.selection.applicable == 90
    assert summary.checks.selection.per_tool["refund"].tp >= 1
    assert summary.to_data() == helpdesk_summary


def test_an_imported_tau2_summary_validates_too(tmp_path: Path) -> None:
    from builders_importers import tau2_results
    from toolgrade.importers import import_tau2

    results = tmp_path / "tau2.json"
    results.write_text(json.dumps(tau2_results()))
    import_tau2(results, tmp_path / "suite")
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(tmp_path / "suite" / "suite.jsonl"),
                                 str(tmp_path / "suite" / "runs.jsonl"), "--no-judge",
                                 "--out", str(out), "-q"])
    assert result.exit_code in (0, 1), result.output
    written = json.loads((out / "summary.json").read_text())
    summary = RunSummary.model_validate(written)
    assert summary.trajectories == 3
    assert summary.to_data() == written


def test_schema_summary_prints_a_schema_the_written_summary_meets(
    helpdesk_summary: dict[str, object],
) -> None:
    result = runner.invoke(app, ["schema", "--summary"])
    assert result.exit_code == 0
    schema = json.loads(result.output)
    assert schema["title"].startswith("toolgrade summary.json")
    validator = jsonschema.Draft202012Validator(schema)
    assert list(validator.iter_errors(helpdesk_summary)) == []
    assert not validator.is_valid({**helpdesk_summary, "failures": {"no_such_failure": 1}})
