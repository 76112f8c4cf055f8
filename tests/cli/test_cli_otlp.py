"""`toolgrade run` and `validate` given OTLP trace exports: no flag, counts shown, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders_foundation import SIMPLE_CASE, write_yaml_suite
from builders_otlp import export, genai_agent, genai_tool, span, write_lines
from toolgrade.cli.main import app

runner = CliRunner()


def _trace(case_attribute: str = "toolgrade.case_id") -> list[dict]:
    agent = genai_agent("a1", "helpdesk", case_id=None, **{case_attribute: "c1"})
    return [
        agent,
        genai_tool("t1", "lookup_order", {"order_id": "A1"}, "{}", start=10),
        genai_tool("t2", "refund", {"order_id": "A1", "amount": 10}, "{}", start=30),
        span("h1", "POST /refunds", {"http.request.method": "POST"}, parent="t2", start=31),
    ]


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return write_yaml_suite(tmp_path, SIMPLE_CASE)


def test_run_grades_an_export_and_counts_left_out_spans(suite: Path, tmp_path: Path) -> None:
    traces = write_lines(tmp_path / "traces.otlp.jsonl", [export(_trace())])
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["run", str(suite), str(traces), "--out", str(out), "--no-judge", "--quiet"]
    )
    assert result.exit_code == 0, result.output
    (record,) = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert (record["case_id"], record["agent"], record["aggregate"]["passed"]) == (
        "c1", "helpdesk", True)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["otlp"]["left_out"] == {"no GenAI or OpenInference kind": 1}
    assert "1 span(s) left out" in result.output


def test_validate_reads_a_document_export_and_takes_another_case_attribute(
    suite: Path, tmp_path: Path
) -> None:
    traces = tmp_path / "trace.json"
    traces.write_text(json.dumps(export(_trace("session.id")), indent=2))
    refused = runner.invoke(app, ["validate", str(suite), str(traces)])
    assert refused.exit_code == 2
    assert "toolgrade.case_id: no case id" in refused.output
    result = runner.invoke(
        app, ["validate", str(suite), str(traces), "--case-attribute", "session.id"]
    )
    assert result.exit_code == 0, result.output
    assert "ok: 1 cases, 1 runs" in result.output
    assert "OTLP traces: 1 trace(s), 4 span(s), 2 tool call(s)" in result.output


def test_a_malformed_export_exits_2_naming_file_line_span_and_field(
    suite: Path, tmp_path: Path
) -> None:
    spans = _trace()
    spans[1]["attributes"][0]["value"] = {"stringValue": 5}
    traces = write_lines(tmp_path / "traces.jsonl", [export(spans)])
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(suite), str(traces), "--out", str(out)])
    assert result.exit_code == 2
    assert (
        f"{traces}:1: resourceSpans[0].scopeSpans[0].spans[1].attributes"
        "[gen_ai.operation.name].stringValue (span t1): must be a string"
    ) in result.output
    assert not (out / "results.jsonl").exists()
