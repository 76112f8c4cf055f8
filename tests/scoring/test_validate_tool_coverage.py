"""Tool coverage as `validate` prints it for a suite with `tools_from`: the catalogue tools the
cases expect and, given runs, the ones the runs called, read in the same pass as the runs
whichever engine reads them."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolgrade.cli.main import app
from toolgrade.loaders import load_suite
from toolgrade.scoring import engines
from toolgrade.scoring.engines import LocalProcesses, Serial
from toolgrade.scoring.runner import validate_inputs
from toolgrade.scoring.tallies import coverage_lines

ROOT = Path(__file__).resolve().parents[2]
MCP = ROOT / "examples" / "mcp"
HELPDESK = ROOT / "examples" / "helpdesk"
#: The example's runs call five of its seven catalogue tools (its README says which).
CALLED = frozenset({"cancel_order", "lookup_order", "refund", "search_kb", "verify_identity"})


def test_validate_with_runs_prints_the_share_the_runs_called() -> None:
    result = CliRunner().invoke(app, ["validate", str(MCP / "suite.yaml"), str(MCP / "runs")])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-2:] == [
        "tool coverage: 6 of 7 tools of tools.json expected by the cases; never expected: "
        "reset_password",
        "tool coverage: 5 of 7 tools of tools.json called by the runs; never called: "
        "reset_password, search_orders",
    ]


def test_validate_without_runs_prints_only_what_the_cases_expect() -> None:
    result = CliRunner().invoke(app, ["validate", str(MCP / "suite.yaml")])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1].endswith("expected by the cases; never expected: "
                                                   "reset_password")
    assert "called by the runs" not in result.output


def test_the_called_tools_are_the_same_when_workers_read_the_runs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engines, "CHUNK_SIZE", 2)
    monkeypatch.setattr(engines, "PARALLEL_BYTES", 0)
    serial = validate_inputs(MCP / "suite.yaml", [MCP / "runs"], engine=Serial())
    parallel = validate_inputs(MCP / "suite.yaml", [MCP / "runs"], engine=LocalProcesses(2))
    assert serial.called_tools == CALLED
    assert parallel.called_tools == CALLED


def test_a_suite_without_tools_from_collects_no_called_tools() -> None:
    inputs = validate_inputs(HELPDESK / "suite.yaml", [HELPDESK / "runs"])
    assert inputs.called_tools is None
    assert coverage_lines(inputs.suite.cases.values(), ["lookup_order"]) == []


def test_tools_outside_the_catalogue_are_not_counted_as_called() -> None:
    cases = load_suite(MCP / "suite.yaml").cases.values()
    [_, called] = coverage_lines(cases, ["refund", "not_in_the_catalogue"])
    assert called.startswith("tool coverage: 1 of 7 tools of tools.json called by the runs")
