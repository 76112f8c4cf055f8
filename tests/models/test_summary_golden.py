"""summary.json, written from the typed `RunSummary`, is byte for byte the golden file.

The golden files were written by the runner before it built a `RunSummary` (the dict it wrote
then), plus the one deliberate addition, `schema_version`; paths are replaced by `{ROOT}` /
`{TMP}`. A change to a figure's name, order or number format fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolgrade.cli.main import app
from toolgrade.models.summary import SUMMARY_SCHEMA_VERSION, RunSummary

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "summaries"
runner = CliRunner()


def _run(suite: Path, runs: Path, out: Path, *flags: str, cwd: Path | None = None) -> str:
    args = ["run", str(suite), str(runs), "--out", str(out), "-q", *flags]
    if cwd is not None:
        args += ["--config", str(cwd / "toolgrade.toml")]
    result = runner.invoke(app, args)
    assert result.exit_code in (0, 1), result.output
    return (out / "summary.json").read_text(encoding="utf-8")


@pytest.mark.parametrize(("name", "suite", "runs"), [
    ("helpdesk", "examples/helpdesk/suite.yaml", "examples/helpdesk/runs"),
    ("otel", "examples/helpdesk/suite.yaml", "examples/otel/exports"),
])
def test_the_examples_write_their_golden_summary(
    tmp_path: Path, name: str, suite: str, runs: str
) -> None:
    written = _run(ROOT / suite, ROOT / runs, tmp_path / "out", "--no-judge")
    expected = (GOLDEN / f"{name}.json").read_text(encoding="utf-8")
    assert written.replace(f"{ROOT}/", "{ROOT}/") == expected


def test_a_judged_run_writes_its_golden_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    example = ROOT / "examples" / "adjudication"
    monkeypatch.chdir(example)  # the scripted judge's path is relative to the example
    written = _run(example / "suite.yaml", example / "runs", tmp_path / "out", cwd=example)
    expected = (GOLDEN / "adjud_judged.json").read_text(encoding="utf-8")
    assert written.replace(f"{ROOT}/", "{ROOT}/") == expected


def test_a_tau2_import_writes_its_golden_summary(tmp_path: Path) -> None:
    from builders_importers import tau2_results
    from toolgrade.importers import import_tau2

    (tmp_path / "tau2.json").write_text(json.dumps(tau2_results()))
    import_tau2(tmp_path / "tau2.json", tmp_path / "suite")
    written = _run(tmp_path / "suite" / "suite.jsonl", tmp_path / "suite" / "runs.jsonl",
                   tmp_path / "out", "--no-judge")
    expected = (GOLDEN / "tau2.json").read_text(encoding="utf-8")
    assert written.replace(str(tmp_path), "{TMP}") == expected


@pytest.mark.parametrize("name", ["helpdesk", "otel", "adjud_judged", "tau2"])
def test_reading_and_writing_a_golden_summary_changes_no_byte(name: str) -> None:
    text = (GOLDEN / f"{name}.json").read_text(encoding="utf-8")
    summary = RunSummary.model_validate(json.loads(text))
    assert summary.schema_version == SUMMARY_SCHEMA_VERSION
    assert summary.to_json_text() == text


def test_a_summary_from_before_schema_version_is_written_back_without_it() -> None:
    data = json.loads((GOLDEN / "tau2.json").read_text(encoding="utf-8"))
    del data["schema_version"]
    summary = RunSummary.model_validate(data)
    assert summary.schema_version == 1
    assert "schema_version" not in summary.to_data()


def test_an_int_written_as_a_figure_stays_an_int() -> None:
    data = json.loads((GOLDEN / "tau2.json").read_text(encoding="utf-8"))
    data["checks"]["ordering"]["efficiency"] = {"refund": 1}
    data["aggregate"]["mean_score"] = 1
    written = RunSummary.model_validate(data).to_json_text()
    assert '"refund": 1\n' in written and '"mean_score": 1\n' in written
