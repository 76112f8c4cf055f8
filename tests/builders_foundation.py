"""Small builders for foundation tests: suites and runs written to a temporary folder."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

TOOLS_YAML = """
tools:
  lookup_order:
    parameters: {type: object, properties: {order_id: {type: string}}, required: [order_id]}
  refund:
    side_effect: true
    parameters: {type: object, properties: {order_id: {type: string}, amount: {type: number}}}
"""


def write_yaml_suite(folder: Path, cases_yaml: str, name: str = "suite.yaml") -> Path:
    """A YAML suite with the shared two-tool catalogue and the given `cases:` body."""
    path = folder / name
    body = (
        textwrap.dedent(TOOLS_YAML)
        + "cases:\n"
        + textwrap.indent(textwrap.dedent(cases_yaml), "  ")
    )
    path.write_text(body, encoding="utf-8")
    return path


def write_jsonl(path: Path, records: list[Any]) -> Path:
    """One JSON value per line (strings are written verbatim, for malformed lines)."""
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def steps_run(
    case_id: str,
    *calls: tuple[str, Any],
    trial: int = 0,
    agent: str | None = "a",
    answer: str | None = "done",
) -> dict[str, Any]:
    """A run in normalised steps: each call (tool, args) returns ok."""
    steps: list[dict[str, Any]] = [
        {"tool": tool, "args": args, "result": {"status": "ok", "content": "fine"}}
        for tool, args in calls
    ]
    if answer is not None:
        steps.append({"role": "assistant", "content": answer})
    return {"case_id": case_id, "trial": trial, "agent": agent, "steps": steps}


SIMPLE_CASE = """
- id: c1
  expected:
    selection: {tools: [lookup_order, refund]}
    arguments:
      - tool: refund
        args: {order_id: A1, amount: {approx: 10, tol: 0.01}}
    ordering:
      before: [[lookup_order, refund]]
"""
