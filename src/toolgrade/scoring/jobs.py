"""The work an engine's workers do (`engines.LocalProcesses`, `ray_engine.RayEngine`): run lines
read, and graded, a chunk at a time.

Two kinds of chunk, both answered in input order:

- `read_chunk`, the first pass over the run files: each line parsed once and answered as
  validation takes it (file, line, the run's identity, the problems reading it found); when the
  worker grades too (no judge, `runner.validate_and_grade`'s one pass), the chunk comes back
  graded as well, up to the first line with a problem (past it the run is refused and the
  grading thrown away). A worker that only reads sends back each run's key, never the run.
- `grade_chunk`, runs already validated graded (`runner.grade` with an engine).

A graded chunk is the chunk's results.jsonl and transcripts.jsonl lines and its parts of the
summary and of the reports (`outputs.GradedChunk`), folded in the worker; the parent writes the
lines and merges the parts. Each worker holds the suite, the people's route decisions and the
checks, set once by `start_worker`; a line travels as its text, never as a pydantic record
(rebuilding those in the parent cost more than the parent could keep up with).

OTLP trace exports are read in the parent, as by one process (an export is read whole, and its
trials are numbered across files): a worker gets each of their runs already read. Judges are
never sent to workers: a run with a judge grades in the parent, where the judge's own
concurrency bound and its verdict cache live.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from toolgrade.checks import Check, default_checks
from toolgrade.errors import InputProblem
from toolgrade.loaders import Suite
from toolgrade.loaders.otlp import OtlpOptions, OtlpStats, RunRow
from toolgrade.loaders.runs import RawLine, iter_run_sources, read_line
from toolgrade.models import HumanDecisions, Trajectory
from toolgrade.scoring import engines
from toolgrade.scoring.engines import Engine
from toolgrade.scoring.grading import as_graded, crashed_record, grade_trajectory
from toolgrade.scoring.inputs import RunKey, ValidatedInputs, run_key
from toolgrade.scoring.outputs import GradedChunk, RecordPart
from toolgrade.scoring.summary import SuiteSummary
from toolgrade.scoring.tallies import KindRates

#: One line as validation takes it: file, line, the run's key (None: it did not read), problems.
Read = tuple[str, int, RunKey | None, list[InputProblem]]
#: What the first pass hands a worker: a line to read, or a row the parent read (a missing
#: file; an OTLP export's run or problem), its run cut down to its key when nothing is graded.
ReadItem = RawLine | RunRow | Read
#: A validated run to grade: a line still to read, or a run the parent read (an OTLP export's).
GradeItem = RawLine | Trajectory


@dataclass(frozen=True)
class _ChunkShape:
    """What every chunk's parts are made of: the checks' accumulators, the summary's shape and
    the reports' part (None: no reports are written)."""

    checks: list[Check]
    n_cases: int
    multi_agent: bool
    report_part: Callable[[], RecordPart] | None

    #: The cases' hard-case kinds, inferred once per worker rather than once per chunk.
    kinds: KindRates = field(default_factory=KindRates)

    def empty(self) -> GradedChunk:
        summary = SuiteSummary(self.checks, self.n_cases, self.multi_agent, part=True)
        summary.kind_rates.share_kinds(self.kinds)
        return GradedChunk(summary, self.report_part() if self.report_part else None)


@dataclass(frozen=True)
class Grader:
    """What a worker grades with: the suite, the route decisions, the checks (None: the default
    ones, built in the worker) and whether the summary keys runs by agent."""

    suite: Suite
    decisions: HumanDecisions
    checks: list[Check] | None
    multi_agent: bool
    report_part: Callable[[], RecordPart] | None


@dataclass(frozen=True)
class _Worker:
    """A worker's state: what it grades with (None: it only reads) and whether a run's key
    carries the tools it called (tool coverage, for a suite with `tools_from`)."""

    grader: Grader | None
    checks: list[Check]
    shape: _ChunkShape | None
    with_tools: bool


#: The worker's state, set once by `start_worker` (a list: a module global set in place).
_WORKER: list[_Worker] = []


def start_worker(grader: Grader | None, with_tools: bool = False) -> None:
    """Worker start-up: what it grades with (None: it only reads) and the shape of a chunk."""
    if grader is None:
        _WORKER[:] = [_Worker(None, [], None, with_tools)]
        return
    checks = grader.checks if grader.checks is not None else default_checks()
    shape = _ChunkShape(checks, len(grader.suite), grader.multi_agent, grader.report_part)
    _WORKER[:] = [_Worker(grader, checks, shape, with_tools)]


@dataclass
class ReadChunk:
    """A first-pass chunk as a worker answers it: each item as validation takes it, and the
    chunk graded (None when the worker only reads)."""

    reads: list[Read]
    graded: GradedChunk | None


def read_chunk(items: list[ReadItem]) -> list[ReadChunk]:
    """Worker: each line parsed once, answered as validation takes it, and graded when the
    worker grades (one answer for the chunk)."""
    worker = _WORKER[0]
    grader, shape = worker.grader, worker.shape
    chunk = shape.empty() if shape is not None else None
    reads: list[Read] = []
    refused = False
    for item in items:
        file, number, run, problems = read_item(item)
        key = run if isinstance(run, RunKey) else run_key(run, worker.with_tools)
        reads.append((file, number, key, problems))
        if grader is None or chunk is None:
            continue
        suite = grader.suite
        refused = refused or bool(problems) or (key is not None and key.case_id not in suite.cases)
        if isinstance(run, Trajectory) and not refused:
            case = suite.cases[run.case_id]
            run = as_graded(case, run)
            chunk.add(case, run, grade_trajectory(case, run, worker.checks, None,
                                                  suite.base_dir, grader.decisions))
    return [ReadChunk(reads, chunk)]


def read_item(item: ReadItem) -> tuple[str, int, Trajectory | RunKey | None, list[InputProblem]]:
    """A line read (`read_line`), or the row the parent read already."""
    if not isinstance(item, RawLine):
        return item
    run, problems = read_line(item.text, item.path, item.number)
    return str(item.path), item.number, run, problems


def read_in_workers(
    files: list[Path], engine: Engine, otlp: OtlpOptions, stats: OtlpStats, *,
    grader: Grader | None, with_tools: bool,
) -> Iterator[ReadChunk]:
    """The first pass in the engine's workers: every run line read (and graded, with a
    `grader`), a chunk at a time, in input order."""
    rows = iter_run_sources(files, otlp, stats)
    # A reading worker gets a run the parent read as its key only.
    sources: Iterable[ReadItem] = rows if grader is not None else (_as_key(s) for s in rows)
    crashed = _unreadable if grader is None else _read_here(grader)
    yield from engine.ordered_map(
        sources, read_chunk, crashed, initializer=start_worker,
        initargs=(grader, with_tools), chunk_size=engines.CHUNK_SIZE,
    )


def _as_key(source: RunRow | RawLine) -> RawLine | Read:
    """What a reading worker gets: a line to read, or what the parent read already, the run
    cut down to its key (with its tools) so it travels light."""
    if isinstance(source, RawLine):
        return source
    file, number, run, problems = source
    return file, number, run_key(run, with_tools=True), problems


def _unreadable(item: ReadItem, reason: str) -> ReadChunk:
    """A line whose reading worker died or raised: a problem, never a read in this process."""
    file, number = (str(item.path), item.number) if isinstance(item, RawLine) else item[:2]
    problem = InputProblem(file, number, "", f"could not be read: {reason}")
    return ReadChunk([(file, number, None, [problem])], None)


def _read_here(grader: Grader) -> Callable[[ReadItem, str], ReadChunk]:
    """What answers for an item whose grading worker died or raised: the item read here (as
    one process reads it), and when it is a valid run, a record whose checks crashed."""
    checks = grader.checks if grader.checks is not None else default_checks()
    shape = _ChunkShape(checks, len(grader.suite), grader.multi_agent, grader.report_part)
    suite = grader.suite

    def crashed(item: ReadItem, reason: str) -> ReadChunk:
        file, number, run, problems = read_item(item)
        chunk = shape.empty()
        if isinstance(run, Trajectory) and not problems and run.case_id in suite.cases:
            case = suite.cases[run.case_id]
            chunk.add(case, run, crashed_record(case, run, checks, reason))
        key = run if isinstance(run, RunKey) else run_key(run)
        return ReadChunk([(file, number, key, problems)], chunk)

    return crashed


def grade_chunk(items: list[GradeItem]) -> list[GradedChunk]:
    """Worker: each validated run graded, folded into one chunk for the parent to write and
    merge (one answer for the chunk)."""
    worker = _WORKER[0]
    grader, shape = worker.grader, worker.shape
    assert grader is not None and shape is not None  # `grade_in_workers` sends a grader
    suite = grader.suite
    chunk = shape.empty()
    for item in items:
        run = _run_of(item)
        case = suite.cases[run.case_id]
        run = as_graded(case, run)
        chunk.add(case, run, grade_trajectory(case, run, worker.checks, None, suite.base_dir,
                                              grader.decisions))
    return [chunk]


def _run_of(item: GradeItem) -> Trajectory:
    if isinstance(item, Trajectory):
        return item
    run, problems = read_line(item.text, item.path, item.number)
    if run is None:  # validated before grading: only a file changed since can do this
        raise ValueError(f"{item.path}:{item.number}: {'; '.join(map(str, problems))}")
    return run


def _runs_to_grade(inputs: ValidatedInputs) -> Iterable[GradeItem]:
    """Every validated run, in input order: JSON lines unread, OTLP runs read here."""
    for source in iter_run_sources(inputs.files, inputs.otlp):
        if isinstance(source, RawLine):
            yield source
        elif source[2] is not None:
            yield source[2]


def grade_in_workers(
    inputs: ValidatedInputs, checks: list[Check], *, engine: Engine, send_checks: bool,
    part_factory: Callable[[], RecordPart] | None = None,
) -> Iterator[GradedChunk]:
    """Every validated run graded in the engine's workers, in input order, a chunk at a time:
    each run's two output lines, and the chunk's parts of the summary and (with
    `part_factory`) the reports. `send_checks` False: the workers build the default checks.

    A chunk lost with its worker comes back one run at a time (a `GradedChunk` each), and a
    run that kills its worker again comes back graded here as crashed.
    """
    suite = inputs.suite
    multi_agent = len(inputs.agents) > 1
    shape = _ChunkShape(checks, len(suite), multi_agent, part_factory)

    def crashed(item: GradeItem, reason: str) -> GradedChunk:
        run = _run_of(item)
        case = suite.cases[run.case_id]
        chunk = shape.empty()
        chunk.add(case, run, crashed_record(case, run, checks, reason))
        return chunk

    grader = Grader(suite, inputs.decisions, checks if send_checks else None, multi_agent,
                    part_factory)
    yield from engine.ordered_map(
        _runs_to_grade(inputs), grade_chunk, crashed, initializer=start_worker,
        initargs=(grader,), chunk_size=engines.CHUNK_SIZE,
    )


def picklable(checks: list[Check] | None) -> bool:
    """Whether custom checks can be sent to workers (default checks are built there)."""
    try:
        pickle.dumps(checks)
    except Exception:
        return False
    return True
