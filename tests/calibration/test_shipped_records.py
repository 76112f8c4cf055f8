"""Calibration records shipped for the embedded judge: readable, and measured on the sets and the
prompt templates shipped today (a changed set or template makes its record stale: re-run
`toolgrade calibrate` and replace it)."""

from __future__ import annotations

from toolgrade.calibration.records import (
    find_record,
    read_record,
    shipped_records_dir,
    shipped_set_sha256,
)
from toolgrade.judging.prompts import load_template
from toolgrade.judging.signals_judge import (
    SIGNALS_MODEL,
    SIGNALS_TEMPLATE_HASH,
    has_signals,
    is_signals_model,
)


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
        expected = (SIGNALS_TEMPLATE_HASH if is_signals_model(record.model)
                    else load_template(record.dimension).template_hash)
        assert record.template_hash == expected, path.name


def test_the_model_records_say_what_the_model_adds_over_the_signals() -> None:
    # run's default per dimension reads these two figures (judging.defaults).
    for path in sorted(shipped_records_dir().glob("*__local_*.json")):
        record = read_record(path)
        assert record.cv_auc is not None, path.name
        if has_signals(record.dimension):
            assert record.signals_cv_auc is not None, path.name
            signals = find_record(shipped_records_dir(), SIGNALS_MODEL, record.dimension)
            assert signals is not None and signals.combination is not None, path.name
            assert "model_logit" not in signals.combination.features
