"""examples/mcp end to end from its README: catalogue -> record -> run, drift, and the same
verdicts as the same runs written as OpenAI chat messages."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from builders_foundation import write_jsonl
from script_modules import load_script

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "mcp"
BIN = Path(sys.executable).parent


def _readme_lines() -> list[str]:
    text = (EXAMPLE / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def _run_line(line: str, cwd: Path) -> None:
    words = shlex.split(line)
    words[0] = sys.executable if words[0] == "python" else str(BIN / words[0])
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(words, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{line}\n{done.stdout}\n{done.stderr}"


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the example (its recorded files left behind) with every README line run."""
    folder = tmp_path_factory.mktemp("mcp") / "mcp"
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("runs", "out*", "tools.json",
                                                                   "__pycache__"))
    lines = _readme_lines()
    assert any(line.startswith("toolgrade mcp catalogue") for line in lines)
    for line in lines:
        _run_line(line, folder)
    return folder


def _results(path: Path) -> dict[tuple[str, str], dict[str, Any]]:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return {(r["case_id"], r["agent"]): r for r in lines}


def test_the_readme_runs_end_to_end(example: Path) -> None:
    shipped = json.loads((EXAMPLE / "tools.json").read_text(encoding="utf-8"))
    assert json.loads((example / "tools.json").read_text(encoding="utf-8")) == shipped
    summary = json.loads((example / "out" / "summary.json").read_text(encoding="utf-8"))
    assert summary["agents"]["careful"]["pass_rate"] == 1.0
    assert summary["agents"]["hasty"]["pass_rate"] == 0.0
    coverage = summary["mcp"]["coverage"]
    assert (coverage["expected"], coverage["called"]) == (6, 5)
    assert coverage["never_called"] == ["reset_password", "search_orders"]
    assert summary["mcp"]["drift"]["with_drift"] == 0
    report = (example / "out" / "report.md").read_text(encoding="utf-8")
    assert "6 of 7 tools expected by the cases (0.857), 5 called by the runs (0.714)" in report
    assert "MCP catalogue drift" not in report


def test_changing_one_tools_schema_flags_exactly_that_tool(example: Path) -> None:
    results = _results(example / "out-v2" / "results.jsonl")
    assert len(results) == 8
    for record in results.values():
        assert record["catalogue_drift"] == {"added": [], "removed": [], "changed": ["refund"]}
    summary = json.loads((example / "out-v2" / "summary.json").read_text(encoding="utf-8"))
    assert summary["mcp"]["drift"]["tools"] == {"refund": {"changed": 8}}
    report = (example / "out-v2" / "report.md").read_text(encoding="utf-8")
    assert "8 of 8 runs saw another catalogue than tools.json" in report
    assert "| refund | 0 | 0 | 8 |" in report
    assert "MCP catalogue drift" in (example / "out-v2" / "report.html").read_text()


def test_on_drift_unscored_leaves_the_drifted_runs_unscored(example: Path) -> None:
    suite = example / "suite.yaml"
    strict = example / "suite-strict.yaml"
    strict.write_text(suite.read_text(encoding="utf-8").replace(
        "tools_from: tools.json", "tools_from: {file: tools.json, on_drift: unscored}"),
        encoding="utf-8")
    _run_line("toolgrade run suite-strict.yaml runs-v2 --out out-strict --no-judge", example)
    for record in _results(example / "out-strict" / "results.jsonl").values():
        assert record["aggregate"]["status"] == "unscored"
        assert record["checks"]["selection"]["unscored_run"] == "catalogue drift: refund changed"
    _run_line("toolgrade run suite-strict.yaml runs --out out-strict-v1 --no-judge", example)
    statuses = {r["aggregate"]["status"]
                for r in _results(example / "out-strict-v1" / "results.jsonl").values()}
    assert statuses == {"pass", "fail"}  # no drift: graded as usual


def _openai_runs(agent_module: Any, server_module: Any) -> list[dict[str, Any]]:
    """The scripted sessions as OpenAI chat messages, answered by the same canned backend
    (a fresh one per session, as each session starts its own server)."""
    runs = []
    for agent, cases in agent_module.SCRIPTS.items():
        for case, calls in cases.items():
            desk, messages = server_module.Helpdesk(), []
            for i, (tool, args) in enumerate(calls):
                call_id = f"call_{i}"
                messages.append({"role": "assistant", "content": None, "tool_calls": [
                    {"id": call_id, "type": "function",
                     "function": {"name": tool, "arguments": json.dumps(args)}}]})
                try:
                    content, failed = desk.answer(tool, args), False
                except server_module.ToolError as exc:
                    content, failed = str(exc), True
                messages.append({"role": "tool", "tool_call_id": call_id, "content": content,
                                 "is_error": failed})
            runs.append({"case_id": case, "agent": agent, "messages": messages})
    return runs


def _verdicts(record: dict[str, Any]) -> dict[str, Any]:
    checks = {name: (block["status"], block["score"], sorted(f["name"] for f in block["failures"]))
              for name, block in record["checks"].items()}
    return {"checks": checks, "aggregate": record["aggregate"]}


def test_mcp_recordings_grade_as_the_same_runs_in_openai_form(example: Path) -> None:
    agent = load_script(EXAMPLE / "agent.py", "mcp_example_agent")
    server = load_script(EXAMPLE / "server.py", "mcp_example_server")
    (example / "runs-openai").mkdir(exist_ok=True)
    write_jsonl(example / "runs-openai" / "runs.jsonl", _openai_runs(agent, server))
    _run_line("toolgrade run suite.yaml runs-openai --out out-openai --no-judge", example)
    from_mcp = _results(example / "out" / "results.jsonl")
    from_openai = _results(example / "out-openai" / "results.jsonl")
    assert from_mcp.keys() == from_openai.keys()
    for key, record in from_mcp.items():
        assert _verdicts(record) == _verdicts(from_openai[key]), key
