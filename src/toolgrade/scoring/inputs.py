"""Input validation's parts: every suite and run line read once, every problem listed, before
any grading or model call (docs/contract.md). `runner.validate_inputs` and
`runner.validate_and_grade` put them together: `open_inputs` reads what comes before the runs,
`RunsCheck` takes each run line as read (here or in an engine's worker) and checks what no
worker can see alone (unknown cases, duplicate runs, reliability keys that clash), in input
order, so the problems and their order are the same whoever read the lines.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple, Protocol

from toolgrade.errors import EmptyInputError, InputError, InputProblem
from toolgrade.loaders import Suite, load_suite, run_files
from toolgrade.loaders.adjudications import adjudications_path, load_decisions
from toolgrade.loaders.otlp import OtlpOptions, OtlpStats
from toolgrade.loaders.swapped import swapped_problem
from toolgrade.models import HumanDecisions, ToolCall, Trajectory
from toolgrade.scoring.engines import Engine, hands_out
from toolgrade.scoring.summary import reliability_key


@dataclass
class ValidatedInputs:
    """What validation learnt: the suite, the run files and how many runs they hold."""

    suite: Suite
    files: list[Path]
    n_runs: int
    agents: set[str | None] = field(default_factory=set)
    #: Ids of the suite's cases no run names, in suite order: their checks are in no figure.
    cases_without_runs: list[str] = field(default_factory=list)
    #: People's decisions on adjudicated routes (the suite's adjudications file).
    decisions: HumanDecisions = field(default_factory=HumanDecisions)
    #: How OTLP trace exports among the files are read, and (when any was) what they held.
    otlp: OtlpOptions = field(default_factory=OtlpOptions)
    otlp_stats: OtlpStats | None = None
    #: The catalogue tools some run of a case with `tools_from` called (tool coverage); None
    #: when no case takes its tools from a catalogue.
    called_tools: frozenset[str] | None = None


@dataclass
class OpenedInputs:
    """What validation reads before the runs: the run files, the suite (None: it did not
    load) and the people's route decisions, with the problems found so far, in order."""

    files: list[Path]
    suite: Suite | None
    decisions: HumanDecisions
    problems: list[InputProblem]


def open_inputs(
    suite_path: Path, runs: list[Path], exclude: Path | None, engine: Engine,
    *, text_calls: bool = False,
) -> OpenedInputs:
    """What validation reads before the runs: the run files listed, the engine opened when
    they are large enough for it (`engines.hands_out`; an unreachable cluster is a
    `ConfigError` before anything is written), the suite and its adjudications file read
    (with `text_calls`, every case set to read calls in text)."""
    swapped = swapped_problem(suite_path, runs)
    if swapped is not None:
        raise InputError([swapped])
    problems: list[InputProblem] = []
    suite: Suite | None = None
    decisions = HumanDecisions()
    files = run_files(runs, exclude)
    if hands_out(engine, files):
        engine.open()  # its start-up (a fork server, a cluster) overlaps reading the suite
    try:
        suite = load_suite(suite_path)
        if text_calls:
            suite.cases = {cid: case.model_copy(update={"text_calls": True})
                           for cid, case in suite.cases.items()}
    except InputError as exc:
        problems.extend(exc.problems)
    else:
        decisions, found = load_decisions(adjudications_path(suite_path), suite.cases)
        problems.extend(found)
    if not files:
        problems.append(
            InputProblem(
                ", ".join(map(str, runs)), None, "", "no run files (*.jsonl, OTLP *.json)"
            )
        )
    return OpenedInputs(files, suite, decisions, problems)


class RunsCheck:
    """The rest of validation: every run read, in input order, checked against
    the suite and the runs before it (unknown cases, duplicate runs, reliability keys that
    clash), every problem kept in the order found."""

    def __init__(self, start: OpenedInputs) -> None:
        self.start = start
        self.problems = start.problems
        self.seen = _SeenRuns()
        self.agents: set[str | None] = set()
        #: Where each (case, agent) pair was first read: the cases that have runs, and
        #: reliability keys must tell the pairs apart.
        self.pairs: dict[tuple[str, str | None], tuple[str, int]] = {}
        self.n_runs = 0
        suite = start.suite
        stamped = suite is not None and any(c.catalogue for c in suite.cases.values())
        #: Catalogue tools the runs called; collected only for a suite with `tools_from`, so
        #: other suites' runs cost nothing more.
        self.called: set[str] | None = set() if stamped else None

    def add(
        self, file: str, line: int, run: RunIdentity | None, found: list[InputProblem]
    ) -> None:
        """Take one run line as read: the run (or its identity; None when it did not read)
        and the problems reading it found."""
        problems = self.problems
        problems.extend(found)
        if run is None:
            return
        self.n_runs += 1
        self.agents.add(run.agent)
        suite = self.start.suite
        if suite is not None and run.case_id not in suite.cases:
            problems.append(
                InputProblem(file, line, "case_id", f"no case {run.case_id!r} in the suite")
            )
            return
        self.pairs.setdefault((run.case_id, run.agent), (file, line))
        if self.called is not None and suite is not None and suite.cases[run.case_id].catalogue:
            # Every name as called; `finish` keeps the catalogue's (once, not per run).
            self.called.update(_tools_called(run))
        first = self.seen.first_or_add(run, file, line)
        if first is not None:
            problems.append(
                InputProblem(
                    file,
                    line,
                    "trial",
                    f"duplicate run of case {run.case_id!r} trial {run.trial} "
                    f"agent {run.agent!r} (first at {first})",
                )
            )

    def finish(self, otlp: OtlpOptions, stats: OtlpStats) -> ValidatedInputs:
        """What validation learnt, once every run was added; `InputError` listing every
        problem, when there is any."""
        start, pairs = self.start, self.pairs
        if len(self.agents) > 1:
            self.problems += _reliability_key_clashes(pairs)
        suite = start.suite
        if self.problems or suite is None:
            raise InputError(self.problems)
        graded_cases = {case_id for case_id, _ in pairs}
        without = [case_id for case_id in suite.cases if case_id not in graded_cases]
        return ValidatedInputs(
            suite=suite,
            files=start.files,
            n_runs=self.n_runs,
            agents=self.agents,
            cases_without_runs=without,
            decisions=start.decisions,
            otlp=otlp,
            otlp_stats=stats if stats.files else None,
            called_tools=_catalogue_tools(suite, self.called),
        )


def require_runs(inputs: ValidatedInputs) -> None:
    """Raise `EmptyInputError` naming the run files when they hold no run (`--allow-empty`
    skips this): an empty input is a recording that failed, not a suite that passed."""
    if inputs.n_runs == 0:
        raise EmptyInputError([str(f) for f in inputs.files])


def _catalogue_tools(suite: Suite, called: set[str] | None) -> frozenset[str] | None:
    """The called tools that are in a catalogue some case takes (None: collected none)."""
    if called is None:
        return None
    catalogued = {t for case in suite.cases.values() if case.catalogue
                  for t in case.catalogue.tools}
    return frozenset(called & catalogued)


def _tools_called(run: RunIdentity) -> Iterable[str]:
    """The tools a run called: a `Trajectory`'s calls, or the names a worker's key carries."""
    if isinstance(run, Trajectory):
        # `type() is`, not `isinstance`: the models' ABC instance check costs more per step
        # than the rest of this, on every run read (a step is a ToolCall or a Message).
        return [step.tool for step in run.steps if type(step) is ToolCall]
    return run.tools if isinstance(run, RunKey) else ()


def _reliability_key_clashes(
    pairs: dict[tuple[str, str | None], tuple[str, int]],
) -> list[InputProblem]:
    """Two (case, agent) pairs whose reliability keys are spelt alike (`a@b` by agent `c`, `a`
    by `b@c`; no agent and an agent named "(unnamed)"): their trials would pool into one
    pass^k, so the input is refused instead."""
    first: dict[str, tuple[str, str | None]] = {}
    problems = []
    for (case_id, agent), (file, line) in pairs.items():
        key = reliability_key(case_id, agent, multi_agent=True)
        other = first.setdefault(key, (case_id, agent))
        if other != (case_id, agent):
            problems.append(
                InputProblem(
                    file,
                    line,
                    "agent",
                    f"case {case_id!r} by agent {agent!r} and case {other[0]!r} by agent "
                    f"{other[1]!r} share the reliability key {key!r}, so their trials would "
                    "pool: rename the case or the agent",
                )
            )
    return problems


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
        if with_tools else ()  # `type() is`: see `_tools_called`
    return RunKey(run.case_id, run.trial, run.agent, tools)



class RunIdentity(Protocol):
    """What tells runs apart: a `Trajectory`, or the key a worker sends back for one."""

    @property
    def case_id(self) -> str: ...
    @property
    def trial(self) -> int: ...
    @property
    def agent(self) -> str | None: ...


class _SeenRuns:
    """Where each (case, trial, agent) run was first read, compactly: the duplicate check.

    One small dict per (case, agent), mapping trial -> an int packing the file's number and
    the line, instead of a tuple key and a formatted "file:line" string per run: about a
    quarter of the memory at a million runs.
    """

    _LINE_BITS = 40

    def __init__(self) -> None:
        self._by_case: dict[tuple[str, str | None], dict[int, int]] = {}
        self._file_ids: dict[str, int] = {}
        self._files: list[str] = []

    def first_or_add(self, run: RunIdentity, file: str, line: int) -> str | None:
        """Where this run was first seen ("file:line"), or None after recording it here."""
        trials = self._by_case.setdefault((run.case_id, run.agent), {})
        where = trials.get(run.trial)
        if where is not None:
            file_id, first_line = divmod(where, 1 << self._LINE_BITS)
            return f"{self._files[file_id]}:{first_line}"
        if file not in self._file_ids:
            self._file_ids[file] = len(self._files)
            self._files.append(file)
        trials[run.trial] = (self._file_ids[file] << self._LINE_BITS) | line
        return None


