"""Writing report.md, report.html and junit.xml next to results.jsonl."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from toolgrade.errors import ToolgradeError
from toolgrade.loaders.locate import dotted
from toolgrade.loaders.transcripts import TRANSCRIPTS_FILE
from toolgrade.models import Case
from toolgrade.models.figures import ResultRecord
from toolgrade.models.summary import RunSummary
from toolgrade.reporting.charts import ScoreHistogram
from toolgrade.reporting.digest import Digest, iter_records
from toolgrade.reporting.html import render_html
from toolgrade.reporting.junit import JunitCases
from toolgrade.reporting.markdown import render_markdown
from toolgrade.reporting.report_part import ReportPart
from toolgrade.reporting.run_sample import RunPicker
from toolgrade.reporting.runs_section import runs_section, suite_cases
from toolgrade.reporting.view import build_view

REPORT_FILES = ("report.md", "report.html", "junit.xml")


def read_summary(data: Any) -> RunSummary | list[str]:
    """`data` as a `RunSummary`, or `field: reason` for each way it is not a toolgrade summary
    (`models.summary`), checked strictly (no "0.9" for 0.9) before `toolgrade report` renders
    a file it did not write: a hand-edited or foreign file would otherwise render nonsense or
    fail deep inside a table."""
    if not isinstance(data, dict):
        return ["expected a JSON object"]
    try:
        return RunSummary.model_validate(data, strict=True)
    except ValidationError as exc:
        out = []
        for err in exc.errors():
            where = dotted(tuple(p for p in err["loc"] if isinstance(p, str | int)))
            out.append(f"{where}: {str(err['msg']).removeprefix('Value error, ')}")
        return out


def summary_problems(data: Any) -> list[str]:
    """`field: reason` for each way `data` is not a toolgrade summary (see `read_summary`)."""
    found = read_summary(data)
    return found if isinstance(found, list) else []


class ReportStream:
    """What the report files need from the results, taken one record at a time.

    The runner feeds it each record as it writes results.jsonl (`grade(reports=...)`), or each
    worker's part of them (`merge`), so the reports cost no second reading of the file;
    `write_reports` feeds it from the file instead.
    Memory stays bounded (the digest keeps capped examples; JUnit testcases wait on disk;
    the picker keeps the records of the runs shown, `run_sample`). The run views read their
    steps from the folder's transcripts.jsonl when the reports are written.
    """

    def __init__(self, transcripts: Path | None = None,
                 cases: Mapping[str, Case] | None = None) -> None:
        """`transcripts`: the transcripts.jsonl beside the results (default: the one in the
        folder the reports are written to); `cases`: the suite's cases, for the task and the
        reference each run view shows (default: read from the summary's `suite` path)."""
        self.cases = cases
        self.digest = Digest()
        self.junit = JunitCases()
        self.runs = RunPicker()
        self.scores = ScoreHistogram()
        self.transcripts = transcripts
        #: No transcripts to show: no record is kept for a run view.
        self.keep_runs = transcripts is None or transcripts.is_file()

    def __enter__(self) -> ReportStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.junit.close()

    def add(self, record: ResultRecord) -> None:
        """Take one results.jsonl record (as a dict)."""
        examples = self.digest.kept
        self.digest.add(record)
        self.junit.add(record)
        self.scores.add((record.get("aggregate") or {}).get("score"))
        if self.keep_runs:
            self.runs.offer(self.digest.lines - 1, record, linked=self.digest.kept > examples)

    def part_factory(self) -> type[ReportPart]:
        """What makes a worker's part of the reports (`toolgrade run --jobs N`)."""
        return ReportPart

    def merge(self, part: ReportPart, lines: Sequence[str]) -> None:
        """Take a worker's part, made of the records right after those taken so far, as if
        each record had been `add`ed; `lines` are their results.jsonl lines, of which only
        those of the runs given a view are read."""
        offset = self.digest.lines
        linked = self.digest.merge(part.digest)
        self.junit.merge(part.junit)
        for facts in part.runs:
            self.scores.add(facts.score)
        if not self.keep_runs:
            return
        for i, facts in enumerate(part.runs):
            self.runs.take(offset + i, facts, i in linked, partial(json.loads, lines[i]))

    def write(self, out_dir: Path, summary: RunSummary) -> list[Path]:
        """Render every report file from the summary and the records taken; return the paths."""
        out_dir.mkdir(parents=True, exist_ok=True)
        cases = self.cases if self.cases is not None else suite_cases(summary)
        view = build_view(summary, self.digest, runs_section(
            self.transcripts or out_dir / TRANSCRIPTS_FILE, self.runs, self.digest.lines,
            cases), self.scores)
        written = [out_dir / name for name in REPORT_FILES]
        written[0].write_text(render_markdown(view), encoding="utf-8")
        written[1].write_text(render_html(view), encoding="utf-8")
        self.junit.write(written[2])
        return written


def write_reports(
    out_dir: Path, summary: RunSummary, results_path: Path, expected: int | None = None
) -> list[Path]:
    """Render every report file from the summary and results.jsonl, read once line by line
    (so a huge run costs time, not memory); return their paths. The run views read the
    transcripts.jsonl beside `results_path`.

    `expected`: the number of records the summary counts; a file holding another number is
    from another run (or cut short), and nothing is written.
    """
    with ReportStream(results_path.parent / TRANSCRIPTS_FILE) as stream:
        for record in iter_records(results_path):
            stream.add(record)
        found = stream.digest.lines
        if expected is not None and found != expected:
            raise ToolgradeError(
                f"{results_path}: {found} records, but summary.json counts {expected} "
                "trajectories: the two files are not from the same run"
            )
        return stream.write(out_dir, summary)


def read_output_folder(out_dir: Path) -> tuple[Path, RunSummary]:
    """An output folder's results.jsonl path and its summary.json, read and checked.

    Raises ToolgradeError naming what is missing or unreadable.
    """
    results_path, summary_path = out_dir / "results.jsonl", out_dir / "summary.json"
    missing = [p.name for p in (results_path, summary_path) if not p.is_file()]
    if missing:
        raise ToolgradeError(f"{out_dir}: no {' or '.join(missing)} here; run `toolgrade run "
                             f"SUITE RUNS --out {out_dir}` first")
    try:
        data = json.loads(summary_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ToolgradeError(f"{summary_path}: not readable JSON: {exc}") from exc
    summary = read_summary(data)
    if isinstance(summary, list):
        raise ToolgradeError(
            f"{summary_path}: not a toolgrade summary:\n  " + "\n  ".join(summary)
        )
    return results_path, summary


def rerender(out_dir: Path) -> list[Path]:
    """Re-write the reports of an existing output folder from its results.jsonl and summary.json.

    Raises ToolgradeError naming what is missing or unreadable; nothing is re-graded.
    """
    results_path, summary = read_output_folder(out_dir)
    try:
        return write_reports(out_dir, summary, results_path, expected=summary.trajectories)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        # Lines shaped like records at their top level and not below it.
        raise ToolgradeError(f"{results_path}: not a toolgrade results file: {exc}") from exc
