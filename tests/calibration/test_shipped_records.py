"""Calibration records shipped for the embedded judge: readable, and measured on the sets and the
prompt templates shipped today (a changed set or template makes its record stale: re-run
`toolgrade calibrate` and replace it)."""

from __future__ import annotations

from toolgrade.calibration.records import read_record, shipped_records_dir, shipped_set_sha256
from toolgrade.judging.prompts import load_template


def test_shipped_records_match_the_shipped_sets() -> None:
    records = sorted(shipped_records_dir().glob("*.json"))
    assert records, "the local judge ships at least one calibration record"
    for path in records:
        record = read_record(path)
        assert record.set_sha256 == shipped_set_sha256(record.dimension), path.name
        assert record.kappa_ci is not None and record.n >= 80


def test_shipped_records_were_measured_with_the_shipped_templates() -> None:
    for path in sorted(shipped_records_dir().glob("*.json")):
        record = read_record(path)
        assert record.template_hash == load_template(record.dimension).template_hash, path.name
