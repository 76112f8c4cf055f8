"""The one grading path: validate every input, grade each run, write the outputs.

Order of work (docs/contract.md): every input is validated before any grading or model call;
then each run is graded by every check (`scoring.grading`), written to `results.jsonl` as soon
as it is done and folded into the suite summary. A check that crashes becomes data on that
record; the grading goes on.

`validate_and_grade` is the path `toolgrade run` takes, over any `engines.Engine`. The first
pass reads every run line (`inputs.RunsCheck` checks them in input order), in the engine's
workers when the run files are large enough (`engines.hands_out`). With no judge to ask and
workers to do it, the first pass grades too (`one_pass`): each line is parsed once, and the
graded lines go into a staging folder beside the output folder, moved in only once every input
is known valid (grading ran ahead of validation: it is deterministic, and on bad input no one
sees it). Otherwise a second pass grades the validated runs (`grade`): with a judge, in this
process, where the judge's concurrency bound and its verdict cache live. The problems, their
order and every output byte are the same either way.

`validate_inputs` and `grade` are the two passes on their own, for library callers; the
package's public names are re-exported here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Protocol

from toolgrade.checks import Check, default_checks
from toolgrade.errors import ConfigError
from toolgrade.loaders import iter_runs
from toolgrade.loaders.otlp import OtlpOptions, OtlpStats
from toolgrade.loaders.suite_digest import suite_sha256
from toolgrade.models import Case, JudgePort, Trajectory, TrajectoryResult
from toolgrade.models.figures import ResultRecord
from toolgrade.models.judge_usage import UsageByDimension
from toolgrade.models.summary import GateResult
from toolgrade.scoring import jobs
from toolgrade.scoring.engines import Engine, Serial, available_cpus, engine_for, hands_out
from toolgrade.scoring.gates import evaluate_gates
from toolgrade.scoring.grading import as_graded, crashed_record, grade_trajectory
from toolgrade.scoring.inputs import (
    OpenedInputs,
    RunsCheck,
    ValidatedInputs,
    open_inputs,
    require_runs,
)
from toolgrade.scoring.outputs import (
    STREAMED,
    OutputWriter,
    ProgressHook,
    ReportSink,
    RunOutput,
    move_in,
    prepare_out_dir,
    run_output,
    staging,
    write_summary,
)
from toolgrade.scoring.ray_engine import RayEngine, check_reachable, import_ray
from toolgrade.scoring.summary import SuiteSummary, reliability_key

__all__ = ["Graded", "GradingHooks", "GradingOptions", "RunOutput", "ValidatedInputs",
           "crashed_record", "engine_named", "finish", "grade", "grade_trajectory",
           "require_runs", "validate_and_grade", "validate_inputs", "write_summary"]


class JudgeChoice(Protocol):
    """The judges a grading asks (`composition.judges.JudgeSetup`)."""

    @property
    def engine(self) -> JudgePort | None:
        """The judge (None: judging is off)."""
        ...

    @property
    def judge_concurrency(self) -> int:
        """Runs graded at once in this process when judged."""
        ...


class GradingHooks(Protocol):
    """What the caller of `validate_and_grade` adds: the judges, a progress bar, its notices."""

    def judges(self, inputs: ValidatedInputs | None) -> JudgeChoice:
        """Set the judges up, once: with the valid inputs (whose cases say which dimensions
        decide), or with None before any reading when no judge is to be asked."""
        ...

    def progress(self, total: int | None) -> AbstractContextManager[ProgressHook | None]:
        """A progress hook for the grading (`total` None: read and graded in one pass, where
        the hook's own total is an estimate until the last call)."""
        ...

    def before_write(self, inputs: ValidatedInputs) -> None:
        """Once the inputs are valid and the output folder prepared, before anything is
        written into it (the CLI says what the figures leave out)."""
        ...


@dataclass(frozen=True)
class GradingOptions:
    """How the runs are read, graded and reported (see `validate_and_grade`)."""

    #: A folder whose files are never runs (the output folder: a second grading must not read
    #: the first one's results.jsonl).
    exclude: Path | None = None
    otlp: OtlpOptions | None = None
    checks: list[Check] | None = None
    #: Every case reads calls written in assistant text (`toolgrade run --text-calls`).
    text_calls: bool = False
    #: Run files that hold no run are graded (nothing) rather than refused.
    allow_empty: bool = True
    #: Whether a judge may be asked (the settings' `[judge] enabled`): without, one pass.
    judged: bool = False
    reports: ReportSink | None = None
    #: A previous grading's files removed from the output folder before anything is written.
    replaced: tuple[str, ...] = ()


class _NoHooks:
    """No judge, no progress, nothing to say."""

    def judges(self, inputs: ValidatedInputs | None) -> JudgeChoice:
        return _NoJudge()

    def progress(self, total: int | None) -> AbstractContextManager[ProgressHook | None]:
        return nullcontext(None)

    def before_write(self, inputs: ValidatedInputs) -> None:
        """Nothing to say."""


@dataclass(frozen=True)
class _NoJudge:
    engine: JudgePort | None = None
    judge_concurrency: int = 1


def validate_and_grade(
    suite_path: Path, runs: list[Path], out_dir: Path, engine: Engine,
    options: GradingOptions | None = None, hooks: GradingHooks | None = None,
) -> tuple[ValidatedInputs, RunOutput]:
    """Validate every input, then grade and write results.jsonl and transcripts.jsonl into
    `out_dir` (in one pass where the engine's workers pay for it: see the module's docstring).
    `InputError` (or `EmptyInputError`) before the output folder is made or written."""
    options, hooks = options or GradingOptions(), hooks or _NoHooks()
    otlp, stats = options.otlp or OtlpOptions(), OtlpStats()
    start = open_inputs(suite_path, runs, options.exclude, engine, text_calls=options.text_calls)
    if not _one_pass(start, engine, options):
        inputs = _validated(start, engine, otlp, stats)
        judges = _ready(inputs, options, hooks, out_dir, set_up_judges=True)
        with hooks.progress(inputs.n_runs) as progress:
            return inputs, grade(inputs, out_dir, judge=judges.engine, checks=options.checks,
                                 judge_concurrency=judges.judge_concurrency, engine=engine,
                                 progress=progress, reports=options.reports)
    hooks.judges(None)  # no judge: nothing is built, but the caller reports on them
    assert start.suite is not None  # _one_pass checked it
    check = RunsCheck(start)
    checks = options.checks if options.checks is not None else default_checks()
    summary = SuiteSummary(checks, len(start.suite), multi_agent=True,
                           cases=start.suite.cases.values())
    with hooks.progress(None) as progress, staging(out_dir) as stage:
        with (stage / STREAMED[0]).open("w", encoding="utf-8") as results, \
                (stage / STREAMED[1]).open("w", encoding="utf-8") as transcripts:
            writer = OutputWriter(results, transcripts, summary, progress=progress,
                                  total=_expected_runs(start.files) if progress else 0,
                                  reports=options.reports)
            _first_pass(check, engine, otlp, stats, _Grading(writer, options.checks))
        inputs = check.finish(otlp, stats)
        if progress is not None:
            progress(inputs.n_runs, inputs.n_runs)
        _ready(inputs, options, hooks, out_dir, set_up_judges=False)
        move_in(stage, out_dir)
    if len(inputs.agents) <= 1:
        _as_one_agent(summary, next(iter(inputs.agents), None))
    return inputs, run_output(inputs, summary, out_dir)


def validate_inputs(
    suite_path: Path,
    runs: list[Path],
    exclude: Path | None = None,
    otlp: OtlpOptions | None = None,
    *,
    engine: Engine | None = None,
    text_calls: bool = False,
) -> ValidatedInputs:
    """Read every input once; raise `InputError` listing every problem in every file.

    `exclude`: a folder whose files are never runs, even inside a runs folder (the output
    folder, so that a second grading does not read the first one's `results.jsonl`). `otlp`:
    how OTLP trace exports among the run files are read. `engine`: where the lines are read
    (`Serial()`, the default, `LocalProcesses(n)`, a Ray cluster; large inputs only, the
    problems are the same, in the same order, whichever reads them). `text_calls`: every case
    reads calls written in assistant text, as `text_calls: true` in the suite would.
    """
    engine = engine if engine is not None else Serial()
    start = open_inputs(suite_path, runs, exclude, engine, text_calls=text_calls)
    return _validated(start, engine, otlp or OtlpOptions(), OtlpStats())


def _one_pass(start: OpenedInputs, engine: Engine, options: GradingOptions) -> bool:
    """Whether the first pass grades too: no judge, workers and inputs large enough for them,
    a suite that loaded with no problem so far, and checks the workers can have."""
    return (
        not options.judged and start.suite is not None and not start.problems
        and hands_out(engine, start.files) and jobs.picklable(options.checks)
    )


def _validated(start: OpenedInputs, engine: Engine, otlp: OtlpOptions, stats: OtlpStats
               ) -> ValidatedInputs:
    """The first pass reading only; `InputError` listing every problem."""
    check = RunsCheck(start)
    _first_pass(check, engine, otlp, stats, None)
    return check.finish(otlp, stats)


class _Grading(NamedTuple):
    """The first pass grades too (the one pass): where the graded lines go, and the custom
    checks the workers are sent (None: the default ones, which they build themselves)."""

    writer: OutputWriter
    checks: list[Check] | None


def _first_pass(check: RunsCheck, engine: Engine, otlp: OtlpOptions, stats: OtlpStats,
                grading: _Grading | None) -> None:
    """Every run line read and checked, in input order: here, or in the engine's workers when
    the files are large enough; with `grading`, graded there too, and while no problem is
    seen, the graded lines written and the parts merged."""
    start, suite = check.start, check.start.suite
    if not hands_out(engine, start.files):
        for file, line, run, found in iter_runs(start.files, otlp, stats):
            check.add(file, line, run, found)
        return
    grader = None
    if grading is not None and suite is not None:
        reports = grading.writer.reports
        part = reports.part_factory() if reports is not None else None
        grader = jobs.Grader(suite, start.decisions, grading.checks, True, part)
    answers = jobs.read_in_workers(start.files, engine, otlp, stats, grader=grader,
                                   with_tools=check.called is not None)
    for answer in answers:
        for file, line, key, found in answer.reads:
            check.add(file, line, key, found)
        if grading is not None and answer.graded is not None and not check.problems:
            assert suite is not None
            grading.writer.take_chunk(answer.graded, suite.cases)  # past a problem: nothing


def _ready(inputs: ValidatedInputs, options: GradingOptions, hooks: GradingHooks,
           out_dir: Path, *, set_up_judges: bool) -> JudgeChoice:
    """Once the inputs are valid, before anything is written: refuse an empty input (unless
    allowed), set the judges up (the one pass set them up before reading), prepare the output
    folder, let the caller speak."""
    if not options.allow_empty:
        require_runs(inputs)
    judges = hooks.judges(inputs) if set_up_judges else _NoJudge()
    prepare_out_dir(out_dir, options.replaced)  # only once nothing can refuse the grading
    hooks.before_write(inputs)
    return judges


def _as_one_agent(summary: SuiteSummary, agent: str | None) -> None:
    """The summary as a one-agent grading's: the one pass counted trials by case and agent
    (the workers cannot know whether more than one agent will turn up); one agent's keys are
    its cases' ids, in the same order."""
    suffix = len(reliability_key("", agent, multi_agent=True))  # "@agent"
    summary.reliability.rename(lambda key: key[:-suffix])
    summary.multi_agent = False


def _expected_runs(files: list[Path]) -> int:
    """The run files' lines, for the progress bar before validation has counted the runs
    (an OTLP export counts its lines, not its runs: the last call puts it right)."""
    total = 0
    for path in files:
        if path.is_file():
            with path.open("rb") as fh:
                total += sum(block.count(b"\n") for block in iter(lambda: fh.read(1 << 20), b""))
    return total


class Graded(NamedTuple):
    """A run graded in this process, in input order."""

    case: Case
    run: Trajectory
    record: TrajectoryResult


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
    `judge_concurrency`: with a judge, runs graded at once in threads of this process (the
    judge settings' `concurrency`). `engine`: where the deterministic checks run without a
    judge (`Serial()`, the default, `LocalProcesses(n)` worker processes, a Ray cluster);
    every output is the same, byte for byte, whichever grades them.
    """
    default = checks is None
    checks = checks if checks is not None else default_checks()
    out_dir.mkdir(parents=True, exist_ok=True)
    summary = SuiteSummary(checks, len(inputs.suite), multi_agent=len(inputs.agents) > 1,
                           cases=inputs.suite.cases.values())
    engine = engine if engine is not None else Serial()
    with (out_dir / STREAMED[0]).open("w", encoding="utf-8") as fh, \
            (out_dir / STREAMED[1]).open("w", encoding="utf-8") as transcripts:
        writer = OutputWriter(fh, transcripts, summary, total=inputs.n_runs, progress=progress,
                              on_record=on_record, reports=reports)
        if judge is None and hands_out(engine, inputs.files) \
                and (default or jobs.picklable(checks)):
            part = reports.part_factory() if reports is not None else None
            for chunk in jobs.grade_in_workers(inputs, checks, engine=engine,
                                               send_checks=not default, part_factory=part):
                writer.take_chunk(chunk, inputs.suite.cases)
        else:
            for case, run, record in _ordered_results(inputs, checks, judge, judge_concurrency):
                writer.take(case, run, record)
    return run_output(inputs, summary, out_dir)


def _ordered_results(
    inputs: ValidatedInputs, checks: list[Check], judge: JudgePort | None, concurrency: int
) -> Iterator[Graded]:
    """Grade here, in input order; with a judge up to `concurrency` runs in flight."""
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


def finish(
    output: RunOutput, *, suite_path: Path, judges: UsageByDimension,
    gates: Mapping[str, float], reports: ReportSink | None = None,
) -> list[GateResult]:
    """The grading's summary completed and written: the judges' usage and calibration, the
    suite's path and sha256, the gates' outcomes (`output.summary` is replaced); then the
    reports. Returns the gates' outcomes (any failed: exit 1)."""
    judged = output.summary.with_run_context(
        judges=judges, suite=str(suite_path.resolve()), suite_sha256=suite_sha256(suite_path))
    outcomes = evaluate_gates(gates, judged)
    output.summary = judged.with_gates(outcomes)
    write_summary(output)
    if reports is not None:
        reports.write(output.summary_path.parent, output.summary)
    return outcomes


def engine_named(name: str, *, jobs: int | None, address: str | None, quiet: bool = False
                 ) -> Engine:
    """The engine `toolgrade run --engine NAME --jobs N --address A` means: "local" is N worker
    processes here (default: the CPUs available; 1 is this process), "ray" Ray tasks
    (`ConfigError` when Ray is missing or nothing answers at `address`: said before anything
    is read)."""
    if name == "local":
        if address is not None:
            raise ConfigError("--address is the Ray cluster's: give it with --engine ray")
        return engine_for(jobs if jobs is not None else available_cpus())
    import_ray()  # no Ray installed: say so before reading anything
    check_reachable(address)  # even for inputs small enough to grade here
    return RayEngine(address=address, tasks=jobs, quiet=quiet)
