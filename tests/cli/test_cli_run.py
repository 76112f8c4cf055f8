"""`toolgrade run`, `validate` and `schema` as a user calls them: outputs and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders_foundation import SIMPLE_CASE, steps_run, write_jsonl, write_yaml_suite
from toolgrade.cli.main import app
from toolgrade.loaders import load_runs

runner = CliRunner()
GOOD = steps_run(
    "c1", ("lookup_order", {"order_id": "A1"}), ("refund", {"order_id": "A1", "amount": 10})
)


@pytest.fixture
def inputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.chdir(tmp_path)  # no toolgrade.toml or pyproject here
    return write_yaml_suite(tmp_path, SIMPLE_CASE), write_jsonl(tmp_path / "runs.jsonl", [GOOD])


def test_run_writes_every_output_and_exits_0(inputs: tuple[Path, Path], tmp_path: Path) -> None:
    suite, runs = inputs
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["run", str(suite), str(runs), "--out", str(out), "--no-judge", "--quiet"]
    )
    assert result.exit_code == 0, result.output
    for name in ("results.jsonl", "summary.json", "report.md", "report.html", "junit.xml"):
        assert (out / name).is_file(), name
    summary = json.loads((out / "summary.json").read_text())
    assert summary["aggregate"]["pass_rate"] == 1.0
    assert summary["gates"] == []
    assert summary["judges"]["argument_equivalence"]["model"] is None


def test_run_keeps_the_graded_runs_for_the_run_views(
    inputs: tuple[Path, Path], tmp_path: Path
) -> None:
    suite, runs = inputs
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(suite), str(runs), "--out", str(out), "--no-judge"])
    assert result.exit_code == 0, result.output
    assert "transcripts.jsonl" in result.output
    assert load_runs([out / "transcripts.jsonl"]) == load_runs([runs])  # a runs file itself
    assert 'class="run-row"' in (out / "report.html").read_text(encoding="utf-8")


def test_bad_run_line_exits_2_names_file_line_key_and_grades_nothing(
    inputs: tuple[Path, Path], tmp_path: Path
) -> None:
    suite, _ = inputs
    runs = write_jsonl(tmp_path / "bad.jsonl", [GOOD, {**GOOD, "trial": 1, "colour": "red"}])
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["run", str(suite), str(runs), "--out", str(out), "--judge-model", "nonexistent/model"]
    )
    assert result.exit_code == 2
    assert f"{runs}:2: colour: unknown key" in result.output
    assert "nothing was graded" in result.output
    assert not out.exists()


def test_bad_suite_exits_2(inputs: tuple[Path, Path], tmp_path: Path) -> None:
    _, runs = inputs
    suite = write_yaml_suite(
        tmp_path, "- id: c1\n  expected: {selection: {tools: refund}}\n", name="bad.yaml"
    )
    result = runner.invoke(
        app, ["run", str(suite), str(runs), "--out", str(tmp_path / "o"), "--no-judge"]
    )
    assert result.exit_code == 2
    assert "cases[0].expected.selection.tools" in result.output


def test_gate_failure_exits_1_with_named_figure(inputs: tuple[Path, Path], tmp_path: Path) -> None:
    suite, runs = inputs
    write_jsonl(runs, [steps_run("c1", ("refund", {"order_id": "A1", "amount": 3}))])
    (tmp_path / "toolgrade.toml").write_text(
        '[gates]\n"selection.f1" = 0.9\n"aggregate.pass_rate" = 0.5\n'
    )
    result = runner.invoke(
        app, ["run", str(suite), str(runs), "--out", str(tmp_path / "o"), "--no-judge", "-q"]
    )
    assert result.exit_code == 1
    assert "gate FAILED: selection.f1 = 0.6667, minimum 0.9" in result.output
    assert "gate FAILED: aggregate.pass_rate = 0, minimum 0.5" in result.output


def test_bad_config_exits_2(inputs: tuple[Path, Path], tmp_path: Path) -> None:
    suite, runs = inputs
    (tmp_path / "toolgrade.toml").write_text('[gates]\n"selection.fone" = 0.9\n')
    result = runner.invoke(
        app, ["run", str(suite), str(runs), "--out", str(tmp_path / "o"), "--no-judge"]
    )
    assert result.exit_code == 2
    assert "selection.fone" in result.output
    (tmp_path / "toolgrade.toml").write_text("[judge]\nmodle = 'x'\n")
    result = runner.invoke(
        app, ["run", str(suite), str(runs), "--out", str(tmp_path / "o"), "--no-judge"]
    )
    assert result.exit_code == 2 and "judge.modle" in result.output


def test_validate(inputs: tuple[Path, Path]) -> None:
    suite, runs = inputs
    result = runner.invoke(app, ["validate", str(suite), str(runs)])
    assert result.exit_code == 0 and "1 cases, 1 runs" in result.output
    result = runner.invoke(app, ["validate", str(suite)])
    assert result.exit_code == 0 and "1 cases" in result.output


def _runs_folder(runs: Path, tmp_path: Path) -> Path:
    """A runs folder holding `runs` (moved there), as users keep their runs."""
    folder = tmp_path / "runs"
    folder.mkdir()
    runs.rename(folder / "runs.jsonl")
    return folder


def test_validate_skips_the_out_folder_inside_a_runs_folder_as_run_does(
    inputs: tuple[Path, Path], tmp_path: Path
) -> None:
    suite, runs = inputs
    folder = _runs_folder(runs, tmp_path)
    out = ["--out", str(folder / "out")]
    graded = runner.invoke(app, ["run", str(suite), str(folder), *out, "--no-judge", "-q"])
    assert graded.exit_code == 0, graded.output
    # A second run is accepted (its own outputs skipped), so validate must accept it too.
    result = runner.invoke(app, ["validate", str(suite), str(folder), *out])
    assert result.exit_code == 0 and "1 runs in 1 file(s)" in result.output, result.output


def test_validate_skips_the_default_out_folder_as_run_does(
    inputs: tuple[Path, Path], tmp_path: Path
) -> None:
    suite, _ = inputs  # the runs file is in the working folder, ./toolgrade-out beside it
    graded = runner.invoke(app, ["run", str(suite), ".", "--no-judge", "-q"])
    assert graded.exit_code == 0 and (tmp_path / "toolgrade-out" / "results.jsonl").is_file()
    rerun = runner.invoke(app, ["run", str(suite), ".", "--no-judge", "-q"])
    result = runner.invoke(app, ["validate", str(suite), "."])
    assert rerun.exit_code == result.exit_code == 0, result.output


def test_validate_refuses_the_settings_run_refuses(
    inputs: tuple[Path, Path], tmp_path: Path
) -> None:
    suite, runs = inputs
    (tmp_path / "toolgrade.toml").write_text('[gates]\n"selektion.f1" = 0.9\n')
    result = runner.invoke(app, ["validate", str(suite), str(runs)])
    rerun = runner.invoke(app, ["run", str(suite), str(runs), "--no-judge", "-q"])
    assert result.exit_code == rerun.exit_code == 2
    assert "unknown gate figure(s): 'selektion.f1'" in result.output


def test_schema_describes_the_case_format() -> None:
    result = runner.invoke(app, ["schema"])
    assert result.exit_code == 0
    schema = json.loads(result.output)
    assert schema["title"] == "toolgrade case"
    assert "expected" in schema["properties"]
    assert schema["additionalProperties"] is False


def test_schema_suite_accepts_the_helpdesk_suite_and_refuses_a_typo() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    yaml = pytest.importorskip("yaml")
    result = runner.invoke(app, ["schema", "--suite"])
    assert result.exit_code == 0
    validator = jsonschema.Draft202012Validator(json.loads(result.output))
    example = Path(__file__).resolve().parents[2] / "examples" / "helpdesk" / "suite.yaml"
    suite = yaml.safe_load(example.read_text())
    assert list(validator.iter_errors(suite)) == []  # the file an editor opens: no false alarm
    suite["cases"][0]["expected"]["selection"]["tols"] = ["x"]
    assert not validator.is_valid(suite)
    assert not validator.is_valid({"cases": [], "tool": {}})
    assert validator.is_valid({"cases": [], "defaults": {"grounding": {"kinds": ["id"]}}})
    assert not validator.is_valid({"cases": [], "defaults": {"grounding": {"kinds": ["ids"]}}})


def test_out_naming_a_file_exits_2_before_grading(
    inputs: tuple[Path, Path], tmp_path: Path
) -> None:
    suite, runs = inputs
    (tmp_path / "taken").write_text("mine")
    result = runner.invoke(app, ["run", str(suite), str(runs), "--out", "taken", "--no-judge"])
    assert result.exit_code == 2
    assert "--out taken: a file of that name exists, not a folder" in result.output
    assert (tmp_path / "taken").read_text() == "mine"


def test_out_inside_a_runs_folder_is_not_read_as_runs(
    inputs: tuple[Path, Path], tmp_path: Path
) -> None:
    suite, runs = inputs
    folder = _runs_folder(runs, tmp_path)
    args = ["run", str(suite), str(folder), "--out", str(folder / "out"), "--no-judge", "-q"]
    first, second = runner.invoke(app, args), runner.invoke(app, args)
    assert (first.exit_code, second.exit_code) == (0, 0), second.output
    summary = json.loads((folder / "out" / "summary.json").read_text())
    assert summary["trajectories"] == 1


def test_cases_without_runs_are_named_in_a_warning(tmp_path: Path) -> None:
    two = SIMPLE_CASE + "- id: c2\n  expected: {selection: {tools: [refund]}}\n"
    suite = write_yaml_suite(tmp_path, two)
    runs = write_jsonl(tmp_path / "runs.jsonl", [GOOD])
    out = str(tmp_path / "o")
    result = runner.invoke(app, ["run", str(suite), str(runs), "--out", out, "--no-judge", "-q"])
    assert result.exit_code == 0
    assert "warning: 1 of 2 cases have no run (c2); the figures leave them out" in result.output
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    args = ["run", str(suite), str(empty), "--out", out, "--no-judge", "-q", "--allow-empty"]
    result = runner.invoke(app, args)
    assert "warning: the run files hold no runs; nothing is graded" in result.output


def test_a_float_overflow_in_a_run_is_written_as_valid_json(
    inputs: tuple[Path, Path], tmp_path: Path
) -> None:
    suite, _ = inputs
    line = json.dumps(GOOD).replace('"amount": 10', '"amount": 1e999')
    runs = tmp_path / "inf.jsonl"
    runs.write_text(line + "\n")
    out = tmp_path / "o"
    result = runner.invoke(app, ["run", str(suite), str(runs), "--out", str(out), "--no-judge"])
    assert result.exit_code == 0, result.output

    def refuse(token: str) -> None:
        raise AssertionError(f"{token} written as a bare token")

    lines = (out / "results.jsonl").read_text().splitlines()
    (record,) = [json.loads(t, parse_constant=refuse) for t in lines]
    arguments = record["checks"]["arguments"]
    assert arguments["passed"] is False
    assert '"Infinity"' in json.dumps(arguments)
    json.loads((out / "summary.json").read_text(), parse_constant=refuse)


def test_a_run_stopped_after_grading_leaves_no_stale_summary_or_reports(
    inputs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite, runs = inputs
    out = tmp_path / "out"
    args = ["run", str(suite), str(runs), "--out", str(out), "--no-judge", "-q"]
    assert runner.invoke(app, args).exit_code == 0
    assert (out / "summary.json").is_file()

    def stop(*_: object, **__: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("toolgrade.scoring.runner.write_summary", stop)
    assert runner.invoke(app, args).exit_code != 0
    assert (out / "results.jsonl").is_file()
    left = {"summary.json", "report.md", "report.html", "junit.xml"} & {
        p.name for p in out.iterdir()
    }
    assert left == set()
    again = runner.invoke(app, ["report", str(out)])
    assert again.exit_code == 2 and "no summary.json" in again.output


def test_validate_prints_the_coverage_per_kind(inputs: tuple[Path, Path]) -> None:
    suite, _ = inputs
    result = runner.invoke(app, ["validate", str(suite)])
    assert result.exit_code == 0
    assert "coverage: no_tool " in result.output and "misleading_identifier 0" in result.output


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_text_calls_flag_reads_calls_written_in_assistant_text(tmp_path: Path, jobs: str) -> None:
    case = {"id": "c", "tools": {"get_weather": {"parameters": {"type": "object"}}},
            "expected": {"selection": {"tools": ["get_weather"]}}}
    suite = tmp_path / "suite.jsonl"
    suite.write_text(json.dumps(case) + "\n")
    runs = tmp_path / "runs.jsonl"
    runs.write_text(json.dumps({"case_id": "c", "format": "openai", "messages": [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": "[get_weather(city='Paris')]"}]}) + "\n")
    verdicts = []
    for flag in ([], ["--text-calls"]):
        out = tmp_path / f"out{len(flag)}"
        result = runner.invoke(app, ["run", str(suite), str(runs), "--out", str(out), "-q",
                                     "--no-judge", "--jobs", jobs, *flag])
        assert result.exit_code in (0, 1), result.output
        record = json.loads((out / "results.jsonl").read_text().splitlines()[0])
        verdicts.append(record["aggregate"]["passed"])
    assert verdicts == [False, True]
