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

`read_and_grade_chunk` is the worker's side of the one pass (`scoring.one_pass`): each line
parsed once, answered both as validation reads it and graded.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from toolgrade.checks import Check, default_checks
from toolgrade.errors import InputProblem
from toolgrade.loaders import Suite
from toolgrade.loaders.otlp import RunRow
from toolgrade.loaders.runs import RawLine, iter_run_sources, read_line
from toolgrade.models import HumanDecisions, Trajectory
from toolgrade.scoring.coverage import KindRates
from toolgrade.scoring.engines import Engine
from toolgrade.scoring.grading import as_graded, crashed_record, grade_trajectory
from toolgrade.scoring.inputs import ValidatedInputs
from toolgrade.scoring.outputs import GradedChunk, RecordPart
from toolgrade.scoring.parallel_read import RunKey, run_key
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

    #: The cases' hard-case kinds, inferred once per worker rather than once per chunk.
    kinds: KindRates = field(default_factory=KindRates)

    def empty(self) -> GradedChunk:
        summary = SuiteSummary(self.checks, self.n_cases, self.multi_agent, part=True)
        summary.kind_rates.share_kinds(self.kinds)
        return GradedChunk(summary, self.report_part() if self.report_part else None)


def start_grader(
    suite: Suite, decisions: HumanDecisions, checks: list[Check] | None, multi_agent: bool,
    report_part: Callable[[], RecordPart] | None,
) -> None:
    """Worker start-up: the suite, the decisions and the checks (None: the default ones,
    built here), and the shape of a chunk's parts."""
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
        run = as_graded(case, run)
        chunk.add(case, run, grade_trajectory(case, run, checks, None, suite.base_dir, decisions))
    return [chunk]


@dataclass
class ReadAndGraded:
    """A chunk as the one pass (`scoring.one_pass`) gets it back from a worker: what reading
    each item found, as validation takes it (file, line, the run's identity, problems), and
    the chunk graded (every run read and of a known case, until a line with a problem: past
    that, the run is refused and the grading thrown away)."""

    reads: list[tuple[str, int, RunKey | None, list[InputProblem]]]
    graded: GradedChunk


#: What the one pass hands a worker: a line to read, or a row the parent read (a missing file;
#: an OTLP export's run, or problem).
OnePassItem = RawLine | RunRow


def read_and_grade_chunk(items: list[OnePassItem]) -> list[ReadAndGraded]:
    """Worker: each line parsed once, validated and graded (one answer for the chunk)."""
    grader = _GRADER[0]
    suite, checks, decisions = grader.suite, grader.checks, grader.decisions
    chunk = grader.shape.empty()
    reads: list[tuple[str, int, RunKey | None, list[InputProblem]]] = []
    refused = False
    for item in items:
        file, number, run, problems = read_item(item)
        reads.append((file, number, run_key(run), problems))
        refused = refused or bool(problems) or (run is not None and run.case_id not in suite.cases)
        if run is not None and not refused:
            case = suite.cases[run.case_id]
            run = as_graded(case, run)
            chunk.add(case, run, grade_trajectory(case, run, checks, None, suite.base_dir,
                                                  decisions))
    return [ReadAndGraded(reads, chunk)]


def read_item(item: OnePassItem) -> RunRow:
    """A line read (`read_line`), or the row the parent read already."""
    if not isinstance(item, RawLine):
        return item
    run, problems = read_line(item.text, item.path, item.number)
    return str(item.path), item.number, run, problems


def one_pass_crashed(
    suite: Suite, checks: list[Check], shape_of: Callable[[], GradedChunk]
) -> Callable[[OnePassItem, str], ReadAndGraded]:
    """What answers for an item whose worker died or raised: the item read here (as one
    process reads it), and when it is a valid run, a record whose checks crashed."""

    def crashed(item: OnePassItem, reason: str) -> ReadAndGraded:
        file, number, run, problems = read_item(item)
        chunk = shape_of()
        if run is not None and not problems and run.case_id in suite.cases:
            case = suite.cases[run.case_id]
            chunk.add(case, run, crashed_record(case, run, checks, reason))
        return ReadAndGraded([(file, number, run_key(run), problems)], chunk)

    return crashed


def chunk_shape(
    checks: list[Check], n_cases: int, multi_agent: bool,
    report_part: Callable[[], RecordPart] | None,
) -> Callable[[], GradedChunk]:
    """What makes an empty graded chunk here (for the answers made in this process)."""
    return _ChunkShape(checks, n_cases, multi_agent, report_part).empty


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
        _runs_to_grade(inputs), _grade_chunk, crashed, initializer=start_grader,
        initargs=initargs, chunk_size=chunk_size,
    )
