"""Rewrite the table of shipped calibration records in docs/calibration.md from the records."""

from __future__ import annotations

from pathlib import Path

from toolgrade.calibration.records_table import rewrite

DOC = Path(__file__).resolve().parent.parent / "docs" / "calibration.md"

if __name__ == "__main__":
    print(f"{DOC}: {'rewritten' if rewrite(DOC) else 'already in step'}")
