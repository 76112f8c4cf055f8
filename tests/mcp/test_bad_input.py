"""Bad MCP input on the command line: exit 2, the problem on one line, nothing written."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from builders_foundation import write_jsonl
from builders_mcp import HELPDESK_TOOLS, call, mcp_tool, write_catalogue, write_mcp_suite
from toolgrade.cli.main import app

runner = CliRunner()
CASE = "  - id: c1\n    expected:\n      selection: {tools: [refund]}\n"


def _problem_lines(output: str) -> list[str]:
    return [line.strip() for line in output.splitlines() if line.startswith("  ")]


def test_a_catalogue_with_a_broken_schema_stops_run_with_one_line(tmp_path: Path) -> None:
    broken = [*HELPDESK_TOOLS[:1], mcp_tool("refund") | {"inputSchema": {"type": 5}}]
    write_catalogue(tmp_path / "tools.json", broken)
    suite = write_mcp_suite(tmp_path, CASE)
    runs = write_jsonl(tmp_path / "runs.jsonl", [{"case_id": "c1", "steps": []}])
    result = runner.invoke(app, ["run", str(suite), str(runs), "--out", str(tmp_path / "out"),
                                 "--no-judge"])
    assert result.exit_code == 2
    (line,) = _problem_lines(result.output)
    assert line.startswith(f"{tmp_path / 'tools.json'}: tools[1].inputSchema: tool 'refund'")
    assert not (tmp_path / "out").exists()


def test_a_malformed_log_stops_validate_with_one_line(tmp_path: Path) -> None:
    write_catalogue(tmp_path / "tools.json")
    suite = write_mcp_suite(tmp_path, CASE)
    bad = {"jsonrpc": "2.0", "id": 2, "result": "not an object"}
    runs = write_jsonl(tmp_path / "runs.jsonl",
                       [{"case_id": "c1", "messages": [call(2, "refund", {}), bad]}])
    result = runner.invoke(app, ["validate", str(suite), str(runs)])
    assert result.exit_code == 2
    assert _problem_lines(result.output) == [
        f"{runs}:1: messages[1].result: a response needs a result or an error object"]
