"""The table of shipped records in docs/calibration.md, generated from the records themselves
(`python scripts/records_table.py` rewrites it; a test keeps the docs in step)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from toolgrade.calibration.records import (
    CalibrationRecord,
    read_record,
    shipped_records_dir,
    signals_suffice,
)
from toolgrade.models.combination import SIGNALS_MODEL

#: The markers around the generated table in the docs.
START = "<!-- shipped-records:start (generated: python scripts/records_table.py) -->"
END = "<!-- shipped-records:end -->"


def _figure(value: float | None, ci: tuple[float, float] | None = None) -> str:
    if value is None:
        return "n/a"
    shown = f"{value:.2f}"
    return shown + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci is not None else "")


def row(record: CalibrationRecord, default: bool = False) -> str:
    """One record's line: which judge (`default`: the one `run` uses), ranking AUC, plain kappa
    at its cut, coverage and decided kappa (5-fold CV)."""
    judge = "signals alone" if record.model == SIGNALS_MODEL else record.model
    judge += " (default)" if default else ""
    how = ("P(pass)" if record.combination is None else
           "signals" if record.model == SIGNALS_MODEL else "combined with signals")
    cut = f"{record.cv_threshold:.3f}" if record.cv_threshold is not None else "n/a"
    plain = _figure(record.cv_kappa, record.cv_kappa_ci)
    auc = _figure(record.cv_auc)
    if record.band_target_kappa is None:
        band, coverage, decided = "none (record format 1)", "1.00", plain
    else:
        band = ("decides nothing" if record.cv_coverage == 0.0 else
                "none" if record.band is None else
                f"[{record.band[0]:.3f}, {record.band[1]:.3f}]")
        coverage = f"{record.cv_coverage:.2f}" if record.cv_coverage is not None else "n/a"
        decided = _figure(record.cv_decided_kappa, record.cv_decided_kappa_ci)
    return (f"| `{record.dimension}` | {judge} | {record.n} | {how}, cut {cut} | {auc} | "
            f"{plain} | {band} | {coverage} | {decided} |")


def _defaults(records: list[CalibrationRecord]) -> set[int]:
    """The positions of the records `run` follows by default: per dimension the signals
    judge's where the model's record says the model adds too little, else the model's."""
    chosen: set[int] = set()
    for dim in {r.dimension for r in records}:
        mine = [(i, r) for i, r in enumerate(records) if r.dimension == dim]
        model = [(i, r) for i, r in mine if r.model != SIGNALS_MODEL]
        signals = [(i, r) for i, r in mine if r.model == SIGNALS_MODEL]
        use_signals = bool(signals) and any(signals_suffice(r) for _, r in model)
        chosen |= {i for i, _ in (signals if use_signals else model)}
    return chosen


def table(records: Iterable[CalibrationRecord]) -> str:
    """The markdown table, one line per record, by dimension then judge."""
    ordered = sorted(records, key=lambda r: (r.dimension, r.model == SIGNALS_MODEL, r.model))
    defaults = _defaults(ordered)
    lines = [
        "| dimension | judge | n | judged on | ranking AUC | plain kappa at the cut [95% CI] | "
        "band | coverage | decided kappa [95% CI] |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [row(r, i in defaults) for i, r in enumerate(ordered)]
    return "\n".join(lines) + "\n"


def shipped_table() -> str:
    """The table of the records shipped with toolgrade."""
    return table(read_record(p) for p in sorted(shipped_records_dir().glob("*.json")))


def replace_table(text: str, generated: str) -> str:
    """`text` with the part between the markers replaced by `generated`."""
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{generated}{END}{tail}"


def rewrite(doc: Path) -> bool:
    """Rewrite the table in `doc`; True when it changed."""
    before = doc.read_text(encoding="utf-8")
    after = replace_table(before, shipped_table())
    if after != before:
        doc.write_text(after, encoding="utf-8")
    return after != before
