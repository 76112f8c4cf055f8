"""Run files that hold no run are bad input (exit 2) for `run` and `validate`, unless
`--allow-empty`: a CI job that recorded nothing must not pass."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders_foundation import SIMPLE_CASE, write_yaml_suite
from toolgrade.cli.main import app

runner = CliRunner()


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # no toolgrade.toml or pyproject here
    return write_yaml_suite(tmp_path, SIMPLE_CASE)


def _empty(folder: Path, name: str = "runs.jsonl") -> Path:
    path = folder / name
    path.write_text("\n\n")  # blank lines only: a file, but no run
    return path


@pytest.mark.parametrize("command", ["run", "validate"])
def test_an_empty_runs_file_exits_2_naming_it(suite: Path, tmp_path: Path, command: str) -> None:
    runs = _empty(tmp_path)
    result = runner.invoke(app, [command, str(suite), str(runs), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2, result.output
    assert f"no runs read from {runs}" in result.output
    assert "--allow-empty" in result.output  # the way out is named


def test_run_refuses_before_writing_anything(suite: Path, tmp_path: Path) -> None:
    runs = _empty(tmp_path)
    out = tmp_path / "o"
    runner.invoke(app, ["run", str(suite), str(runs), "--out", str(out), "--no-judge"])
    assert not out.exists()


def test_a_folder_of_empty_files_names_each_file(suite: Path, tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    first, second = _empty(folder, "a.jsonl"), _empty(folder, "b.jsonl")
    result = runner.invoke(app, ["validate", str(suite), str(folder)])
    assert result.exit_code == 2
    assert f"no runs read from {first}, {second}" in result.output


def test_run_allow_empty_grades_nothing_and_exits_0(suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "o"
    args = ["run", str(suite), str(_empty(tmp_path)), "--out", str(out), "--no-judge", "-q"]
    result = runner.invoke(app, [*args, "--allow-empty"])
    assert result.exit_code == 0, result.output
    assert (out / "summary.json").is_file()


def test_validate_allow_empty_says_0_runs(suite: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["validate", str(suite), str(_empty(tmp_path)), "--allow-empty"])
    assert result.exit_code == 0, result.output
    assert "ok: 1 cases, 0 runs in 1 file(s)" in result.output
