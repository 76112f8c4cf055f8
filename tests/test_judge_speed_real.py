"""The real-item speed benchmark's cutting of transcripts into judge items (no model)."""

from __future__ import annotations

import json
from pathlib import Path

from script_modules import load_script
from toolgrade.models.judging import JUDGE_INPUTS

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def _simulation(filler: int) -> dict:
    return {"messages": [
        {"role": "user", "content": "Cancel reservation ABC123 please."},
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "c1", "name": "get_reservation_details", "arguments": {}}]},
        {"role": "tool", "id": "c1", "content": "x" * filler, "error": False},
        {"role": "assistant", "content": "Found it; shall I cancel?"},
        {"role": "user", "content": "Yes."},
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "c2", "name": "cancel_reservation", "arguments": {}}]},
        {"role": "tool", "id": "c2", "content": "Error: not allowed", "error": True},
        {"role": "assistant", "content": "It is cancelled."},
    ]}


def test_each_transcript_gives_its_largest_cut_in_the_size_window(tmp_path: Path) -> None:
    bench = load_script(BENCH / "judge_speed_real.py", "bench_judge_speed_real")
    runs = tmp_path / "runs.json"
    runs.write_text(json.dumps({"simulations": [_simulation(2500), _simulation(10),
                                                 _simulation(9000)]}))
    items = bench.real_items([runs], 10)
    assert len(items) == 1  # the short one is under 2 kB, the long one over 6 kB
    item = items[0]
    assert item["final_answer"] == "It is cancelled."  # the larger of its two cuts
    assert [r["tool"] for r in item["tool_results"]] == ["get_reservation_details",
                                                          "cancel_reservation"]
    assert item["tool_results"][1]["status"] == "error"
    assert item["task"] == "Cancel reservation ABC123 please.\nYes."
    assert set(item) == set(JUDGE_INPUTS["result_interpretation"])  # the judge takes it
    assert 2000 <= len(json.dumps(item)) <= 6000
