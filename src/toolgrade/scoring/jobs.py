"""`--jobs N`: reading and grading run lines in worker processes (the pool: `workers`).

Both passes of a run go to the workers: validation (each line parsed and checked; the parent
keeps the duplicate index and the problems, in input order) and grading (each line parsed
again and graded by every check; the parent writes the JSON line the worker made and folds the
record into the summary, in input order). Each worker holds the suite and the checks; a line
travels as its text, a graded run comes back as its record and its results.jsonl line.

Judges are not sent to workers: a run with a judge grades in the parent, where the judge's own
concurrency bound and its verdict cache live (see `runner.grade`).
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from toolgrade.checks import Check, default_checks
from toolgrade.errors import InputProblem
from toolgrade.loaders import Suite
from toolgrade.loaders.jsonl import iter_text_lines
from toolgrade.loaders.runs import iter_runs, read_line
from toolgrade.models import Case, Trajectory, TrajectoryResult
from toolgrade.scoring.runner import crashed_record, grade_trajectory, record_line
from toolgrade.scoring.workers import CHUNK_SIZE, ordered_map

#: Below this many bytes of run files, validation reads in the parent: starting workers would
#: cost more than they save (a run line is about 2 KB; this is a few chunks' worth).
PARALLEL_READ_BYTES = 4 * CHUNK_SIZE * 2048

#: (file, line number, text); text None: the file does not exist.
_Item = tuple[str, int, str | None]


class RunKey(NamedTuple):
    """What validation keeps of a run read by a worker: its identity."""

    case_id: str
    trial: int
    agent: str | None


def _items(files: Iterable[Path]) -> Iterator[_Item]:
    for path in files:
        if not path.is_file():
            yield str(path), 0, None
            continue
        for number, line in iter_text_lines(path):
            yield str(path), number, line


# Reading (validation) -----------------------------------------------------------------------

_Read = tuple[str, int, RunKey | None, list[InputProblem]]


def _read_chunk(items: list[_Item]) -> list[_Read]:
    """Worker: each line parsed and validated, as `iter_runs` does in the parent."""
    out: list[_Read] = []
    for file, number, line in items:
        if line is None:
            out.append((file, number, None, [InputProblem(file, None, "", "no such file")]))
            continue
        run, problems = read_line(line, Path(file), number)
        key = None if run is None else RunKey(run.case_id, run.trial, run.agent)
        out.append((file, number, key, problems))
    return out


def _unreadable(item: _Item, reason: str) -> _Read:
    file, number, _ = item
    return file, number, None, [InputProblem(file, number, "", f"could not be read: {reason}")]


def read_runs(
    files: list[Path], jobs: int
) -> Iterator[tuple[str, int, Trajectory | RunKey | None, list[InputProblem]]]:
    """(file, line, the run or its key, problems) over every run line, as `iter_runs` yields
    them; in `jobs` workers when the files are large enough to gain from them."""
    size = sum(p.stat().st_size for p in files if p.is_file())
    if jobs <= 1 or size < PARALLEL_READ_BYTES:
        yield from iter_runs(files)
        return
    yield from ordered_map(_items(files), _read_chunk, _unreadable, jobs=jobs)


# Grading ------------------------------------------------------------------------------------

#: A worker's suite and checks, set once by `_start_grader`.
_GRADER: dict[str, Any] = {}


def _start_grader(suite: Suite, checks: list[Check] | None) -> None:
    _GRADER["suite"] = suite
    _GRADER["checks"] = checks if checks is not None else default_checks()


def _grade_chunk(items: list[_Item]) -> list[tuple[TrajectoryResult, str]]:
    """Worker: each (validated) line graded; the record and its results.jsonl line."""
    suite: Suite = _GRADER["suite"]
    checks: list[Check] = _GRADER["checks"]
    out = []
    for file, number, line in items:
        run, problems = read_line(line or "", Path(file), number)
        if run is None:  # validated before grading: only a file changed since can do this
            raise ValueError(f"{file}:{number}: {'; '.join(map(str, problems))}")
        record = grade_trajectory(suite.cases[run.case_id], run, checks, None, suite.base_dir)
        out.append((record, record_line(record.to_json())))
    return out


def picklable(checks: list[Check] | None) -> bool:
    """Whether custom checks can be sent to workers (default checks are built there)."""
    try:
        pickle.dumps(checks)
    except Exception:
        return False
    return True


def grade_in_workers(
    suite: Suite, files: list[Path], checks: list[Check], *, jobs: int, send_checks: bool,
    chunk_size: int = CHUNK_SIZE,
) -> Iterator[tuple[Case, Trajectory, TrajectoryResult, str]]:
    """(case, run, record, results.jsonl line) for every run, in input order, graded in `jobs`
    workers. `send_checks` False: the workers build the default checks themselves.

    The run yielded carries the identity only (case, trial, agent; no steps): the summary folds
    from the record, which holds everything graded, including `n_calls`.
    """

    def crashed(item: _Item, reason: str) -> tuple[TrajectoryResult, str]:
        file, number, line = item
        run, _ = read_line(line or "", Path(file), number)
        if run is None:  # pragma: no cover - validated before grading
            raise ValueError(f"{file}:{number}: unreadable after validation")
        record = crashed_record(suite.cases[run.case_id], run, checks, reason)
        return record, record_line(record.to_json())

    initargs = (suite, checks if send_checks else None)
    graded = ordered_map(
        _items(files), _grade_chunk, crashed, jobs=jobs, initializer=_start_grader,
        initargs=initargs, chunk_size=chunk_size,
    )
    for record, line in graded:
        # Validated, not model_construct: that inspects the steps' default factory every time.
        header = Trajectory(case_id=record.case_id, trial=record.trial, agent=record.agent)
        yield suite.cases[record.case_id], header, record, line
