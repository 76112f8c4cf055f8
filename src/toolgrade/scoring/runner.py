"""The runner: validate everything first, then stream runs through the checks and write outputs.

Three parts: `scoring.inputs` validates, `scoring.grading` grades one trajectory, and this
module orchestrates (in this process, or in an engine's workers through `scoring.jobs`) and
writes the outputs. Its names are the package's public API, so it re-exports the other two's.

Order of work (docs/contract.md): every input is validated before any grading or model call;
then each trajectory is graded by every check through the one `Check` interface, aggregated by
its case's scoring mode, written to `results.jsonl` as soon as it is done, and folded into the
suite summary. A check that crashes becomes data on that record; the run goes on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from toolgrade.checks import Check, default_checks
from toolgrade.loaders import iter_runs
from toolgrade.loaders.transcripts import TRANSCRIPTS_FILE
from toolgrade.models import (
    Case,
    JudgePort,
    Trajectory,
    TrajectoryResult,
)
from toolgrade.models.figures import ResultRecord
from toolgrade.models.summary import SUMMARY_SCHEMA_VERSION, RunSummary
from toolgrade.scoring.coverage import coverage_counts
from toolgrade.scoring.engines import Engine, Serial
from toolgrade.scoring.grading import as_graded, crashed_record, grade_trajectory
from toolgrade.scoring.inputs import ValidatedInputs, require_runs, validate_inputs
from toolgrade.scoring.outputs import (
    GradedChunk,
    OutputWriter,
    ProgressHook,
    ReportSink,
)
from toolgrade.scoring.summary import SuiteSummary

__all__ = ["Graded", "RunOutput", "ValidatedInputs", "crashed_record", "grade",
           "grade_trajectory", "require_runs", "validate_inputs", "write_summary"]


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
    inputs: ValidatedInputs, checks: list[Check], judge: JudgePort | None, concurrency: int
) -> Iterator[Graded]:
    """Grade here, in input order; with a judge up to `concurrency` trajectories in flight."""
    suite = inputs.suite
    runs = iter_runs(inputs.files, inputs.otlp)
    pairs = ((suite.cases[t.case_id], as_graded(suite.cases[t.case_id], t))
             for _, _, t, _ in runs if t is not None)
    where, decisions = suite.base_dir, inputs.decisions
    if judge is None or concurrency <= 1:
        for case, run in pairs:
            yield Graded(case, run, grade_trajectory(case, run, checks, judge, where, decisions))
        return
    window: list[tuple[Case, Trajectory, Future[TrajectoryResult]]] = []
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        for case, run in pairs:
            window.append((case, run, pool.submit(
                grade_trajectory, case, run, checks, judge, where, decisions
            )))
            if len(window) >= concurrency * 2:
                c, r, fut = window.pop(0)
                yield Graded(c, r, fut.result())
        for c, r, fut in window:
            yield Graded(c, r, fut.result())


@dataclass
class RunOutput:
    """The figures of a finished run and where they go.

    `grade` writes `results.jsonl`; `summary_path` is where `write_summary` writes `summary`
    once the caller has added what only it knows: `toolgrade run` adds `judges` (the judge
    usage and calibration, from `composition.judges.JudgeSetup.summary()`) and `gates`. A library
    caller that wants the file calls `write_summary(output)` itself.
    """

    summary: RunSummary
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
    judge_concurrency: int = 1,
    engine: Engine | None = None,
    progress: ProgressHook | None = None,
    on_record: Callable[[ResultRecord], None] | None = None,
    reports: ReportSink | None = None,
) -> RunOutput:
    """Grade validated inputs, streaming `results.jsonl`; return the summary (no gates yet).

    Each graded run is also written, normalised, to `transcripts.jsonl` (same order as
    `results.jsonl`): the report's run views and `toolgrade show` read their steps there.

    `reports`, when given (a `ReportStream`), takes each record as written, so the reports
    need no second reading of the file; with workers it takes each worker's part of them
    instead. `on_record`, when given, also receives each record as written (its JSON form).
    `judge_concurrency`: with a judge, trajectories graded at once in threads of this process
    (the judge settings' `concurrency`); grading processes are the engine's business.
    `engine`: where the deterministic checks run without a judge (`scoring.engines`:
    `Serial()`, the default, `LocalProcesses(n)` worker processes, a Ray cluster); every
    output is the same, byte for byte, whichever grades them.
    """
    default = checks is None
    checks = checks if checks is not None else default_checks()
    out_dir.mkdir(parents=True, exist_ok=True)
    results_path = out_dir / "results.jsonl"
    summary = SuiteSummary(checks, len(inputs.suite), multi_agent=len(inputs.agents) > 1,
                           cases=inputs.suite.cases.values())
    transcripts_path = out_dir / TRANSCRIPTS_FILE
    with results_path.open("w", encoding="utf-8") as fh, \
            transcripts_path.open("w", encoding="utf-8") as transcripts:
        writer = OutputWriter(fh, transcripts, summary, total=inputs.n_runs, progress=progress,
                              on_record=on_record, reports=reports)
        chunks = None if judge is not None else _worker_chunks(
            inputs, checks, engine if engine is not None else Serial(), default,
            reports,
        )
        if chunks is not None:
            for chunk in chunks:
                writer.take_chunk(chunk, inputs.suite.cases)
        else:
            for case, run, record in _ordered_results(inputs, checks, judge, judge_concurrency):
                writer.take(case, run, record)
    return run_output(inputs, summary, out_dir)


def run_output(inputs: ValidatedInputs, summary: SuiteSummary, out_dir: Path) -> RunOutput:
    """The finished run's figures: the summary folded from every graded run, with what only
    the inputs know (coverage, cases without runs, OTLP figures)."""
    data = summary.to_json()
    # The suite's hard-case coverage: every case counts, graded or not (docs/case-format.md).
    data["checks"]["coverage"] = coverage_counts(inputs.suite.cases.values())
    if inputs.cases_without_runs:
        # Counted in `cases` and in no figure: named, so the reports can list them.
        data["cases_without_runs"] = inputs.cases_without_runs
    if inputs.otlp_stats is not None:
        # Spans kept out of the runs are counted here, never dropped silently.
        data["otlp"] = inputs.otlp_stats.to_json()
    return RunOutput(
        summary=RunSummary.model_validate({"schema_version": SUMMARY_SCHEMA_VERSION, **data}),
        results_path=out_dir / "results.jsonl", summary_path=out_dir / "summary.json",
        judge_items=summary.adjudication.items.summary(),
    )


def write_summary(output: RunOutput) -> None:
    """Write `summary.json` (after judges and gates were added)."""
    output.summary_path.write_text(output.summary.to_json_text(), encoding="utf-8")
