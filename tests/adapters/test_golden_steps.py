"""The adapters' normalised steps pinned for the example runs and traces.

`golden/` holds each trajectory the adapters read from the example chat runs (OpenAI,
Anthropic) and OTLP exports (GenAI, OpenInference), as written before the adapters' foreign
formats were typed (issue 32). Regenerate with `TOOLGRADE_WRITE_GOLDEN=1` only when a change is
meant, and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolgrade.loaders import load_runs

ROOT = Path(__file__).parents[2]
GOLDEN = Path(__file__).parent / "golden"
WRITE = os.environ.get("TOOLGRADE_WRITE_GOLDEN") == "1"
SOURCES = {
    "helpdesk_openai": ROOT / "examples/helpdesk/runs/strong-agent.openai.jsonl",
    "helpdesk_anthropic": ROOT / "examples/helpdesk/runs/weak-agent.anthropic.jsonl",
    "otel_genai": ROOT / "examples/otel/exports/strong-agent.genai.otlp.jsonl",
    "otel_openinference": ROOT / "examples/otel/exports/weak-agent.openinference.otlp.json",
    "tau_retail_openai": ROOT / "tests/importers/golden/tau_retail/runs.jsonl",
    "tau_airline_openai": ROOT / "tests/importers/golden/tau_airline/runs.jsonl",
}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_the_adapters_read_the_golden_steps(name: str) -> None:
    written = "".join(t.model_dump_json() + "\n" for t in load_runs([SOURCES[name]]))
    golden = GOLDEN / f"{name}.jsonl"
    if WRITE:
        GOLDEN.mkdir(exist_ok=True)
        golden.write_text(written, encoding="utf-8")
    assert written == golden.read_text(encoding="utf-8")
