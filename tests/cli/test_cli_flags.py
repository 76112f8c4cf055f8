"""Small things every user expects of the command line: --version, flags that contradict each
other refused, help text that prints its brackets, no judge hint when judging is off."""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

import pytest
from typer.testing import CliRunner

import toolgrade
from toolgrade.cli.main import app

runner = CliRunner()
HELPDESK = Path(__file__).parents[2] / "examples" / "helpdesk"


def test_version_is_the_installed_package_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"toolgrade {version('toolgrade')}"
    assert toolgrade.__version__ == version("toolgrade")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["schema", "--suite", "--summary"], "--suite and --summary cannot be given together"),
        (["schema", "--summary", "--results"], "--summary and --results cannot be given together"),
        (["run", "S", "R", "--no-judge", "--judge-model", "openai/x"],
         "--judge-model and --no-judge cannot be given together"),
        (["run", "S", "R", "--no-cache", "--cache-dir", "c"],
         "--cache-dir and --no-cache cannot be given together"),
    ],
)
def test_contradicting_flags_are_refused_with_exit_2(
    args: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert message in result.output
    assert not (tmp_path / "toolgrade-out").exists()


def test_help_prints_the_brackets_of_settings_tables() -> None:
    result = runner.invoke(app, ["run", "--help"], env={"COLUMNS": "200"})
    assert "[cache] url" in result.output and "(default:  url)" not in result.output


def test_no_judge_gives_no_hint_to_configure_a_judge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["run", str(HELPDESK / "suite.yaml"), str(HELPDESK / "runs"),
                                 "--no-judge", "--out", str(tmp_path / "o")],
                           env={"COLUMNS": "200"})
    assert result.exit_code in (0, 1), result.output
    assert "need a judge (judging is off)" in result.output
    assert "install the local judge" not in result.output
