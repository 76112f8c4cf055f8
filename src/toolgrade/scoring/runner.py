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
from typing import Any

from toolgrade import json_out
from toolgrade.checks import Check, GradeContext, default_checks
from toolgrade.errors import InputError, InputProblem
from toolgrade.loaders import Suite, iter_runs, load_suite, run_files
from toolgrade.loaders.adjudications import adjudications_path, load_decisions
from toolgrade.loaders.otlp import OtlpOptions, OtlpStats
from toolgrade.loaders.transcripts import TRANSCRIPTS_FILE, write_transcript
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
from toolgrade.scoring.recording import RecordingJudge
from toolgrade.scoring.summary import SuiteSummary, reliability_key

#: Called after each graded trajectory with (done, total).
ProgressHook = Callable[[int, int], None]


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
) -> ValidatedInputs:
    """Read every input once; raise `InputError` listing every problem in every file.

    `exclude`: a folder whose files are never runs, even inside a runs folder (the output
    folder, so that a second run does not read the first one's `results.jsonl`). `otlp`:
    how OTLP trace exports among the run files are read.
    """
    otlp = otlp or OtlpOptions()
    stats = OtlpStats()
    problems: list[InputProblem] = []
    suite: Suite | None = None
    decisions = HumanDecisions()
    try:
        suite = load_suite(suite_path)
    except InputError as exc:
        problems.extend(exc.problems)
    else:
        decisions, found = load_decisions(adjudications_path(suite_path), suite.cases)
        problems.extend(found)
    files = run_files(runs, exclude)
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
    for file, line, trajectory, found in iter_runs(files, otlp, stats):
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

    def first_or_add(self, run: Trajectory, file: str, line: int) -> str | None:
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
    recorder = RecordingJudge(judge) if judge is not None else None
    ctx = GradeContext(
        judge=recorder, base_dir=base_dir, decisions=decisions or HumanDecisions()
    )
    results: dict[CheckName, CheckResult] = {}
    errors = []
    for check in checks:
        try:
            results[check.name] = check.grade(case, run, ctx)
        except Exception as exc:  # a crash is data about this record; the run goes on
            detail = "".join(traceback.format_exception_only(exc)).strip()
            errors.append(f"{check.name}: {detail}")
            results[check.name] = CheckResult(
                check=check.name,
                applicable=True,
                score=None,
                passed=None,
                figures={"error": detail},
            )
    return TrajectoryResult(
        case_id=run.case_id,
        trial=run.trial,
        agent=run.agent,
        checks=results,
        aggregate=aggregate(results, case.scoring),
        judges=recorder.log if recorder is not None else {},
        error="; ".join(errors) or None,
        n_calls=len(run.calls),
    )


def _ordered_results(
    inputs: ValidatedInputs, checks: list[Check], judge: JudgePort | None, workers: int
) -> Iterator[tuple[Case, Trajectory, TrajectoryResult]]:
    """Grade in input order; with a judge, up to `workers` trajectories are in flight at once."""
    suite = inputs.suite
    runs = iter_runs(inputs.files, inputs.otlp)
    pairs = ((suite.cases[t.case_id], t) for _, _, t, _ in runs if t is not None)
    where, decisions = suite.base_dir, inputs.decisions
    if judge is None or workers <= 1:
        for case, run in pairs:
            yield case, run, grade_trajectory(case, run, checks, judge, where, decisions)
        return
    window: list[tuple[Case, Trajectory, Future[TrajectoryResult]]] = []
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for case, run in pairs:
            window.append((case, run, pool.submit(
                grade_trajectory, case, run, checks, judge, where, decisions
            )))
            if len(window) >= workers * 2:
                c, r, fut = window.pop(0)
                yield c, r, fut.result()
        for c, r, fut in window:
            yield c, r, fut.result()


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


def grade(
    inputs: ValidatedInputs,
    out_dir: Path,
    *,
    judge: JudgePort | None = None,
    checks: list[Check] | None = None,
    workers: int = 1,
    progress: ProgressHook | None = None,
    on_record: Callable[[dict[str, Any]], None] | None = None,
) -> RunOutput:
    """Grade validated inputs, streaming `results.jsonl`; return the summary (no gates yet).

    Each graded run is also written, normalised, to `transcripts.jsonl` (same order as
    `results.jsonl`): the report's run views and `toolgrade show` read their steps there.

    `on_record`, when given, also receives each record as written (its JSON form), e.g. a
    `ReportStream`, so the reports need no second reading of the file.
    """
    checks = checks if checks is not None else default_checks()
    out_dir.mkdir(parents=True, exist_ok=True)
    results_path = out_dir / "results.jsonl"
    summary = SuiteSummary(checks, len(inputs.suite), multi_agent=len(inputs.agents) > 1)
    done = 0
    transcripts_path = out_dir / TRANSCRIPTS_FILE
    with results_path.open("w", encoding="utf-8") as fh, \
            transcripts_path.open("w", encoding="utf-8") as transcripts:
        for case, run, record in _ordered_results(inputs, checks, judge, workers):
            data = record.to_json()
            fh.write(json_out.dumps(data, ensure_ascii=False, default=str) + "\n")
            write_transcript(transcripts, run)
            if on_record is not None:
                on_record(data)
            summary.add(case, run, record)
            done += 1
            if progress is not None:
                progress(done, inputs.n_runs)
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
    return RunOutput(summary=data, results_path=results_path, summary_path=summary_path)


def write_summary(output: RunOutput) -> None:
    """Write `summary.json` (after judges and gates were added)."""
    output.summary_path.write_text(
        json_out.dumps(output.summary, indent=2, ensure_ascii=False, default=str) + "\n",
        encoding="utf-8",
    )
