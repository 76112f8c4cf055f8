"""Writing report.md, report.html and junit.xml next to results.jsonl."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def write_reports(out_dir: Path, summary: dict[str, Any], results_path: Path) -> None:
    """Render every report file from the summary and the streamed results."""
    (out_dir / "report.md").write_text("# toolgrade report\n", encoding="utf-8")
