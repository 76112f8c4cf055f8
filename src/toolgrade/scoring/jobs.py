"""`--jobs N` and `--engine ray` for grading: run lines graded in an engine's workers (the
process pool: `workers`; Ray: `ray_engine`; either is an `engines.Engine`). Validation's
reading in workers is `parallel_read`.

Each line is parsed again and graded by every check, and folded, in the worker, into the
chunk's part of the summary and of the reports; the parent writes the results.jsonl and
transcripts.jsonl lines the worker made and merges the parts, in input order
(`scoring.outputs`). Each worker holds the suite, the people's route decisions and the checks;
a line travels as its text, and a graded chunk comes back as its output lines and its parts,
never as pydantic records (rebuilding those in the parent cost more than the parent could keep
up with).

OTLP trace exports are read in the parent, as by one process (an export is read whole, and its
trials are numbered across files): grading sends each of their runs to a worker already read.

Judges are not sent to workers: a run with a judge grades in the parent, where the judge's own
concurrency bound and its verdict cache live (see `runner.grade`).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from toolgrade.checks import Check, default_checks
from toolgrade.loaders import Suite
from toolgrade.loaders.runs import RawLine, iter_run_sources, read_line
from toolgrade.models import HumanDecisions, Trajectory
from toolgrade.scoring.engines import Engine
from toolgrade.scoring.grading import crashed_record, grade_trajectory
from toolgrade.scoring.inputs import ValidatedInputs
from toolgrade.scoring.outputs import GradedChunk, RecordPart
from toolgrade.scoring.summary import SuiteSummary
from toolgrade.scoring.workers import CHUNK_SIZE

# Grading ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Grader:
    """A worker's suite, route decisions, checks and what its chunks are made of."""

    suite: Suite
    decisions: HumanDecisions
    checks: list[Check]
    shape: _ChunkShape


#: The worker's grader, set once by `_start_grader` (a list: a module global set in place).
_GRADER: list[_Grader] = []

#: A run to grade: a line still to read, or a run the parent read (an OTLP export's).
_Item = RawLine | Trajectory


@dataclass(frozen=True)
class _ChunkShape:
    """What every chunk's parts are made of: the checks' accumulators, the summary's shape and
    the reports' part (None: no reports are written)."""

    checks: list[Check]
    n_cases: int
    multi_agent: bool
    report_part: Callable[[], RecordPart] | None

    def empty(self) -> GradedChunk:
        summary = SuiteSummary(self.checks, self.n_cases, self.multi_agent, part=True)
        return GradedChunk(summary, self.report_part() if self.report_part else None)


def _start_grader(
    suite: Suite, decisions: HumanDecisions, checks: list[Check] | None, multi_agent: bool,
    report_part: Callable[[], RecordPart] | None,
) -> None:
    checks = checks if checks is not None else default_checks()
    shape = _ChunkShape(checks, len(suite), multi_agent, report_part)
    _GRADER[:] = [_Grader(suite, decisions, checks, shape)]


def _run_of(item: _Item) -> Trajectory:
    if isinstance(item, Trajectory):
        return item
    run, problems = read_line(item.text, item.path, item.number)
    if run is None:  # validated before grading: only a file changed since can do this
        raise ValueError(f"{item.path}:{item.number}: {'; '.join(map(str, problems))}")
    return run


def _grade_chunk(items: list[_Item]) -> list[GradedChunk]:
    """Worker: each (validated) run graded, folded into one chunk for the parent to write and
    merge (one answer for the whole chunk: see `workers.ordered_map`)."""
    grader = _GRADER[0]
    suite, checks, decisions = grader.suite, grader.checks, grader.decisions
    chunk = grader.shape.empty()
    for item in items:
        run = _run_of(item)
        case = suite.cases[run.case_id]
        chunk.add(case, run, grade_trajectory(case, run, checks, None, suite.base_dir, decisions))
    return [chunk]


def picklable(checks: list[Check] | None) -> bool:
    """Whether custom checks can be sent to workers (default checks are built there)."""
    try:
        pickle.dumps(checks)
    except Exception:
        return False
    return True


def _runs_to_grade(inputs: ValidatedInputs) -> Iterable[_Item]:
    """Every validated run, in input order: JSON lines unread, OTLP runs read here."""
    for source in iter_run_sources(inputs.files, inputs.otlp):
        if isinstance(source, RawLine):
            yield source
        elif source[2] is not None:
            yield source[2]


def grade_in_workers(
    inputs: ValidatedInputs, checks: list[Check], *, engine: Engine, send_checks: bool,
    chunk_size: int = CHUNK_SIZE, part_factory: Callable[[], RecordPart] | None = None,
) -> Iterator[GradedChunk]:
    """Every run graded in the engine's workers, in input order, a chunk at a time: each run's
    two output lines, and the chunk's parts of the summary and (with `part_factory`) the
    reports.
    `send_checks` False: the workers build the default checks themselves.

    A chunk lost with its worker comes back one run at a time (a `GradedChunk` each), and a
    run that kills its worker again comes back graded here as crashed.
    """
    suite = inputs.suite
    multi_agent = len(inputs.agents) > 1
    shape = _ChunkShape(checks, len(suite), multi_agent, part_factory)

    def crashed(item: _Item, reason: str) -> GradedChunk:
        run = _run_of(item)
        case = suite.cases[run.case_id]
        chunk = shape.empty()
        chunk.add(case, run, crashed_record(case, run, checks, reason))
        return chunk

    initargs = (suite, inputs.decisions, checks if send_checks else None, multi_agent,
                part_factory)
    yield from engine.ordered_map(
        _runs_to_grade(inputs), _grade_chunk, crashed, initializer=_start_grader,
        initargs=initargs, chunk_size=chunk_size,
    )
