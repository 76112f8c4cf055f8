"""Hostile and broken input ends in one clear problem line and exit 2: never a crash, a machine
out of memory, a written output or a model call (docs/contract.md, bad input)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from toolgrade.cli.main import app
from toolgrade.judging.client import import_litellm

runner = CliRunner()
HELPDESK = Path(__file__).parents[2] / "examples" / "helpdesk"
SUITE_TEXT = (HELPDESK / "suite.yaml").read_text(encoding="utf-8")
STEPS_LINE = (HELPDESK / "runs" / "mid-agent.steps.jsonl").read_text().splitlines()[0]
OPENAI_LINE = (HELPDESK / "runs" / "strong-agent.openai.jsonl").read_text().splitlines()[0]

#: Nine levels of nine aliases: 9**9 (387 million) strings once expanded, 1 KB as written.
ALIAS_BOMB = "x_bomb:\n  a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"  a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]\n" for n in range(1, 10)
)


@pytest.fixture
def no_model(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[Any]:
    """litellm's completion replaced by a recorder: a bad input must never reach a model."""
    monkeypatch.chdir(tmp_path)  # no toolgrade.toml here
    calls: list[Any] = []
    monkeypatch.setattr(import_litellm(), "completion", lambda **kw: calls.append(kw))
    return calls


def _deep_arguments_line() -> str:
    run = json.loads(OPENAI_LINE)
    deep = "[" * 100_000 + "]" * 100_000
    run["messages"][1]["tool_calls"][0]["function"]["arguments"] = f'{{"order_id": {deep}}}'
    return json.dumps(run)


CASES = {
    "alias bomb": (
        ALIAS_BOMB + SUITE_TEXT,
        STEPS_LINE,
        "suite.yaml:7: aliases expand the document past 100,000 nodes",
    ),
    "lone surrogate": (
        SUITE_TEXT.replace('"My order A123', '"My order \\ud800 A123', 1),
        STEPS_LINE,
        "suite.yaml:130: a string holds a lone surrogate (\\ud800): not Unicode text",
    ),
    "long integer": (
        SUITE_TEXT,
        STEPS_LINE.replace('"amount": "25"', '"amount": ' + "9" * 5000),
        "runs.jsonl:1: an integer of 5,000 digits at column",
    ),
    "deep function.arguments": (
        SUITE_TEXT,
        _deep_arguments_line(),
        "runs.jsonl:1: messages[1].tool_calls[0].function.arguments: arguments JSON nested deeper"
        " than 256 levels",
    ),
}


@pytest.mark.parametrize("command", ["validate", "run"])
@pytest.mark.parametrize("name", list(CASES))
def test_hostile_input_is_one_problem_line_exit_2_nothing_written_no_model_called(
    tmp_path: Path, no_model: list[Any], name: str, command: str
) -> None:
    suite_text, run_line, expected = CASES[name]
    suite = tmp_path / "suite.yaml"
    suite.write_text(suite_text, encoding="utf-8")
    runs = tmp_path / "runs.jsonl"
    runs.write_text(run_line + "\n", encoding="utf-8")
    out = tmp_path / "out"
    args = [command, str(suite), str(runs)]
    if command == "run":
        args += ["--out", str(out), "--judge-model", "openai/gpt-4o-mini", "--no-cache"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    problems = [line for line in result.output.splitlines() if line.startswith("  ")]
    assert len(problems) == 1, result.output
    assert expected in problems[0]
    assert len(problems[0]) < 300  # one readable line, not the value echoed back
    assert not out.exists()
    assert no_model == []


def _counted_litellm_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    litellm = import_litellm()
    real, calls = litellm.completion, []

    def counted(**kwargs: Any) -> Any:
        calls.append(kwargs["model"])
        return real(**kwargs)

    monkeypatch.setattr(litellm, "completion", counted)
    return calls


def test_a_missing_key_exits_2_naming_the_variable_at_the_first_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OpenAI's client refuses every call without its key: the first judged item stops the
    grading before litellm is asked (or imported)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_ADMIN_KEY", raising=False)
    calls = _counted_litellm_calls(monkeypatch)
    out = tmp_path / "out"
    args = ["run", str(HELPDESK / "suite.yaml"), str(HELPDESK / "runs"), "--out", str(out),
            "--judge-model", "openai/gpt-4o-mini", "--no-cache", "--quiet"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "the judge model openai/gpt-4o-mini cannot be called" in result.output
    assert "OPENAI_API_KEY is not set" in result.output and "set OPENAI_API_KEY;" in result.output
    assert calls == []
    assert not (out / "summary.json").exists()


def test_a_refused_key_stops_the_grading_at_the_first_call_exit_2_naming_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through litellm's real OpenAI path, served (so no key is expected up front): the
    client refuses for the missing key before any connection."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_ADMIN_KEY", raising=False)
    (tmp_path / "toolgrade.toml").write_text('[judge]\napi_base = "http://127.0.0.1:9/v1"\n')
    calls = _counted_litellm_calls(monkeypatch)
    out = tmp_path / "out"
    args = ["run", str(HELPDESK / "suite.yaml"), str(HELPDESK / "runs"), "--out", str(out),
            "--judge-model", "openai/gpt-4o-mini", "--no-cache", "--quiet"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "the judge model openai/gpt-4o-mini cannot be called" in result.output
    assert "set OPENAI_API_KEY" in result.output
    assert calls == ["openai/gpt-4o-mini"]  # the first call only: not retried, nothing else asked
    assert not (out / "summary.json").exists()


def _line_with(**changes: Any) -> str:
    run = json.loads(STEPS_LINE)
    run.update(changes)
    return json.dumps(run)


def test_a_long_value_is_cut_in_the_message(tmp_path: Path, no_model: list[Any]) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_text(_line_with(case_id="x" * 5_000_000) + "\n")
    result = runner.invoke(app, ["validate", str(HELPDESK / "suite.yaml"), str(runs)])
    assert result.exit_code == 2
    assert f"'{'x' * 79}... (5,000,002 chars) in the suite" in result.output
    assert len(result.output) < 1000


@pytest.mark.parametrize("swap", ["yaml as runs", "runs as suite"])
def test_suite_and_runs_swapped_is_one_line_saying_so(
    tmp_path: Path, no_model: list[Any], swap: str
) -> None:
    runs = HELPDESK / "runs" / "strong-agent.openai.jsonl"
    other = HELPDESK / "suite.yaml" if swap == "yaml as runs" else HELPDESK / "runs"
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(runs), str(other), "--out", str(out), "--no-judge"])
    assert result.exit_code == 2
    problems = [line for line in result.output.splitlines() if line.startswith("  ")]
    assert len(problems) == 1 and "SUITE and RUNS look swapped" in problems[0]
    assert not out.exists()


def test_validate_refuses_a_key_written_twice_in_a_run_line(
    tmp_path: Path, no_model: list[Any]
) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_text(STEPS_LINE.replace('"agent": "mid-agent"', '"agent": "a", "agent": "b"') + "\n")
    result = runner.invoke(app, ["validate", str(HELPDESK / "suite.yaml"), str(runs)])
    assert result.exit_code == 2
    assert "runs.jsonl:1: not valid JSON: duplicate key 'agent'" in result.output


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested deeper than 256 levels"),
        ('{"a": ' + "9" * 5000 + "}", "an integer of 5,000 digits at column 7"),
    ],
)
def test_an_importer_refuses_input_past_the_bounds(
    tmp_path: Path, no_model: list[Any], text: str, reason: str
) -> None:
    source = tmp_path / "results.json"
    source.write_text(text)
    out = tmp_path / "imported"
    result = runner.invoke(app, ["import", "tau2", str(source), "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert reason in result.output
    assert not out.exists()


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("a = " + "[" * 100_000 + "]" * 100_000 + "\n", "invalid TOML: nested too deeply"),
        ('[gates]\n"aggregate.pass_rate" = ' + "9" * 5000 + "\n",
         "invalid TOML: an integer of 5,000 digits at line 2, column 25"),
    ],
)
def test_a_hostile_settings_file_is_a_configuration_error(
    tmp_path: Path, no_model: list[Any], text: str, reason: str
) -> None:
    config = tmp_path / "hostile.toml"
    config.write_text(text)
    result = runner.invoke(app, ["validate", str(HELPDESK / "suite.yaml"), "--config", str(config)])
    assert result.exit_code == 2, result.output
    assert reason in result.output


@pytest.mark.parametrize("value", ["9" * 5000, "²", "1" * 25])
def test_an_otlp_time_that_is_no_64_bit_integer_is_a_problem(
    tmp_path: Path, no_model: list[Any], value: str
) -> None:
    export = (HELPDESK.parent / "otel" / "exports" / "weak-agent.openinference.otlp.json")
    text = re.sub(r'"endTimeUnixNano": *"\d+"', f'"endTimeUnixNano": "{value}"',
                  export.read_text(encoding="utf-8"), count=1)
    runs = tmp_path / "runs.otlp.json"
    runs.write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["validate", str(HELPDESK / "suite.yaml"), str(runs)])
    assert result.exit_code == 2, result.output
    assert "endTimeUnixNano" in result.output and "must be an integer (64-bit)" in result.output
