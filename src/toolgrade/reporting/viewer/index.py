"""The viewer's index of an output folder: one small row per graded run, and where each lives.

`results.jsonl` is read once, line by line, keeping per run only what the list page shows and
filters on (ids, status, scores, failure names) and the byte offset of its line;
`transcripts.jsonl` is only scanned for line offsets (in the background once serving starts,
or when the first run view asks). A run view then seeks to its two lines and parses nothing
else, so 100,000 runs cost one pass over the files and under a kilobyte of memory each, never
every transcript in memory.

A line that is not a results record is kept as a problem naming its line: the rest is served.
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from array import array
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pydantic_core

from toolgrade.errors import InputProblem, ToolgradeError
from toolgrade.jsonio.lines import decode_line
from toolgrade.loaders.transcripts import TRANSCRIPTS_FILE
from toolgrade.models import CheckName
from toolgrade.models.check_names import registered_names as check_names
from toolgrade.models.figures import ChecksRecord, ResultRecord, as_record, check_blocks
from toolgrade.models.status import aggregate_status, check_status
from toolgrade.reporting.run_view import run_label

RESULTS_FILE = "results.jsonl"
#: The agent filter's value for runs recorded without an agent.
NO_AGENT = "(none)"
_BOM = b"\xef\xbb\xbf"
#: How a check's state reads in the list, as in the run views (FAIL stands out).
_OUTCOMES = {"pass": "pass", "fail": "FAIL", "unscored": "unscored", "n/a": "n/a"}


class StaleIndex(ToolgradeError):
    """results.jsonl no longer holds, at a row's offset, the run the index read there."""


@dataclass(frozen=True, slots=True)
class CheckCell:
    """One check of one run, as the list shows it."""

    outcome: str  # pass / FAIL / unscored / n/a / crashed
    score: float | None


@dataclass(frozen=True, slots=True)
class RunRow:
    """What the list shows and filters on for one graded run."""

    index: int  # its place among the records (0-based): also its transcripts.jsonl line
    line: int  # its line number in results.jsonl (1-based, blank lines counted)
    offset: int  # the byte offset of that line
    case_id: str
    agent: str | None
    trial: int
    status: str  # pass / fail / unscored / n/a
    score: float | None
    checks: tuple[CheckCell, ...]  # in registry order (checks.registry)
    failures: tuple[str, ...]  # the failure names of the run, sorted, each once
    failed_checks: tuple[str, ...]  # checks that failed or crashed
    search: str  # lower-case text the free-text search looks in

    @property
    def label(self) -> str:
        """`agent:trial`, as the reports name a run."""
        return run_label(self.agent, self.trial)


def _intern(value: Any) -> str:
    # Agents, check and failure names repeat on every row: one copy each.
    return sys.intern(str(value))


def _check_cell(name: CheckName, checks: ChecksRecord) -> CheckCell:
    block = check_blocks(checks).get(name)
    block = block if isinstance(block, dict) else {}
    state = check_status(name, block)
    crashed = "crashed" if "error" in block else "n/a"
    outcome = crashed if state == "error" else _OUTCOMES[state]
    score = block.get("score")
    return CheckCell(_intern(outcome), float(score) if isinstance(score, int | float) else None)


def _failure_names(checks: ChecksRecord) -> tuple[str, ...]:
    names = set()
    for block in check_blocks(checks).values():
        if not isinstance(block, dict):
            continue
        if block.get("passed") is None and "error" in block:
            names.add("crashed")
        for failure in block.get("failures") or []:
            if isinstance(failure, dict):
                names.add(_intern(failure.get("name", "unknown")))
    return tuple(sorted(names))


def _shape_problem(record: object) -> str | None:
    """Why a parsed line is not a results record, or None."""
    if not isinstance(record, dict):
        return "not a toolgrade record: expected a JSON object"
    for key, kind, word in (("case_id", str, "string"), ("checks", dict, "object"),
                            ("aggregate", dict, "object")):
        if not isinstance(record.get(key), kind):
            return f"not a toolgrade record: {key}: expected a JSON {word}"
    return None


def make_row(record: ResultRecord, index: int, line: int, offset: int) -> RunRow:
    """The list row of one results record."""
    checks = record["checks"]
    aggregate = record["aggregate"]
    passed = bool(aggregate.get("passed"))
    status = aggregate.get("status") or aggregate_status(checks, passed)
    cells = tuple(_check_cell(name, checks) for name in check_names())
    failures = _failure_names(checks)
    agent = record.get("agent")
    trial = record.get("trial")
    trial = trial if isinstance(trial, int) else 0
    score = aggregate.get("score")
    agent = _intern(agent) if agent is not None else None
    words = (record["case_id"], run_label(agent, trial), f"#{index}", agent or NO_AGENT,
             *failures)
    return RunRow(
        index=index, line=line, offset=offset, case_id=record["case_id"], agent=agent,
        trial=trial, status=_intern(status),
        score=float(score) if isinstance(score, int | float) else None,
        checks=cells, failures=failures,
        failed_checks=tuple(n for n, c in zip(check_names(), cells, strict=True)
                            if c.outcome in ("FAIL", "crashed")),
        search=" ".join(words).lower(),
    )


def iter_lines(path: Path) -> Iterator[tuple[int, int, bytes]]:
    """(1-based line number, byte offset, bytes) of each non-blank line of a JSON Lines file."""
    offset = 0
    with path.open("rb") as fh:
        for number, raw in enumerate(fh, start=1):
            start = offset
            offset += len(raw)
            if number == 1 and raw.startswith(_BOM):
                raw, start = raw[len(_BOM):], start + len(_BOM)
            if raw.strip():
                yield number, start, raw


@dataclass
class RunIndex:
    """Every graded run of an output folder, in results order, and the lines that failed."""

    folder: Path
    rows: list[RunRow | None]  # by index; None for a line that is not a record
    problems: dict[int, InputProblem]  # index -> why that line is not a record
    agents: tuple[str, ...]  # the agent filter's values (NO_AGENT for runs without one)
    failures: Counter[str]  # failure name -> runs showing it
    statuses: Counter[str]  # status -> runs
    seconds: float = 0.0  # how long building it took

    def __post_init__(self) -> None:
        self._transcripts: array[int] | None = None
        self._lock = threading.Lock()

    @property
    def results_path(self) -> Path:
        """The folder's results.jsonl."""
        return self.folder / RESULTS_FILE

    @property
    def transcripts_path(self) -> Path:
        """The folder's transcripts.jsonl (it may not exist: an older toolgrade's folder)."""
        return self.folder / TRANSCRIPTS_FILE

    @property
    def runs(self) -> int:
        """Runs read (lines that were records)."""
        return sum(self.statuses.values())

    def row(self, index: int) -> RunRow | None:
        """The row of the `index`-th record, or None when there is none there."""
        return self.rows[index] if 0 <= index < len(self.rows) else None

    def record(self, row: RunRow) -> ResultRecord:
        """The full results record of a row (one seek, one line parsed).

        Raises StaleIndex when the line there is no longer that run's (the file was written
        again since the index was built).
        """
        with self.results_path.open("rb") as fh:
            fh.seek(row.offset)
            raw = fh.readline()
        try:
            value = pydantic_core.from_json(raw)
        except ValueError:
            value = None
        if not isinstance(value, dict) or value.get("case_id") != row.case_id:
            raise StaleIndex(f"{self.results_path} changed since `toolgrade view` read it: "
                             "restart it to see the new results")
        return as_record(value)

    def transcript_line(self, index: int) -> tuple[int, str] | None:
        """(line number, text) of the `index`-th transcript, None when the file has none there."""
        offsets = self.transcript_offsets()
        if not 0 <= index < len(offsets) // 2:
            return None
        number, offset = offsets[2 * index], offsets[2 * index + 1]
        with self.transcripts_path.open("rb") as fh:
            fh.seek(offset)
            text = fh.readline().decode("utf-8", errors="surrogateescape")
        return number, text

    def warm(self) -> threading.Thread:
        """Scan transcripts.jsonl for its offsets in a background thread, so the first run
        view opened does not wait for it (a cold 200 MB file takes seconds); a view asked
        for meanwhile waits for the scan under the same lock."""
        thread = threading.Thread(target=self.transcript_offsets, name="transcripts-scan",
                                  daemon=True)
        thread.start()
        return thread

    def transcript_offsets(self) -> array[int]:
        """(line number, byte offset) pairs, flat, of each transcript line: scanned once,
        the first time a run view asks (the list never needs it)."""
        with self._lock:
            if self._transcripts is None:
                flat = array("q")
                if self.transcripts_path.is_file():
                    for number, offset, _raw in iter_lines(self.transcripts_path):
                        flat.extend((number, offset))
                self._transcripts = flat
            return self._transcripts


def _parse(path: Path, number: int, raw: bytes) -> tuple[Any, str | None]:
    """A line's value, or why it is not one. pydantic-core's parser reads the bytes in about
    60% of `json.loads`'s time; a line it refuses is read again by the loaders' own reader,
    which words the problem as `toolgrade validate` does."""
    try:
        return pydantic_core.from_json(raw), None
    except ValueError:
        text = raw.decode("utf-8", errors="surrogateescape")
        value, problem = decode_line(path, number, text)
        return value, problem.reason if problem else None


def build_index(folder: Path) -> RunIndex:
    """Index `folder`'s results.jsonl. Raises ToolgradeError when the folder has none."""
    start = time.perf_counter()
    path = folder / RESULTS_FILE
    if not path.is_file():
        raise ToolgradeError(f"{path}: no such file: `toolgrade view` reads the folder a "
                             f"`toolgrade run SUITE RUNS --out {folder}` wrote")
    rows: list[RunRow | None] = []
    problems: dict[int, InputProblem] = {}
    with _collector_paused():
        for number, offset, raw in iter_lines(path):
            record, reason = _parse(path, number, raw)
            reason = reason or _shape_problem(record)
            if reason is not None:
                problems[len(rows)] = InputProblem(str(path), number, "", reason)
                rows.append(None)
                continue
            rows.append(make_row(record, len(rows), number, offset))
    return _finish(folder, rows, problems, time.perf_counter() - start)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while rows pile up: each full collection walks every
    row kept so far, and none of them is garbage (a tenth to a fifth of the CPU at 100k)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _finish(folder: Path, rows: list[RunRow | None], problems: dict[int, InputProblem],
            seconds: float) -> RunIndex:
    agents: set[str] = set()
    failures: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    for row in rows:
        if row is None:
            continue
        agents.add(row.agent if row.agent is not None else NO_AGENT)
        failures.update(row.failures)
        statuses[row.status] += 1
    return RunIndex(folder=folder, rows=rows, problems=problems, agents=tuple(sorted(agents)),
                    failures=failures, statuses=statuses, seconds=seconds)
