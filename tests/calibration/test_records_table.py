"""docs/calibration.md's table of shipped records is generated from the records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolgrade.calibration.records import CalibrationRecord
from toolgrade.calibration.records_table import END, START, replace_table, shipped_table, table
from toolgrade.judging.local import LOCAL_MODEL
from toolgrade.models.combination import SIGNALS_MODEL

DOC = Path(__file__).resolve().parents[2] / "docs" / "calibration.md"


def test_the_docs_table_is_the_one_the_shipped_records_give() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert START in text and END in text
    assert replace_table(text, shipped_table()) == text, (
        "docs/calibration.md is out of step with the shipped records: "
        "run python scripts/records_table.py")


def test_every_shipped_dimension_has_a_line_and_one_default_judge() -> None:
    lines = [ln for ln in shipped_table().splitlines() if ln.startswith("| `")]
    dimensions = [ln.split("`")[1] for ln in lines]
    assert sorted(set(dimensions)) == [
        "alternate_route", "argument_equivalence", "recovery_quality", "result_interpretation"]
    for dimension in set(dimensions):
        defaults = [ln for ln in lines if f"`{dimension}`" in ln and "(default)" in ln]
        assert len(defaults) == 1, dimension


def test_the_signals_judge_is_the_default_only_where_the_model_adds_too_little() -> None:
    model = record_for("alternate_route", LOCAL_MODEL, cv_auc=0.90, signals_cv_auc=0.89)
    signals = record_for("alternate_route", SIGNALS_MODEL, cv_auc=0.89)
    lines = table([model, signals]).splitlines()[2:]
    assert "signals alone (default)" in lines[1] and "(default)" not in lines[0]
    better = model.model_copy(update={"cv_auc": 0.95})
    lines = table([better, signals]).splitlines()[2:]
    assert f"{LOCAL_MODEL} (default)" in lines[0] and "(default)" not in lines[1]


def record_for(dimension: str, model: str, **extra: Any) -> CalibrationRecord:
    """A fitted logprob record of `model` with the figures the table shows."""
    fields: dict[str, Any] = {
        "model": model, "dimension": dimension, "set_sha256": "0" * 64, "n": 90,
        "observations": 90, "unscored": 0, "human_pass_rate": 0.5, "judge_pass_rate": 0.5,
        "confusion": {}, "agreement": 0.7, "kappa": 0.4, "kappa_ci": (0.3, 0.5), "ac1": 0.4,
        "catch_rate": 0.7, "false_pass_rate": 0.3, "flip_rate": None, "mode": "logprob",
        "cv_threshold": 0.5, "cv_kappa": 0.6, "cv_kappa_ci": (0.5, 0.7),
        "created_at": "2026-12-05T00:00:00+00:00",
    }
    return CalibrationRecord(**{**fields, **extra})
