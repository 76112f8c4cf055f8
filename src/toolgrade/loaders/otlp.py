"""Run files that are OTLP JSON trace exports, recognised by their content (`resourceSpans`).

Two layouts: one export per line (what the collector's `file` exporter and the OTLP file
exporters write: a trace's spans may be spread over several lines, batch by batch) or one
export per file (pretty-printed or not). A whole file is read before its traces are assembled,
so a trace split across batches is one run; a trace split across files is not joined.

Each trace is one run (`adapters.otlp_traces`). Its trial is `toolgrade.trial` where set, else
the next free number of its (case, agent) in the traces' order: by start time within a file,
files in the order given.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, TypedDict

from toolgrade.adapters.common import AdapterError
from toolgrade.adapters.otlp_conventions import classify
from toolgrade.adapters.otlp_spans import Span, read_export
from toolgrade.adapters.otlp_traces import CASE_ATTRIBUTE, TraceRun, assemble
from toolgrade.errors import InputProblem, NotUtf8Error, read_utf8
from toolgrade.jsonio.bounds import BoundsError, loads_bounded, loads_or_none
from toolgrade.jsonio.lines import decode_line, iter_text_lines, surrogate_problem
from toolgrade.models import Trajectory

Layout = Literal["lines", "document"]
#: What `iter_runs` yields: (file, line, trajectory or None, problems).
RunRow = tuple[str, int, Trajectory | None, list[InputProblem]]

_KEY = '"resourceSpans"'
#: How far into a file that does not start with a whole JSON line the key is looked for.
_PEEK = 1 << 16


@dataclass(frozen=True)
class OtlpOptions:
    """How traces are read: the attribute that names a trace's case."""

    case_attribute: str = CASE_ATTRIBUTE


class OtlpFigures(TypedDict):
    """The summary's `otlp` entry (`models.summary.OtlpSummary` reads it)."""

    files: int
    traces: int
    spans: int
    tool_calls: int
    other_traces: int
    #: Spans kept out of the runs, per kind.
    left_out: dict[str, int]


@dataclass
class OtlpStats:
    """What the OTLP files held: the summary's `otlp` figures."""

    files: int = 0
    traces: int = 0
    spans: int = 0
    tool_calls: int = 0
    #: Traces with no GenAI or OpenInference span: no run (their spans are in `left_out`).
    other_traces: int = 0
    left_out: Counter[str] = field(default_factory=Counter)

    def to_json(self) -> OtlpFigures:
        """The summary's `otlp` entry."""
        return {
            "files": self.files,
            "traces": self.traces,
            "spans": self.spans,
            "tool_calls": self.tool_calls,
            "other_traces": self.other_traces,
            "left_out": dict(sorted(self.left_out.items())),
        }

    def describe(self) -> str:
        """One line for the console."""
        left = sum(self.left_out.values())
        kinds = ", ".join(f"{kind}: {n}" for kind, n in sorted(self.left_out.items()))
        note = f"; {left} span(s) left out of the runs ({kinds})" if left else ""
        others = (
            f" (+{self.other_traces} with no GenAI or OpenInference span: not runs)"
            if self.other_traces
            else ""
        )
        return (
            f"OTLP traces: {self.traces} trace(s){others}, {self.spans} span(s), "
            f"{self.tool_calls} tool call(s) in {self.files} file(s){note}"
        )


def otlp_layout(path: Path) -> Layout | None:
    """"lines" or "document" for an OTLP JSON export, None for any other file."""
    try:
        with path.open(encoding="utf-8-sig", errors="replace") as fh:
            first = ""
            while not first.strip():
                first = fh.readline()
                if not first:
                    return None
            if not first.lstrip().startswith("{"):
                return None
            if _KEY in first:
                value = loads_or_none(first)
                if isinstance(value, dict):
                    return "lines" if "resourceSpans" in value else None
            elif first.strip() != "{":
                return None
            return "document" if _KEY in first + fh.read(_PEEK) else None
    except OSError:
        return None


class OtlpReader:
    """Reads OTLP files into runs; keeps the trial numbering across the files of one reading."""

    def __init__(self, options: OtlpOptions | None = None, stats: OtlpStats | None = None):
        self.options = options or OtlpOptions()
        self.stats = stats if stats is not None else OtlpStats()
        self._taken: dict[tuple[str, str | None], set[int]] = {}

    def read(self, path: Path, layout: Layout) -> Iterator[RunRow]:
        """Every run (or problem) of one OTLP file."""
        self.stats.files += 1
        file = str(path)
        spans: list[Span] = []
        for line, problem in (_lines if layout == "lines" else _document)(path, spans):
            yield file, line, None, [problem]
        self.stats.spans += len(spans)
        runs = []
        for trace in _traces(spans, self.stats.left_out):
            if not any(classify(span)[0] != "other" for span in trace):
                # Not an agent's trace (an HTTP request, a batch job): no run, its spans counted.
                self.stats.other_traces += 1
                self.stats.left_out.update(classify(span)[1] for span in trace)
                continue
            try:
                run = assemble(trace, self.options.case_attribute)
            except AdapterError as exc:
                line = _first_line(trace)
                yield file, line, None, [InputProblem(file, line, exc.field, exc.reason)]
                continue
            runs.append(run)
            self.stats.traces += 1
            self.stats.tool_calls += run.tool_calls
            self.stats.left_out.update(run.left_out)
        runs.sort(key=lambda r: r.start)  # stable: equal starts keep the file's order
        for run in self._numbered(runs):
            yield file, run.line or 1, _trajectory(run), []

    def _numbered(self, runs: list[TraceRun]) -> list[TraceRun]:
        for run in runs:
            if run.trial is not None:
                self._taken.setdefault((run.case_id, run.agent), set()).add(run.trial)
        for run in runs:
            if run.trial is None:
                taken = self._taken.setdefault((run.case_id, run.agent), set())
                run.trial = next(n for n in range(len(taken) + 1) if n not in taken)
                taken.add(run.trial)
        return runs


def _trajectory(run: TraceRun) -> Trajectory:
    return Trajectory(
        case_id=run.case_id,
        trial=run.trial or 0,
        agent=run.agent,
        steps=run.steps,
        final_state=run.final_state,
    )


def _first_line(trace: list[Span]) -> int:
    return min((s.line for s in trace if s.line is not None), default=1)


def _traces(spans: list[Span], left_out: Counter[str]) -> list[list[Span]]:
    """Spans by trace, traces in the order they first appear. A span written twice (an
    exporter's retry) is read once; the copies are counted in `left_out`."""
    by_trace: dict[str, list[Span]] = {}
    seen: set[tuple[str, str]] = set()
    for span in spans:
        key = (span.trace_id, span.span_id)
        if key in seen:
            left_out["duplicate span"] += 1
            continue
        seen.add(key)
        by_trace.setdefault(span.trace_id, []).append(span)
    return list(by_trace.values())


def _lines(path: Path, spans: list[Span]) -> Iterator[tuple[int, InputProblem]]:
    """Read one export per line into `spans`; yield each line's problem."""
    for number, text in iter_text_lines(path):
        value, problem = decode_line(path, number, text)
        if problem is None:
            try:
                spans.extend(read_export(value, number, first_order=len(spans)))
                continue
            except AdapterError as exc:
                problem = InputProblem(str(path), number, exc.field, exc.reason)
        yield number, problem


def _document(path: Path, spans: list[Span]) -> Iterator[tuple[int, InputProblem]]:
    """Read a file holding one export into `spans`; each span's line is where its id is."""
    try:
        text = read_utf8(path)
    except NotUtf8Error as exc:
        yield exc.line, InputProblem(str(path), exc.line, "", str(exc))
        return
    try:
        value = loads_bounded(text)
    except json.JSONDecodeError as exc:
        reason = f"malformed JSON: {exc.msg} (column {exc.colno})"
        yield exc.lineno, InputProblem(str(path), exc.lineno, "", reason)
        return
    except BoundsError as exc:
        # As for JSON Lines: a value no output could write back is refused, not crashed on.
        yield 1, InputProblem(str(path), 1, "", exc.reason)
        return
    surrogate = surrogate_problem(text, value)
    if surrogate is not None:
        yield 1, InputProblem(str(path), 1, "", surrogate)
        return
    try:
        found = read_export(value, None)
    except AdapterError as exc:
        line = _line_of(text, exc.field)
        yield line, InputProblem(str(path), line, exc.field, exc.reason)
        return
    spans.extend(_located(text, found))



def _line_of(text: str, field: str) -> int:
    """The line of the span a field names (`... (span ID)...`), else 1."""
    match = re.search(r"\(span ([^)]+)\)", field)
    if match is None:
        return 1
    at = re.search(r'"spanId"\s*:\s*"' + re.escape(match.group(1)) + '"', text)
    return text.count("\n", 0, at.start()) + 1 if at else 1


def _located(text: str, spans: list[Span]) -> list[Span]:
    """The spans with the line their `spanId` stands on (searched in file order)."""
    out, position, line = [], 0, 1
    for span in spans:
        pattern = r'"spanId"\s*:\s*"' + re.escape(span.span_id) + '"'
        at = re.compile(pattern).search(text, position)
        if at is not None:
            line += text.count("\n", position, at.start())
            position = at.start()
        out.append(replace(span, line=line))
    return out
