"""docs/calibration.md's table of shipped records is generated from the records."""

from __future__ import annotations

from pathlib import Path

from toolgrade.calibration.records_table import END, START, replace_table, shipped_table

DOC = Path(__file__).resolve().parents[2] / "docs" / "calibration.md"


def test_the_docs_table_is_the_one_the_shipped_records_give() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert START in text and END in text
    assert replace_table(text, shipped_table()) == text, (
        "docs/calibration.md is out of step with the shipped records: "
        "run python scripts/records_table.py")


def test_every_shipped_dimension_has_a_line() -> None:
    lines = [ln for ln in shipped_table().splitlines() if ln.startswith("| `")]
    assert [ln.split("`")[1] for ln in lines] == [
        "alternate_route", "argument_equivalence", "recovery_quality", "result_interpretation"]
