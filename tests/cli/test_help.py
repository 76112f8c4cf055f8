"""`--help` of every command: flags show no value type, and the help text is shown as written."""

from __future__ import annotations

import pytest
import typer.main
from typer.core import TyperGroup
from typer.testing import CliRunner

from toolgrade.cli.main import app

runner = CliRunner()


def _command_paths() -> list[list[str]]:
    """Every command and group under the root, as the words that name it (the root is [])."""
    paths: list[list[str]] = []
    pending: list[tuple[list[str], object]] = [([], typer.main.get_command(app))]
    while pending:
        path, command = pending.pop()
        paths.append(path)
        if isinstance(command, TyperGroup):
            pending += [([*path, name], sub) for name, sub in command.commands.items()]
    return sorted(paths)


COMMANDS = _command_paths()


def _help(path: list[str]) -> str:
    result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.output


def test_every_command_is_reached() -> None:
    # The walk must reach the nested groups' commands, or the test below checks little.
    assert ["run"] in COMMANDS and ["import", "bfcl"] in COMMANDS and ["cache", "clear"] in COMMANDS


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: " ".join(p) or "toolgrade")
def test_no_flag_shows_a_value_type(path: list[str]) -> None:
    text = _help(path)
    assert "--help" in text
    assert "<bool>" not in text


def test_options_that_take_a_value_still_show_its_type() -> None:
    text = _help(["run"])
    no_judge = next(line for line in text.splitlines() if "--no-judge" in line)
    assert "<" not in no_judge
    out = next(line for line in text.splitlines() if "--out " in line and "-o " in line)
    assert "<path>" in out


def test_a_settings_section_in_help_text_is_not_read_as_markup() -> None:
    assert "[judge] concurrency" in " ".join(_help(["run"]).split())
