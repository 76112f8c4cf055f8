"""Shared helpers for the importer tests: fixture paths and reading the written outputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "importers" / "data"
BFCL_QUESTIONS = DATA / "bfcl_questions.json"
BFCL_ANSWERS = DATA / "bfcl_answers.json"
BFCL_RESULTS = DATA / "bfcl_results.json"
TAU_TASKS = DATA / "tau_tasks.json"
TAU_RUNS = DATA / "tau_runs.json"


def read_lines(path: Path) -> list[dict[str, Any]]:
    """Every JSON line of a written file."""
    # Lines end at "\n" only (a JSON string may hold U+2028 or NEL raw).
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.split("\n") if line]


def by_id(rows: list[dict[str, Any]], key: str = "id") -> dict[str, dict[str, Any]]:
    """Rows keyed by their id (the first row wins for repeated ids)."""
    out: dict[str, dict[str, Any]] = {}
    for row in rows:
        out.setdefault(row[key], row)
    return out


def write_lines(path: Path, rows: list[Any]) -> Path:
    """Write rows as JSON Lines and return the path."""
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path
