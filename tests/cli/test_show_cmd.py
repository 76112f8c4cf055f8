"""`toolgrade show DIR CASE [--agent A] [--trial N]`: the run view in the shell, clear refusals."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders_reporting import graded_example, write_run_dir
from toolgrade.cli.main import app
from toolgrade.loaders.transcripts import TRANSCRIPTS_FILE


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return graded_example(tmp_path_factory.mktemp("helpdesk"))


def test_show_prints_every_run_of_a_case_or_the_one_asked_for(example: Path) -> None:
    every = CliRunner().invoke(app, ["show", str(example), "kb-router-05"])
    assert every.exit_code == 0, every.output
    assert every.output.count("kb-router-05 · ") == 5  # mid, weak, strong x3
    one = CliRunner().invoke(app, ["show", str(example), "kb-router-05", "--agent", "mid-agent",
                                   "--trial", "0"])
    assert one.exit_code == 0 and one.output.count("kb-router-05 · ") == 1
    assert "x ordering loop: search_kb called 3 times" in one.output


@pytest.mark.parametrize(("args", "says"), [
    (["nope"], "no graded run of case 'nope' matches"),
    (["kb-router-05", "--agent", "x"], "(its runs: mid-agent:0, strong-agent:0"),
])
def test_show_names_what_it_could_not_find(example: Path, args: list[str], says: str) -> None:
    result = CliRunner().invoke(app, ["show", str(example), *args])
    assert result.exit_code == 2 and says in result.output


def test_show_on_a_folder_without_transcripts_says_how_to_get_them(tmp_path: Path) -> None:
    run_dir = write_run_dir(tmp_path)
    result = CliRunner().invoke(app, ["show", str(run_dir), "refund-01"])
    assert result.exit_code == 2 and f"no {TRANSCRIPTS_FILE}" in result.output
    empty = CliRunner().invoke(app, ["show", str(tmp_path / "none"), "refund-01"])
    assert empty.exit_code == 2 and "no results.jsonl here" in empty.output
