"""`--jobs N` and `--engine ray` for validation: run lines parsed and checked in an engine's
workers (the parent keeps the duplicate index and the problems, in input order). Small inputs
are read in the parent, where starting workers would cost more than it saves.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from toolgrade.errors import InputProblem
from toolgrade.loaders.otlp import OtlpOptions, OtlpStats, RunRow
from toolgrade.loaders.runs import RawLine, iter_run_sources, iter_runs, read_line
from toolgrade.models import ToolCall, Trajectory
from toolgrade.scoring import workers
from toolgrade.scoring.engines import Engine
from toolgrade.scoring.workers import CHUNK_SIZE

#: Below this many bytes of run files, validation reads in the parent: starting workers would
#: cost more than they save (a run line is about 2 KB; this is a few chunks' worth).
PARALLEL_READ_BYTES = 4 * CHUNK_SIZE * 2048


class RunKey(NamedTuple):
    """What validation keeps of a run read by a worker: its identity and, when asked for,
    the distinct tools it called (for tool coverage), in first-call order."""

    case_id: str
    trial: int
    agent: str | None
    tools: tuple[str, ...] = ()


_Read = tuple[str, int, RunKey | None, list[InputProblem]]


def run_key(run: Trajectory | None, with_tools: bool = False) -> RunKey | None:
    """What validation keeps of a run (None: the line did not read); `with_tools`: the tools
    it called too."""
    if run is None:
        return None
    tools = tuple(dict.fromkeys(s.tool for s in run.steps if type(s) is ToolCall)) \
        if with_tools else ()  # `type() is`: see `inputs._tools_called`
    return RunKey(run.case_id, run.trial, run.agent, tools)


def _to_read(source: RunRow | RawLine) -> RawLine | _Read:
    """What a worker gets: a line to read, or what the parent read already (a missing file, an
    OTLP export's run or problem), with the run cut down to its key so it travels light."""
    if isinstance(source, RawLine):
        return source
    file, number, run, problems = source
    return file, number, run_key(run, with_tools=True), problems


def _read_chunk(items: list[RawLine | _Read]) -> list[_Read]:
    """Worker: each line parsed and validated, as `iter_runs` does in the parent."""
    return _read_lines(items, with_tools=False)


def _read_chunk_with_tools(items: list[RawLine | _Read]) -> list[_Read]:
    """Worker: as `_read_chunk`, each key carrying the run's tools too (tool coverage, for a
    suite with `tools_from`), so that the lines are never read twice."""
    return _read_lines(items, with_tools=True)


def _read_lines(items: list[RawLine | _Read], with_tools: bool) -> list[_Read]:
    out: list[_Read] = []
    for item in items:
        if not isinstance(item, RawLine):
            out.append(item)
            continue
        run, problems = read_line(item.text, item.path, item.number)
        out.append((str(item.path), item.number, run_key(run, with_tools), problems))
    return out


def _unreadable(item: RawLine | _Read, reason: str) -> _Read:
    file, number = (str(item.path), item.number) if isinstance(item, RawLine) else item[:2]
    return file, number, None, [InputProblem(file, number, "", f"could not be read: {reason}")]


def start_workers_early(files: list[Path], engine: Engine) -> None:
    """Get the engine ready (the workers' fork server, a Ray connection) before the suite is
    read, when the run files are large enough to be read in workers (small inputs start
    nothing)."""
    if engine.parallel and size(files) >= PARALLEL_READ_BYTES:
        engine.start_early()


def size(files: list[Path]) -> int:
    """The run files' bytes (what decides whether workers read them)."""
    return sum(p.stat().st_size for p in files if p.is_file())


def read_runs(
    files: list[Path], engine: Engine, otlp: OtlpOptions | None = None,
    stats: OtlpStats | None = None, *, with_tools: bool = False,
) -> Iterator[tuple[str, int, Trajectory | RunKey | None, list[InputProblem]]]:
    """(file, line, the run or its key, problems) over every run line, as `iter_runs` yields
    them (OTLP exports read with `otlp`, their figures added to `stats`); in the engine's
    workers when the files are large enough to gain from them, each key then carrying the
    run's tools when `with_tools`."""
    if not engine.parallel or size(files) < PARALLEL_READ_BYTES:
        yield from iter_runs(files, otlp, stats)
        return
    sources = (_to_read(s) for s in iter_run_sources(files, otlp, stats))
    work = _read_chunk_with_tools if with_tools else _read_chunk
    # The chunk size is read at call time (the tests make it small).
    yield from engine.ordered_map(sources, work, _unreadable, chunk_size=workers.CHUNK_SIZE)


