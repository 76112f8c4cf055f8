"""Where graded runs go: results.jsonl, transcripts.jsonl, the summary and the reports.

One process takes each graded run in turn (`OutputWriter.take`). With `toolgrade run --jobs N`
a worker process does that work for a chunk of runs itself (`GradedChunk`: the two output
lines of each run, the chunk's part of the summary and of the reports) and the parent only
writes the lines and merges the parts, in input order (`OutputWriter.take_chunk`). That keeps
the parent's share of each run to a few microseconds, so N workers keep N cores busy, and
every output is byte-identical to one process's (see `SuiteSummary.merge`,
`reporting.ReportStream.merge`).

When grading runs ahead of validation (`runner.validate_and_grade`'s one pass), the two files
are written into a staging folder beside the output folder (`staging`) and moved in once every
input is known valid (`move_in`): nothing goes into the output folder before.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Protocol

from toolgrade.errors import ConfigError
from toolgrade.jsonio import out as json_out
from toolgrade.loaders.transcripts import TRANSCRIPTS_FILE, transcript_text
from toolgrade.models import Case, Trajectory, TrajectoryResult
from toolgrade.models.figures import ResultRecord
from toolgrade.models.summary import SUMMARY_SCHEMA_VERSION, RunSummary
from toolgrade.scoring.inputs import ValidatedInputs
from toolgrade.scoring.summary import SuiteSummary
from toolgrade.scoring.tallies import coverage_counts

#: The files grading writes line by line (staged in the one pass), in this order.
STREAMED = ("results.jsonl", TRANSCRIPTS_FILE)
SUMMARY_FILE = "summary.json"

#: Called after each graded trajectory with (done, total).
ProgressHook = Callable[[int, int], None]


def record_line(data: ResultRecord) -> str:
    """One results.jsonl line (without its newline) for a record's JSON form."""
    return json_out.dumps(data, ensure_ascii=False, default=str)


class RecordPart(Protocol):
    """What the reports need of a chunk of records, taken in a worker process."""

    def add(self, record: ResultRecord) -> None:
        """Take one record's JSON form."""
        ...


class ReportSink(Protocol):
    """Takes every record as it is written, for the reports (a `reporting.ReportStream`)."""

    def add(self, record: ResultRecord) -> None:
        """Take one record's JSON form."""
        ...

    def part_factory(self) -> Callable[[], RecordPart]:
        """What makes an empty part in a worker process (it must pickle: a class)."""
        ...

    def merge(self, part: Any, lines: Sequence[str]) -> None:
        """Take a part made of the records right after those taken so far; `lines`: their
        results.jsonl lines (the part holds what the choice of run views needs, and the few
        records shown are read from their lines)."""
        ...

    def write(self, out_dir: Path, summary: RunSummary) -> object:
        """Write the reports into `out_dir` from the finished summary and the records taken."""
        ...


class GradedChunk:
    """A chunk of graded runs as a worker process sends it back: each run's results.jsonl and
    transcripts.jsonl lines, the summary of the chunk (a `SuiteSummary` part) and, when
    reports are written, their part."""

    def __init__(self, summary: SuiteSummary, reports: RecordPart | None) -> None:
        self.results: list[str] = []
        self.transcripts: list[str] = []
        self.summary = summary
        self.reports = reports

    def add(self, case: Case, run: Trajectory, record: TrajectoryResult) -> None:
        """Take one graded run, in input order."""
        data = record.to_json()
        self.results.append(record_line(data))
        self.transcripts.append(transcript_text(run))
        self.summary.add(case, run, record)
        if self.reports is not None:
            self.reports.add(data)


class OutputWriter:
    """Writes results.jsonl and transcripts.jsonl line by line, folds the summary, feeds the
    reports and reports progress: one graded run at a time, or a worker's chunk at a time."""

    def __init__(
        self,
        results: IO[str],
        transcripts: IO[str],
        summary: SuiteSummary,
        *,
        total: int,
        progress: ProgressHook | None = None,
        on_record: Callable[[ResultRecord], None] | None = None,
        reports: ReportSink | None = None,
    ) -> None:
        self.results, self.transcripts, self.summary = results, transcripts, summary
        self.total, self.progress = total, progress
        self.on_record, self.reports = on_record, reports
        self.done = 0

    def take(self, case: Case, run: Trajectory, record: TrajectoryResult) -> None:
        """One run graded here."""
        data = record.to_json()
        self._write(record_line(data), transcript_text(run))
        if self.on_record is not None:
            self.on_record(data)
        if self.reports is not None:
            self.reports.add(data)
        self.summary.add(case, run, record)
        self._tick()

    def take_chunk(self, chunk: GradedChunk, cases: Mapping[str, Case]) -> None:
        """A chunk graded in a worker process: its lines written one run at a time (so that
        progress and an interrupt see exactly the runs written), its parts merged."""
        self.summary.merge(chunk.summary, cases)
        if self.reports is not None:
            self.reports.merge(chunk.reports, chunk.results)
        for line, transcript in zip(chunk.results, chunk.transcripts, strict=True):
            self._write(line, transcript)
            if self.on_record is not None:
                self.on_record(json.loads(line))
            self._tick()

    def _write(self, line: str, transcript: str) -> None:
        self.results.write(line + "\n")
        self.transcripts.write(transcript + "\n")

    def _tick(self) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total)


@dataclass
class RunOutput:
    """The figures of a finished grading and where they go.

    `grade` writes `results.jsonl`; `summary_path` is where `write_summary` writes `summary`
    once the caller has added what only it knows (`runner.finish`: the judges' usage and
    calibration, the suite, the gates). A library caller that wants the file calls
    `write_summary(output)` itself.
    """

    summary: RunSummary
    results_path: Path
    #: Not written by `grade` (see above).
    summary_path: Path
    #: Per judge dimension, where its items went (`toolgrade run` puts it in summary.judges).
    judge_items: dict[str, dict[str, int]] = field(default_factory=dict)


def run_output(inputs: ValidatedInputs, summary: SuiteSummary, out_dir: Path) -> RunOutput:
    """The finished grading's figures: the summary folded from every graded run, with what
    only the inputs know (coverage, cases without runs, OTLP figures)."""
    data = summary.to_json()
    # The suite's hard-case coverage: every case counts, graded or not (docs/case-format.md).
    data["checks"]["coverage"] = coverage_counts(inputs.suite.cases.values())
    if inputs.cases_without_runs:
        # Counted in `cases` and in no figure: named, so the reports can list them.
        data["cases_without_runs"] = inputs.cases_without_runs
    if inputs.otlp_stats is not None:
        # Spans kept out of the runs are counted here, never dropped silently.
        data["otlp"] = inputs.otlp_stats.to_json()
    return RunOutput(
        summary=RunSummary.model_validate({"schema_version": SUMMARY_SCHEMA_VERSION, **data}),
        results_path=out_dir / STREAMED[0], summary_path=out_dir / SUMMARY_FILE,
        judge_items=summary.adjudication.items.summary(),
    )


def write_summary(output: RunOutput) -> None:
    """Write `summary.json` (after judges and gates were added)."""
    output.summary_path.write_text(output.summary.to_json_text(), encoding="utf-8")


def prepare_out_dir(out_dir: Path, replaced: Iterable[str] = ()) -> None:
    """Create the output folder, or stop with `ConfigError` (exit 2) before anything is written.

    A previous grading's summary and `replaced` files (its reports) are removed first:
    results.jsonl is about to be rewritten, and a grading stopped before its own summary must
    not leave a folder whose files describe two gradings (`toolgrade report` would render them
    together).
    """
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        for name in (SUMMARY_FILE, *replaced):
            (out_dir / name).unlink(missing_ok=True)
    except OSError as exc:
        reason = f"cannot prepare the output folder: {exc.strerror}"
        raise ConfigError(f"--out {out_dir}: {reason}") from exc


@contextmanager
def staging(out_dir: Path) -> Iterator[Path]:
    """A fresh folder for the outputs until the inputs are known valid, removed afterwards
    whatever happens: beside the output folder (in its nearest existing ancestor, so that
    nothing is created for it), where moving the files in is a rename."""
    where = out_dir.absolute().parent
    while not where.is_dir():
        where = where.parent
    try:
        stage = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.toolgrade-", dir=where))
    except OSError:  # a folder we may not write: the temporary folder (a copy at the end)
        stage = Path(tempfile.mkdtemp(prefix="toolgrade-"))
    try:
        yield stage
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def move_in(stage: Path, out_dir: Path) -> None:
    """The staged files into the output folder (made if need be), replacing a previous run's."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in STREAMED:
        try:
            os.replace(stage / name, out_dir / name)
        except OSError:  # another file system: copied
            shutil.move(stage / name, out_dir / name)
