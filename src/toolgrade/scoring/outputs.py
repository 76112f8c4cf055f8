"""Where graded runs go: results.jsonl, transcripts.jsonl, the summary and the reports.

One process takes each graded run in turn (`OutputWriter.take`). With `toolgrade run --jobs N`
a worker process does that work for a chunk of runs itself (`GradedChunk`: the two output
lines of each run, the chunk's part of the summary and of the reports) and the parent only
writes the lines and merges the parts, in input order (`OutputWriter.take_chunk`). That keeps
the parent's share of each run to a few microseconds, so N workers keep N cores busy, and
every output is byte-identical to one process's (see `SuiteSummary.merge`,
`reporting.ReportStream.merge`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any, Protocol

from toolgrade.jsonio import out as json_out
from toolgrade.loaders.transcripts import transcript_text
from toolgrade.models import Case, Trajectory, TrajectoryResult
from toolgrade.models.figures import ResultRecord
from toolgrade.scoring.summary import SuiteSummary

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
