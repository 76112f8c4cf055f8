"""Smoke test of `benchmarks/checklist_requests.py`: batch costs one request per order, per
question one per question, every verdict made."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from script_modules import load_script
from toolgrade.judging.checklist import load_checklist

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "checklist_requests.py"


def test_batch_asks_one_request_per_order(capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_script(BENCH, "bench_checklist_requests")
    assert bench.main(["--items", "2", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 4
    for row in rows:
        k = len(load_checklist(row["dimension"]).model_questions)
        assert row["batch"]["requests_per_item"] == row["orders"]
        assert row["per_question"]["requests_per_item"] == k * row["orders"]
        assert row["batch"]["engine_calls"] == 2 * row["orders"]
        # The evidence goes once per order instead of once per question.
        assert row["prompt_token_ratio"] > 1.5
