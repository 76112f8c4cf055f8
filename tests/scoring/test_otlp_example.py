"""The example OTLP exports (examples/otel) grade exactly as the same runs given as messages.

`strong-agent.genai.otlp.jsonl` records the helpdesk strong agent's scripted runs as GenAI spans;
its twin here is the same scripts written as OpenAI chat messages by `make_runs.to_openai`, with
the failed calls flagged (`is_error`) as the spans flag them (the shipped OpenAI file leaves the
flag out, so a "timed out" result there reads as ok from its text). The OpenInference export
records the weak agent, whose shipped Anthropic file is its twin as it is.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

from script_modules import load_script
from toolgrade.scoring.runner import grade, validate_inputs

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
HELPDESK, OTEL = EXAMPLES / "helpdesk", EXAMPLES / "otel"
SUITE = HELPDESK / "suite.yaml"
EXPORTS = ("strong-agent.genai.otlp.jsonl", "weak-agent.openinference.otlp.json")


def _module(path: Path) -> ModuleType:
    return load_script(path, path.stem + "_under_test")


def _openai_twin(path: Path) -> Path:
    """The strong agent's runs as OpenAI messages, in the exports' trial order."""
    scripts = _module(HELPDESK / "make_runs.py")
    cases = {c["id"]: c for c in yaml.safe_load(SUITE.read_text())["cases"]}
    lines = []
    for trial in range(3):
        for case_id, (script, state) in scripts.STRONG.items():
            steps, final = scripts.STRONG_VARIANTS.get((case_id, trial), (script, state))
            messages = scripts.to_openai(cases[case_id], steps)
            statuses = [
                call[2] for item in steps if not isinstance(item, str)
                for call in (item if isinstance(item, list) else [item])
            ]
            answers = [m for m in messages if m["role"] == "tool"]
            assert len(answers) == len(statuses)
            for message, status in zip(answers, statuses, strict=True):
                if status == "error":
                    message["is_error"] = True
            line: dict[str, Any] = {
                "case_id": case_id, "trial": trial, "agent": "strong-agent", "messages": messages,
            }
            if final is not None:
                line["final_state"] = final
            lines.append(json.dumps(line))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _graded(runs: list[Path], out: Path) -> tuple[dict[tuple[Any, ...], Any], dict[str, Any]]:
    output = grade(validate_inputs(SUITE, runs), out)
    records = [json.loads(line) for line in output.results_path.read_text().splitlines()]
    return {(r["case_id"], r["trial"], r["agent"]): r for r in records}, output.summary.to_data()


def test_the_shipped_exports_are_what_make_exports_writes(tmp_path: Path) -> None:
    _module(OTEL / "make_exports.py").write_exports(tmp_path)
    for name in EXPORTS:
        assert (tmp_path / name).read_bytes() == (OTEL / "exports" / name).read_bytes(), name


def test_the_example_exports_grade_as_the_same_runs_given_as_chat_messages(
    tmp_path: Path,
) -> None:
    twin = _openai_twin(tmp_path / "strong-agent.openai.jsonl")
    from_traces, traced = _graded([OTEL / "exports"], tmp_path / "traces")
    weak = HELPDESK / "runs" / "weak-agent.anthropic.jsonl"
    from_messages, messaged = _graded([twin, weak], tmp_path / "messages")
    assert len(from_traces) == 72  # 18 cases: 3 trials of the strong agent, 1 of the weak
    assert from_traces == from_messages
    assert traced.pop("otlp") == {
        "files": 2, "traces": 72, "spans": 521, "tool_calls": 136, "other_traces": 0,
        "left_out": {"no GenAI or OpenInference kind": 111},  # the HTTP spans under tools
    }
    assert traced == messaged


def test_the_example_exports_cover_parallel_failed_and_unparseable_calls(tmp_path: Path) -> None:
    records, summary = _graded([OTEL / "exports"], tmp_path / "out")
    assert summary["failures"]["unparseable_arguments"] >= 1
    assert summary["checks"]["recovery"]["stages"]["recovered"] >= 1
    cancel = records[("cancel-order-03", 0, "strong-agent")]
    assert cancel["aggregate"]["passed"]  # its two parallel calls satisfy the ordering
