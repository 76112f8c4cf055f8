"""The table of shipped records in docs/calibration.md, generated from the records themselves
(`python scripts/records_table.py` rewrites it; a test keeps the docs in step)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from toolgrade.calibration.records import CalibrationRecord, read_record, shipped_records_dir

#: The markers around the generated table in the docs.
START = "<!-- shipped-records:start (generated: python scripts/records_table.py) -->"
END = "<!-- shipped-records:end -->"


def _figure(value: float | None, ci: tuple[float, float] | None = None) -> str:
    if value is None:
        return "n/a"
    shown = f"{value:.2f}"
    return shown + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci is not None else "")


def row(record: CalibrationRecord) -> str:
    """One record's line: plain kappa at its cut, coverage and decided kappa (5-fold CV)."""
    how = "combined with signals" if record.combination is not None else "P(pass)"
    cut = f"{record.cv_threshold:.3f}" if record.cv_threshold is not None else "n/a"
    plain = _figure(record.cv_kappa, record.cv_kappa_ci)
    if record.band_target_kappa is None:
        band, coverage, decided = "none (record format 1)", "1.00", plain
    else:
        band = ("decides nothing" if record.cv_coverage == 0.0 else
                "none" if record.band is None else
                f"[{record.band[0]:.3f}, {record.band[1]:.3f}]")
        coverage = f"{record.cv_coverage:.2f}" if record.cv_coverage is not None else "n/a"
        decided = _figure(record.cv_decided_kappa, record.cv_decided_kappa_ci)
    return (f"| `{record.dimension}` | {record.n} | {how}, cut {cut} | {plain} | {band} | "
            f"{coverage} | {decided} |")


def table(records: Iterable[CalibrationRecord]) -> str:
    """The markdown table, one line per record, by dimension."""
    lines = [
        "| dimension | n | judged on | plain kappa at the cut [95% CI] | band | coverage | "
        "decided kappa [95% CI] |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [row(r) for r in sorted(records, key=lambda r: r.dimension)]
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
