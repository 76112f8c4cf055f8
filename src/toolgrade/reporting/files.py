"""Writing report.md, report.html and junit.xml next to results.jsonl."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolgrade.errors import ToolgradeError
from toolgrade.reporting.digest import digest_results
from toolgrade.reporting.html import render_html
from toolgrade.reporting.junit import write_junit
from toolgrade.reporting.markdown import render_markdown
from toolgrade.reporting.view import build_view

REPORT_FILES = ("report.md", "report.html", "junit.xml")


def write_reports(out_dir: Path, summary: dict[str, Any], results_path: Path) -> list[Path]:
    """Render every report file from the summary and the streamed results; return their paths.

    results.jsonl is read twice, line by line (once for the digest, once for JUnit), so a huge
    run costs time, not memory.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    digest = digest_results(results_path)
    view = build_view(summary, digest)
    written = [out_dir / name for name in REPORT_FILES]
    written[0].write_text(render_markdown(view), encoding="utf-8")
    written[1].write_text(render_html(view), encoding="utf-8")
    runs_per_case = {case_id: tally.runs for case_id, tally in digest.cases.items()}
    write_junit(written[2], results_path, runs_per_case=runs_per_case)
    return written


def rerender(out_dir: Path) -> list[Path]:
    """Re-write the reports of an existing output folder from its results.jsonl and summary.json.

    Raises ToolgradeError naming what is missing or unreadable; nothing is re-graded.
    """
    results_path, summary_path = out_dir / "results.jsonl", out_dir / "summary.json"
    missing = [p.name for p in (results_path, summary_path) if not p.is_file()]
    if missing:
        raise ToolgradeError(f"{out_dir}: no {' or '.join(missing)} here; run `toolgrade run "
                             f"SUITE RUNS --out {out_dir}` first")
    try:
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ToolgradeError(f"{summary_path}: not readable JSON: {exc}") from exc
    if not isinstance(summary, dict):
        raise ToolgradeError(f"{summary_path}: expected a JSON object")
    try:
        return write_reports(out_dir, summary, results_path)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        # A line that is not JSON, or JSON not shaped like a toolgrade record.
        raise ToolgradeError(f"{results_path}: not a toolgrade results file: {exc!r}") from exc
