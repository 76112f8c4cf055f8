"""`toolgrade run --jobs N` and `--engine ray` without a judge: validate and grade in one pass.

Two passes (`validate_inputs`, then `grade`) parse every run line twice, and the parent reads
each line twice and sends it to a worker twice. Here a worker parses each line of its chunk
once and answers both what validation needs of every line (the run's identity and the
problems reading it found) and the chunk graded (`jobs.ReadAndGraded`). The parent checks what
no worker can see alone (unknown cases, duplicate runs, reliability keys that clash) with the
code `validate_inputs` runs (`inputs.RunsCheck`), in input order, so the problems and their
order are the same; while it has seen none, it writes the graded lines into a staging folder
beside the output folder and merges the summary's and the reports' parts.

Nothing goes into the output folder, and no model is called (this path has no judge), before
every input is known valid: then `before_write(inputs)` runs (the CLI: the empty-input check,
preparing the output folder, its warnings) and the staged files are moved in, by a rename on
the same file system. On any problem: the `InputError` `validate_inputs` would raise, and the
staged files and the graded work are thrown away (grading ran ahead of validation: it is
deterministic, and no one sees it).

Where it would not pay or cannot apply (no workers, inputs small enough to read in this
process, a suite that does not load or other problems before the runs are read, custom checks
that do not pickle), it is `validate_inputs` then `grade`, as before.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from toolgrade.checks import Check, default_checks
from toolgrade.loaders import Suite
from toolgrade.loaders.otlp import OtlpOptions, OtlpStats
from toolgrade.loaders.runs import iter_run_sources
from toolgrade.loaders.transcripts import TRANSCRIPTS_FILE
from toolgrade.scoring import jobs as in_workers
from toolgrade.scoring import parallel_read, workers
from toolgrade.scoring.engines import Engine
from toolgrade.scoring.inputs import (
    OpenedInputs,
    RunsCheck,
    ValidatedInputs,
    check_runs,
    open_inputs,
)
from toolgrade.scoring.outputs import OutputWriter, ProgressHook, ReportSink
from toolgrade.scoring.runner import RunOutput, grade, run_output
from toolgrade.scoring.summary import SuiteSummary, reliability_key

#: The files the pass stages and moves into the output folder once the inputs are valid.
STAGED = ("results.jsonl", TRANSCRIPTS_FILE)


@dataclass(frozen=True)
class Options:
    """How the runs are read, graded and reported (see `validate_and_grade`)."""

    exclude: Path | None = None
    otlp: OtlpOptions | None = None
    checks: list[Check] | None = None
    progress: ProgressHook | None = None
    reports: ReportSink | None = None
    before_write: Callable[[ValidatedInputs], None] | None = None
    #: Every case reads calls written in assistant text (`toolgrade run --text-calls`).
    text_calls: bool = False


def validate_and_grade(
    suite_path: Path, runs: list[Path], out_dir: Path, engine: Engine,
    options: Options | None = None,
) -> tuple[ValidatedInputs, RunOutput]:
    """`validate_inputs` and `grade` in one pass where the engine's workers pay for it; the
    same inputs, outputs and problems (`InputError`, raised before the output folder is made
    or written) either way. `options.before_write(inputs)` runs once the inputs are known
    valid, before anything is written into `out_dir`.

    `options.progress` gets (runs graded, runs expected): in one pass the second is counted
    from the run files' lines until the last call, which gives the runs validated.
    """
    options = options or Options()
    otlp = options.otlp or OtlpOptions()
    stats = OtlpStats()
    start = open_inputs(suite_path, runs, options.exclude, engine,
                        text_calls=options.text_calls)
    checks = options.checks if options.checks is not None else default_checks()
    if not _pays(start, engine, options.checks):
        return _two_passes(start, out_dir, engine, otlp, stats, options)
    assert start.suite is not None  # _pays checked it
    check = RunsCheck(start)
    summary = SuiteSummary(checks, len(start.suite), multi_agent=True,
                           cases=start.suite.cases.values())
    with _staging(out_dir) as stage:
        total = _expected_runs(start.files) if options.progress is not None else 0
        _pass(start.suite, check, summary, stage, _Pass(engine, otlp, stats, checks, total),
              options)
        inputs = check.finish(otlp, stats)
        if options.progress is not None:
            options.progress(inputs.n_runs, inputs.n_runs)
        if options.before_write is not None:
            options.before_write(inputs)
        _move_in(stage, out_dir)
    if len(inputs.agents) <= 1:
        _as_one_agent(summary, next(iter(inputs.agents), None))
    return inputs, run_output(inputs, summary, out_dir)


def _pays(start: OpenedInputs, engine: Engine, checks: list[Check] | None) -> bool:
    """Whether the one pass applies: workers, inputs large enough for them, a suite that
    loaded with no problem so far, and checks the workers can have."""
    return (
        engine.parallel and start.suite is not None and not start.problems
        and parallel_read.size(start.files) >= parallel_read.PARALLEL_READ_BYTES
        and (checks is None or in_workers.picklable(checks))
    )


def _two_passes(
    start: OpenedInputs, out_dir: Path, engine: Engine, otlp: OtlpOptions, stats: OtlpStats,
    options: Options,
) -> tuple[ValidatedInputs, RunOutput]:
    """`validate_inputs` (from what it reads before the runs), then `grade`."""
    inputs = check_runs(start, engine, otlp, stats)
    if options.before_write is not None:
        options.before_write(inputs)
    return inputs, grade(inputs, out_dir, checks=options.checks, engine=engine,
                         progress=options.progress, reports=options.reports)


@dataclass(frozen=True)
class _Pass:
    """Where the pass runs and what it grades with."""

    engine: Engine
    otlp: OtlpOptions
    stats: OtlpStats
    checks: list[Check]
    expected: int


def _pass(
    suite: Suite, check: RunsCheck, summary: SuiteSummary, stage: Path, how: _Pass,
    options: Options,
) -> None:
    """Every run line read and graded in the workers; its identity and problems checked here,
    and while no problem is seen, its graded lines staged and its parts merged."""
    reports = options.reports
    part = reports.part_factory() if reports is not None else None
    shape = in_workers.chunk_shape(how.checks, len(suite), True, part)
    initargs = (suite, check.start.decisions, options.checks, True, part)
    items = iter_run_sources(check.start.files, how.otlp, how.stats)
    with (stage / STAGED[0]).open("w", encoding="utf-8") as results, \
            (stage / STAGED[1]).open("w", encoding="utf-8") as transcripts:
        writer = OutputWriter(results, transcripts, summary, total=how.expected,
                              progress=options.progress, reports=reports)
        answers = how.engine.ordered_map(
            items, in_workers.read_and_grade_chunk,
            in_workers.one_pass_crashed(suite, how.checks, shape),
            initializer=in_workers.start_grader, initargs=initargs,
            chunk_size=workers.CHUNK_SIZE,
        )
        for answer in answers:
            for file, line, key, problems in answer.reads:
                check.add(file, line, key, problems)
            if not check.problems:  # past a problem the run is refused: nothing more kept
                writer.take_chunk(answer.graded, suite.cases)


def _as_one_agent(summary: SuiteSummary, agent: str | None) -> None:
    """The summary as a one-agent run's: the pass counted trials by case and agent (the
    workers cannot know whether more than one agent will turn up); one agent's keys are its
    cases' ids, in the same order."""
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


@contextmanager
def _staging(out_dir: Path) -> Iterator[Path]:
    """A fresh folder for the outputs until the inputs are known valid, removed afterwards
    whatever happens: beside the output folder (in its nearest existing ancestor, so that
    nothing is created for it), where moving the files in is a rename."""
    where = out_dir.absolute().parent
    while not where.is_dir():
        where = where.parent
    try:
        stage = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.toolgrade-", dir=where))
    except OSError:  # a folder we may not write: the temporary folder (a copy at the end)
        stage = Path(tempfile.mkdtemp(prefix="toolgrade-"))
    try:
        yield stage
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _move_in(stage: Path, out_dir: Path) -> None:
    """The staged files into the output folder (made if need be), replacing a previous run's."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in STAGED:
        try:
            os.replace(stage / name, out_dir / name)
        except OSError:  # another file system: copied
            shutil.move(stage / name, out_dir / name)
