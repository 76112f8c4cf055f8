"""The runner: validate everything first, then stream runs through the checks and write outputs.

Order of work (DESIGN section 7): every input is validated before any grading or model call;
then each trajectory is graded by every check through the one `Check` interface, aggregated by
its case's scoring mode, written to `results.jsonl` as soon as it is done, and folded into the
suite summary. A check that crashes becomes data on that record; the run goes on.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from toolgrade.checks import Check, GradeContext, default_checks
from toolgrade.errors import EmptyInputError, InputError, InputProblem
from toolgrade.jsonio import out as json_out
from toolgrade.loaders import Suite, iter_runs, load_suite, run_files
from toolgrade.loaders.adjudications import adjudications_path, load_decisions
from toolgrade.loaders.otlp import OtlpOptions, OtlpStats
from toolgrade.loaders.transcripts import TRANSCRIPTS_FILE
from toolgrade.models import (
    Case,
    CheckName,
    CheckResult,
    HumanDecisions,
    JudgePort,
    Trajectory,
    TrajectoryResult,
)
from toolgrade.scoring.aggregate import aggregate
from toolgrade.scoring.coverage import coverage_counts
from toolgrade.scoring.engines import Engine, engine_for
from toolgrade.scoring.outputs import (
    GradedChunk,
    OutputWriter,
    ProgressHook,
    ReportSink,
)
from toolgrade.scoring.recording import RecordingJudge
from toolgrade.scoring.summary import SuiteSummary, reliability_key


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


def validate_inputs(
    suite_path: Path,
    runs: list[Path],
    exclude: Path | None = None,
    otlp: OtlpOptions | None = None,
    *,
    jobs: int = 1,
    engine: Engine | None = None,
) -> ValidatedInputs:
    """Read every input once; raise `InputError` listing every problem in every file.

    `exclude`: a folder whose files are never runs, even inside a runs folder (the output
    folder, so that a second run does not read the first one's `results.jsonl`). `otlp`:
    how OTLP trace exports among the run files are read. `jobs`: worker processes reading the
    lines (large inputs only; the problems are the same, in the same order); `engine`, when
    given, reads them instead (`scoring.engines`: a Ray cluster, say).
    """
    otlp = otlp or OtlpOptions()
    stats = OtlpStats()
    problems: list[InputProblem] = []
    suite: Suite | None = None
    decisions = HumanDecisions()
    files = run_files(runs, exclude)
    engine = engine if engine is not None else engine_for(jobs)
    if engine.parallel:
        from toolgrade.scoring.jobs import start_workers_early  # multiprocessing when asked

        start_workers_early(files, engine)
    try:
        suite = load_suite(suite_path)
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
    seen = _SeenRuns()
    agents: set[str | None] = set()
    #: Where each (case, agent) pair was first read: the cases that have runs, and reliability
    #: keys must tell the pairs apart.
    pairs: dict[tuple[str, str | None], tuple[str, int]] = {}
    n_runs = 0
    for file, line, trajectory, found in _read_runs(files, engine, otlp, stats):
        problems.extend(found)
        if trajectory is None:
            continue
        n_runs += 1
        agents.add(trajectory.agent)
        if suite is not None and trajectory.case_id not in suite.cases:
            problems.append(
                InputProblem(file, line, "case_id", f"no case {trajectory.case_id!r} in the suite")
            )
            continue
        pairs.setdefault((trajectory.case_id, trajectory.agent), (file, line))
        first = seen.first_or_add(trajectory, file, line)
        if first is not None:
            problems.append(
                InputProblem(
                    file,
                    line,
                    "trial",
                    f"duplicate run of case {trajectory.case_id!r} trial {trajectory.trial} "
                    f"agent {trajectory.agent!r} (first at {first})",
                )
            )
    if len(agents) > 1:
        problems += _reliability_key_clashes(pairs)
    if problems or suite is None:
        raise InputError(problems)
    graded_cases = {case_id for case_id, _ in pairs}
    without = [case_id for case_id in suite.cases if case_id not in graded_cases]
    return ValidatedInputs(
        suite=suite,
        files=files,
        n_runs=n_runs,
        agents=agents,
        cases_without_runs=without,
        decisions=decisions,
        otlp=otlp,
        otlp_stats=stats if stats.files else None,
    )


def require_runs(inputs: ValidatedInputs) -> None:
    """Raise `EmptyInputError` naming the run files when they hold no run (`--allow-empty`
    skips this): an empty input is a recording that failed, not a suite that passed."""
    if inputs.n_runs == 0:
        raise EmptyInputError([str(f) for f in inputs.files])


def _read_runs(
    files: list[Path], engine: Engine, otlp: OtlpOptions, stats: OtlpStats
) -> Iterator[tuple[str, int, RunIdentity | None, list[InputProblem]]]:
    if not engine.parallel:
        return iter_runs(files, otlp, stats)
    from toolgrade.scoring.jobs import read_runs  # multiprocessing only when asked for

    return read_runs(files, engine, otlp, stats)


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


def grade_trajectory(
    case: Case,
    run: Trajectory,
    checks: list[Check],
    judge: JudgePort | None,
    base_dir: Path,
    decisions: HumanDecisions | None = None,
) -> TrajectoryResult:
    """Grade one trajectory with every check; a crashing check is recorded, not raised."""
    decisions = decisions or HumanDecisions()
    recorder = RecordingJudge(judge, decisions) if judge is not None else None
    ctx = GradeContext(judge=recorder, base_dir=base_dir, decisions=decisions)
    results: dict[CheckName, CheckResult] = {}
    errors = []
    for check in checks:
        try:
            results[check.name] = check.grade(case, run, ctx)
        except Exception as exc:  # a crash is data about this record; the run goes on
            detail = "".join(traceback.format_exception_only(exc)).strip()
            errors.append(f"{check.name}: {detail}")
            results[check.name] = _crashed(check.name, detail)
    return _record(case, run, results, errors, recorder.log if recorder is not None else {})


def _record(
    case: Case,
    run: Trajectory,
    results: dict[CheckName, CheckResult],
    errors: list[str],
    judges: dict[str, list[dict[str, Any]]],
) -> TrajectoryResult:
    """A run's record from its check results, aggregated by the case's scoring mode."""
    return TrajectoryResult(
        case_id=run.case_id,
        trial=run.trial,
        agent=run.agent,
        checks=results,
        aggregate=aggregate(results, case.scoring),
        judges=judges,
        error="; ".join(errors) or None,
        n_calls=len(run.calls),
    )


def _crashed(check: CheckName, detail: str) -> CheckResult:
    """The result of a check that raised: applicable, neither passed nor failed."""
    return CheckResult(
        check=check, applicable=True, score=None, passed=None, figures={"error": detail}
    )


def crashed_record(
    case: Case, run: Trajectory, checks: list[Check], reason: str
) -> TrajectoryResult:
    """The record of a run whose grading was lost with its worker process: every check is
    reported as crashed with `reason`, as a check that raises is, and the run goes on."""
    results = {check.name: _crashed(check.name, reason) for check in checks}
    return _record(case, run, results, [f"{name}: {reason}" for name in results], {})


class Graded(NamedTuple):
    """A run graded in this process, in input order."""

    case: Case
    run: Trajectory
    record: TrajectoryResult


def _worker_chunks(
    inputs: ValidatedInputs,
    checks: list[Check],
    engine: Engine,
    default: bool,
    reports: ReportSink | None,
) -> Iterator[GradedChunk] | None:
    """The runs graded in the engine's worker processes, a chunk at a time, in input order;
    None when they are graded here instead: with a judge, one worker, no more than one chunk
    of runs, or custom checks that do not pickle.

    `default`: `checks` are the default checks, which workers build for themselves.
    """
    if not engine.parallel:
        return None
    from toolgrade.scoring import jobs as in_workers  # multiprocessing only when asked for
    from toolgrade.scoring import workers as process_pool

    if inputs.n_runs <= process_pool.CHUNK_SIZE or not (default or in_workers.picklable(checks)):
        return None
    return in_workers.grade_in_workers(
        inputs, checks, engine=engine, send_checks=not default,
        chunk_size=process_pool.CHUNK_SIZE,
        part_factory=reports.part_factory() if reports is not None else None,
    )


def _ordered_results(
    inputs: ValidatedInputs, checks: list[Check], judge: JudgePort | None, workers: int
) -> Iterator[Graded]:
    """Grade here, in input order; with a judge up to `workers` trajectories in flight."""
    suite = inputs.suite
    runs = iter_runs(inputs.files, inputs.otlp)
    pairs = ((suite.cases[t.case_id], t) for _, _, t, _ in runs if t is not None)
    where, decisions = suite.base_dir, inputs.decisions
    if judge is None or workers <= 1:
        for case, run in pairs:
            yield Graded(case, run, grade_trajectory(case, run, checks, judge, where, decisions))
        return
    window: list[tuple[Case, Trajectory, Future[TrajectoryResult]]] = []
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for case, run in pairs:
            window.append((case, run, pool.submit(
                grade_trajectory, case, run, checks, judge, where, decisions
            )))
            if len(window) >= workers * 2:
                c, r, fut = window.pop(0)
                yield Graded(c, r, fut.result())
        for c, r, fut in window:
            yield Graded(c, r, fut.result())


@dataclass
class RunOutput:
    """The figures of a finished run and where they go.

    `grade` writes `results.jsonl`; `summary_path` is where `write_summary` writes `summary`
    once the caller has added what only it knows: `toolgrade run` adds `judges` (the judge
    usage and calibration, from `cli.judges.JudgeSetup.summary()`) and `gates`. A library
    caller that wants the file calls `write_summary(output)` itself.
    """

    summary: dict[str, Any]
    results_path: Path
    #: Not written by `grade` (see above).
    summary_path: Path
    #: Per judge dimension, where its items went (`toolgrade run` puts it in summary.judges).
    judge_items: dict[str, dict[str, int]] = field(default_factory=dict)


def grade(
    inputs: ValidatedInputs,
    out_dir: Path,
    *,
    judge: JudgePort | None = None,
    checks: list[Check] | None = None,
    workers: int = 1,
    jobs: int = 1,
    engine: Engine | None = None,
    progress: ProgressHook | None = None,
    on_record: Callable[[dict[str, Any]], None] | None = None,
    reports: ReportSink | None = None,
) -> RunOutput:
    """Grade validated inputs, streaming `results.jsonl`; return the summary (no gates yet).

    Each graded run is also written, normalised, to `transcripts.jsonl` (same order as
    `results.jsonl`): the report's run views and `toolgrade show` read their steps there.

    `reports`, when given (a `ReportStream`), takes each record as written, so the reports
    need no second reading of the file; with workers it takes each worker's part of them
    instead. `on_record`, when given, also receives each record as written (its JSON form).
    `jobs`: worker processes for the deterministic checks (without a judge; see
    `scoring.jobs`); every output is the same, byte for byte, whatever the number. `engine`,
    when given, grades them instead (`scoring.engines`: the same outputs on a Ray cluster).
    """
    default = checks is None
    checks = checks if checks is not None else default_checks()
    out_dir.mkdir(parents=True, exist_ok=True)
    results_path = out_dir / "results.jsonl"
    summary = SuiteSummary(checks, len(inputs.suite), multi_agent=len(inputs.agents) > 1)
    transcripts_path = out_dir / TRANSCRIPTS_FILE
    with results_path.open("w", encoding="utf-8") as fh, \
            transcripts_path.open("w", encoding="utf-8") as transcripts:
        writer = OutputWriter(fh, transcripts, summary, total=inputs.n_runs, progress=progress,
                              on_record=on_record, reports=reports)
        chunks = None if judge is not None else _worker_chunks(
            inputs, checks, engine if engine is not None else engine_for(jobs), default,
            reports,
        )
        if chunks is not None:
            for chunk in chunks:
                writer.take_chunk(chunk, inputs.suite.cases)
        else:
            for case, run, record in _ordered_results(inputs, checks, judge, workers):
                writer.take(case, run, record)
    data = summary.to_json()
    # The suite's hard-case coverage: every case counts, graded or not (DESIGN section 7).
    data["checks"]["coverage"] = coverage_counts(inputs.suite.cases.values())
    if inputs.cases_without_runs:
        # Counted in `cases` and in no figure: named, so the reports can list them.
        data["cases_without_runs"] = inputs.cases_without_runs
    if inputs.otlp_stats is not None:
        # Spans kept out of the runs are counted here, never dropped silently.
        data["otlp"] = inputs.otlp_stats.to_json()
    summary_path = out_dir / "summary.json"
    return RunOutput(summary=data, results_path=results_path, summary_path=summary_path,
                     judge_items=summary.adjudication.items.summary())


def write_summary(output: RunOutput) -> None:
    """Write `summary.json` (after judges and gates were added)."""
    output.summary_path.write_text(
        json_out.dumps(output.summary, indent=2, ensure_ascii=False, default=str) + "\n",
        encoding="utf-8",
    )
