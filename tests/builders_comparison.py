"""Builders for compare tests: the helpdesk example graded per agent, and small folders."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from toolgrade.cli.main import app

ROOT = Path(__file__).resolve().parents[1]
HELPDESK = ROOT / "examples" / "helpdesk"
AGENT_FILES = {"strong": "strong-agent.openai.jsonl", "mid": "mid-agent.steps.jsonl",
               "weak": "weak-agent.anthropic.jsonl"}


def graded(out: Path, agent: str, suite: Path = HELPDESK / "suite.yaml") -> Path:
    """`out`: the helpdesk suite graded against one agent's runs, judges off."""
    settings = out.parent / "empty.toml"  # no gates: the folder is graded whatever it holds
    settings.write_text("")
    result = CliRunner().invoke(app, [
        "run", str(suite), str(HELPDESK / "runs" / AGENT_FILES[agent]), "--out", str(out),
        "--no-judge", "--quiet", "--jobs", "1", "--config", str(settings)])
    assert result.exit_code in (0, 1), result.output
    return out


def aggregate_shares(folder: Path) -> dict[str, float]:
    """Per case, the share of its runs whose aggregate passed, read straight from the file."""
    runs: dict[str, list[bool]] = {}
    for line in (folder / "results.jsonl").read_text().splitlines():
        record = json.loads(line)
        runs.setdefault(record["case_id"], []).append(record["aggregate"]["passed"])
    return {case: sum(v) / len(v) for case, v in runs.items()}
