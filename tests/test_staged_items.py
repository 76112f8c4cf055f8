"""The staged real-length items load as a calibration set, labelled and noted."""

from __future__ import annotations

from pathlib import Path

from toolgrade.calibration.calibrate import load_set

STAGED = Path(__file__).resolve().parents[1] / "scripts" / "staged_items"


def test_staged_result_items_are_a_valid_labelled_set() -> None:
    staged = load_set(STAGED / "result_interpretation.jsonl", "result_interpretation")
    assert len(staged.items) >= 40
    assert all(item.note and "real" in item.tags for item in staged.items)
    labels = [item.label for item in staged.items]
    assert labels.count("fail") >= 10 and labels.count("pass") >= 10
