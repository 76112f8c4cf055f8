"""Gates through `toolgrade run`: exit 1 naming each failing gate, exit 2 on bad gate config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from builders_foundation import SIMPLE_CASE, steps_run, write_jsonl, write_yaml_suite
from toolgrade.cli.main import app

GOOD = steps_run("c1", ("lookup_order", {"order_id": "A1"}),
                 ("refund", {"order_id": "A1", "amount": 10}), trial=0)
BAD = steps_run("c1", ("refund", {"order_id": "A1", "amount": 99}), trial=1)
# Selection over both runs: tp 3, fp 0, fn 1 -> f1 0.857; aggregate pass rate 0.5;
# reliability of c1: n 2, c 1 -> pass^2 = 0.


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder (the working directory) with a suite and two runs."""
    write_yaml_suite(tmp_path, SIMPLE_CASE)
    write_jsonl(tmp_path / "runs.jsonl", [GOOD, BAD])
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(*extra: str) -> Result:
    return CliRunner().invoke(app, ["run", "suite.yaml", "runs.jsonl", "--out", "out",
                                    "--no-judge", "--quiet", *extra])


def _failed_lines(result: Result) -> list[str]:
    return [line for line in result.output.splitlines() if line.startswith("gate FAILED")]


def test_a_failing_gate_exits_1_with_one_line_per_failing_gate(project: Path) -> None:
    (project / "toolgrade.toml").write_text(
        '[gates]\n"selection.f1" = 0.9\n"aggregate.pass_rate" = 0.4\n'
        '"recovery.pass_hat_k.2" = 0.6\n', encoding="utf-8")
    result = _run()
    assert result.exit_code == 1, result.output
    assert sorted(_failed_lines(result)) == [
        "gate FAILED: recovery.pass_hat_k.2 = 0, minimum 0.6",
        "gate FAILED: selection.f1 = 0.8571, minimum 0.9",
    ]
    assert "gate ok: aggregate.pass_rate = 0.5, minimum 0.4" in result.output
    gates = json.loads((project / "out" / "summary.json").read_text())["gates"]
    assert [(g["check"], g["metric"], g["passed"]) for g in gates] == [
        ("selection", "f1", False), ("aggregate", "pass_rate", True),
        ("recovery", "pass_hat_k.2", False)]
    assert "FAIL" in (project / "out" / "report.md").read_text(encoding="utf-8")


def test_all_gates_holding_exit_0(project: Path) -> None:
    (project / "toolgrade.toml").write_text('[gates]\n"selection.f1" = 0.85\n', encoding="utf-8")
    result = _run()
    assert result.exit_code == 0, result.output
    assert _failed_lines(result) == []


def test_gates_from_pyproject_tool_table(project: Path) -> None:
    (project / "pyproject.toml").write_text(
        '[project]\nname = "x"\n[tool.toolgrade.gates]\n"arguments.pass_rate" = 0.9\n',
        encoding="utf-8")
    result = _run()
    assert result.exit_code == 1, result.output
    assert [line.split(" = ")[0] for line in _failed_lines(result)] == [
        "gate FAILED: arguments.pass_rate"]


def test_config_option_wins_over_toolgrade_toml(project: Path) -> None:
    (project / "toolgrade.toml").write_text('[gates]\n"selection.f1" = 0.99\n', encoding="utf-8")
    (project / "ci.toml").write_text('[gates]\n"selection.f1" = 0.5\n', encoding="utf-8")
    assert _run().exit_code == 1
    assert _run("--config", "ci.toml").exit_code == 0


@pytest.mark.parametrize("gates, reason", [
    ('"selection.f2" = 0.9', "unknown gate figure"),
    ('"speed.p99" = 0.9', "unknown gate figure"),
    ('"selection.f1" = "high"', "gates.selection.f1"),
])
def test_bad_gate_configuration_exits_2_before_grading(project: Path, gates: str,
                                                       reason: str) -> None:
    (project / "toolgrade.toml").write_text(f"[gates]\n{gates}\n", encoding="utf-8")
    result = _run()
    assert result.exit_code == 2, result.output
    assert "configuration error" in result.output and reason in result.output
    assert not (project / "out" / "results.jsonl").exists()  # nothing was graded
