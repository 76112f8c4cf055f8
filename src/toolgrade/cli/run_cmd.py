"""`toolgrade run SUITE RUNS --out DIR`: validate, grade, report, gate."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from toolgrade.cli.cache_options import CacheBackendOption, CacheUrlOption, with_cache_options
from toolgrade.cli.common import (
    ALLOW_EMPTY_HELP,
    CASE_ATTRIBUTE_HELP,
    DEFAULT_OUT,
    EXIT_GATE,
    EXIT_OK,
    err,
    input_errors_exit,
    out,
    refuse_together,
)
from toolgrade.errors import ConfigError
from toolgrade.vocabulary import CASE_ATTRIBUTE

if TYPE_CHECKING:
    from toolgrade.composition.judges import JudgeSetup
    from toolgrade.loaders.otlp import OtlpOptions
    from toolgrade.reporting import ReportStream
    from toolgrade.scoring.engines import Engine
    from toolgrade.scoring.runner import RunOutput, ValidatedInputs
    from toolgrade.settings import Settings


class EngineName(StrEnum):
    """Where `toolgrade run` grades: worker processes here, or Ray tasks on a cluster."""

    local = "local"
    ray = "ray"


def _engine(name: EngineName, address: str | None, jobs: int | None, quiet: bool = False
            ) -> Engine:
    """The engine the options name; `ConfigError` for --address without Ray, or no Ray."""
    from toolgrade.scoring.engines import engine_for
    from toolgrade.scoring.workers import available_cpus

    if name is EngineName.local:
        if address is not None:
            raise ConfigError("--address is the Ray cluster's: give it with --engine ray")
        return engine_for(jobs if jobs is not None else available_cpus())
    from toolgrade.scoring.ray_engine import RayEngine, check_reachable, import_ray

    import_ray()  # no Ray installed: say so before reading anything
    check_reachable(address)  # even for inputs small enough to grade here
    return RayEngine(address=address, tasks=jobs, quiet=quiet)


@contextmanager
def _closing(engine: Engine) -> Iterator[None]:
    """Close the engine afterwards, when it holds something (a local Ray it started)."""
    try:
        yield
    finally:
        close = getattr(engine, "close", None)
        if close is not None:
            close()


def _say_where_graded(engine: Engine) -> None:
    """With Ray: how many nodes and worker processes graded (none: all of it ran here)."""
    nodes, processes = getattr(engine, "nodes", None), getattr(engine, "processes", None)
    if nodes is not None and processes is not None:
        err.print(f"graded on Ray: {len(nodes)} node(s), {len(processes)} worker process(es)",
                  markup=False)


def _open_engine(engine: Engine, inputs: ValidatedInputs, judged: bool) -> None:
    """Connect to Ray now, when it is to grade (so that an unreachable cluster is exit 2 with
    nothing written); small inputs and judged runs grade in this process."""
    from toolgrade.scoring import workers

    open_engine = getattr(engine, "open", None)
    if open_engine is not None and not judged and inputs.n_runs > workers.CHUNK_SIZE:
        open_engine()


def _settings(
    config: Path | None,
    judge_model: str | None,
    no_judge: bool,
    cache_dir: Path | None,
    no_cache: bool,
    quiet: bool,
) -> Settings:
    from toolgrade.settings import load_settings

    refuse_together(judge_model=judge_model is not None, no_judge=no_judge)
    refuse_together(cache_dir=cache_dir is not None, no_cache=no_cache)
    settings = load_settings(config)
    judge = settings.judge
    changes: dict[str, object] = {}
    if judge_model is not None:
        changes["model"] = judge_model
    if no_judge:
        changes["enabled"] = False
    if cache_dir is not None:
        changes["cache_dir"] = cache_dir
    if no_cache:
        changes["use_cache"] = False
    return settings.model_copy(
        update={
            "judge": judge.model_copy(update=changes),
            "progress": settings.progress and not quiet,
        }
    )


def _make_out_dir(out_dir: Path) -> None:
    """Create the output folder, or stop with exit 2 before anything is graded.

    A previous run's summary and reports are removed first: results.jsonl is about to be
    rewritten, and a run stopped before its own summary must not leave a folder whose files
    describe two runs (`toolgrade report` would render them together).
    """
    from toolgrade.reporting.files import REPORT_FILES

    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        for name in ("summary.json", *REPORT_FILES):
            (out_dir / name).unlink(missing_ok=True)
    except OSError as exc:
        reason = f"cannot prepare the output folder: {exc.strerror}"
        raise ConfigError(f"--out {out_dir}: {reason}") from exc


def _warn_about_coverage(inputs: ValidatedInputs) -> None:
    """Say when runs leave cases ungraded: their checks are missing from every figure."""
    missing = inputs.cases_without_runs
    if not missing:
        return
    if inputs.n_runs == 0:
        err.print("warning: the run files hold no runs; nothing is graded", markup=False)
        return
    shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
    err.print(
        f"warning: {len(missing)} of {len(inputs.suite)} cases have no run ({shown}); "
        "the figures leave them out",
        markup=False,
    )


@dataclass(frozen=True)
class _Job:
    """What `toolgrade run` was asked to read and where it writes."""

    suite: Path
    runs: list[Path]
    out_dir: Path
    otlp: OtlpOptions
    allow_empty: bool
    text_calls: bool = False

    def refuse_empty(self, inputs: ValidatedInputs) -> None:
        """`EmptyInputError` when the run files hold no run, unless --allow-empty."""
        from toolgrade.scoring.runner import require_runs

        if not self.allow_empty:
            require_runs(inputs)

    def before_write(self, inputs: ValidatedInputs, engine: Engine, judged: bool) -> None:
        """Once the inputs are valid and the judges set up, before anything is written:
        connect to Ray, prepare the output folder, and say what the figures leave out."""
        _open_engine(engine, inputs, judged=judged)
        _make_out_dir(self.out_dir)  # only once nothing can refuse the run
        _warn_about_coverage(inputs)
        if inputs.otlp_stats is not None:
            err.print(inputs.otlp_stats.describe(), markup=False)


def _notify(message: str) -> None:
    err.print(message, markup=False)


def _two_passes(
    job: _Job, settings: Settings, engine: Engine, reports: ReportStream
) -> tuple[RunOutput, JudgeSetup]:
    """Validate every input, set the judges up, then grade (with a judge, or in this
    process): no model is called before the inputs are known valid."""
    from toolgrade.checks.adjudication import deciding_dimensions
    from toolgrade.cli.progress import progress_bar
    from toolgrade.composition.judges import setup_judges
    from toolgrade.scoring.runner import grade, validate_inputs

    inputs = validate_inputs(job.suite, job.runs, exclude=job.out_dir, otlp=job.otlp,
                             engine=engine, text_calls=job.text_calls)
    job.refuse_empty(inputs)
    judges = setup_judges(settings, notify=_notify,
                          deciding=deciding_dimensions(inputs.suite.cases.values()))
    job.before_write(inputs, engine, judged=judges.engine is not None)
    with progress_bar(settings.progress, inputs.n_runs, judges) as hook:
        output = grade(inputs, job.out_dir, judge=judges.engine,
                       judge_concurrency=judges.judge_concurrency, engine=engine, progress=hook,
                       reports=reports)
    return output, judges


def _one_pass(
    job: _Job, settings: Settings, engine: Engine, reports: ReportStream
) -> tuple[RunOutput, JudgeSetup]:
    """No judge, and workers: validate and grade in one pass (`scoring.one_pass`), nothing
    written into the output folder before the inputs are known valid."""
    from toolgrade.cli.progress import progress_bar
    from toolgrade.composition.judges import setup_judges
    from toolgrade.scoring.one_pass import Options, validate_and_grade

    judges = setup_judges(settings, notify=_notify)  # judging is off here: nothing is built
    # "read", not "graded": grading runs ahead of validation and is thrown away on bad input.
    with progress_bar(settings.progress, None, judges, verb="read") as hook:
        def before_write(inputs: ValidatedInputs) -> None:
            job.refuse_empty(inputs)
            job.before_write(inputs, engine, judged=False)

        options = Options(exclude=job.out_dir, otlp=job.otlp, progress=hook, reports=reports,
                          before_write=before_write, text_calls=job.text_calls)
        _, output = validate_and_grade(job.suite, job.runs, job.out_dir, engine, options)
    return output, judges


def run(
    suite: Annotated[Path, typer.Argument(help="Suite: YAML, JSONL, or a folder of them.")],
    runs: Annotated[list[Path], typer.Argument(help="Run files or folders (JSONL).")],
    out_dir: Annotated[
        Path, typer.Option("--out", "-o", help="Output folder (made if missing).")
    ] = DEFAULT_OUT,
    config: Annotated[Path | None, typer.Option(help="Settings file (TOML).")] = None,
    judge_model: Annotated[str | None, typer.Option(help="Any litellm model string.")] = None,
    no_judge: Annotated[
        bool, typer.Option("--no-judge", help="Judge-only fields stay unscored.")
    ] = False,
    cache_dir: Annotated[Path | None, typer.Option(help="Judge verdict cache folder.")] = None,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Do not read or write the cache.")
    ] = False,
    cache_backend: CacheBackendOption = None,
    cache_url: CacheUrlOption = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress bar or scorecard.")
    ] = False,
    case_attribute: Annotated[str, typer.Option(help=CASE_ATTRIBUTE_HELP)] = CASE_ATTRIBUTE,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            min=1,
            help="Worker processes for reading and the deterministic checks (default: the CPUs "
            "available). Outputs are the same whatever the number; with a judge, grading "
            # Escaped: typer reads help as rich markup, where `[judge]` is a style and vanishes.
            "stays in one process, where \\[judge] concurrency applies. With --engine ray: "
            "the chunks running at once (default: the cluster's CPUs).",
        ),
    ] = None,
    engine_name: Annotated[
        EngineName,
        typer.Option(
            "--engine",
            help="local: --jobs worker processes on this machine; ray: Ray tasks on a cluster "
            "(pip install 'toolgrade[ray]'). Outputs are the same either way.",
        ),
    ] = EngineName.local,
    address: Annotated[
        str | None,
        typer.Option(
            help="With --engine ray: the cluster's address (auto: the one `ray start` runs "
            "here; default: RAY_ADDRESS, else a local Ray started for this run).",
        ),
    ] = None,
    allow_empty: Annotated[bool, typer.Option("--allow-empty", help=ALLOW_EMPTY_HELP)] = False,
    text_calls: Annotated[
        bool,
        typer.Option(
            "--text-calls",
            help="Read tool calls the agent wrote in an assistant message's text as calls, in "
            "every case (as `text_calls: true` in the suite).",
        ),
    ] = False,
) -> None:
    """Grade RUNS against SUITE; write results.jsonl, summary.json and reports into --out.

    Exit 0 when every gate holds, 1 when a gate fails, 2 for bad input or configuration.
    """
    from toolgrade.loaders.otlp import OtlpOptions
    from toolgrade.loaders.suite_digest import suite_sha256
    from toolgrade.reporting import ReportStream, print_scorecard
    from toolgrade.scoring.gates import evaluate_gates, validate_gate_names
    from toolgrade.scoring.runner import write_summary

    with input_errors_exit():
        settings = _settings(config, judge_model, no_judge, cache_dir, no_cache, quiet)
        judge = with_cache_options(settings.judge, cache_backend, cache_url)
        settings = settings.model_copy(update={"judge": judge})
        validate_gate_names(settings.gates)
        if out_dir.exists() and not out_dir.is_dir():
            raise ConfigError(f"--out {out_dir}: a file of that name exists, not a folder")
        engine = _engine(engine_name, address, jobs, quiet)
        job = _Job(suite, runs, out_dir, OtlpOptions(case_attribute=case_attribute), allow_empty,
                   text_calls)
        with _closing(engine), ReportStream() as reports:
            if settings.judge.enabled or not engine.parallel:
                output, judges = _two_passes(job, settings, engine, reports)
            else:
                output, judges = _one_pass(job, settings, engine, reports)
            judged = output.summary.with_run_context(
                judges=judges.summary(output.judge_items), suite=str(suite.resolve()),
                suite_sha256=suite_sha256(suite),
            )
            gates = evaluate_gates(settings.gates, judged)
            output.summary = judged.with_gates(gates)
            write_summary(output)
            reports.write(out_dir, output.summary)
            if not quiet:
                _say_where_graded(engine)
    if not quiet:
        print_scorecard(out, output.summary)
        for line in _items_lines(output.judge_items, out_dir, _record_figures(output.summary)):
            out.print(line, markup=False)
        out.print(
            f"wrote {out_dir}/results.jsonl, summary.json, report.md, report.html, junit.xml, "
            "transcripts.jsonl",
            markup=False,
        )
    for gate in gates:
        (out if gate.passed else err).print(gate.message(), markup=False)
    raise typer.Exit(EXIT_OK if all(g.passed for g in gates) else EXIT_GATE)


def _record_figures(summary: Any) -> dict[str, str]:
    """Per dimension, what its calibration record says of the configuration in use."""
    from toolgrade.reporting.tables import calibration_text

    shown: dict[str, str] = {}
    for dim, block in (getattr(summary, "judges", None) or {}).items():
        calibration = getattr(block, "calibration", None)
        if isinstance(calibration, dict) and isinstance(calibration.get("in_use"), dict):
            shown[dim] = calibration_text(calibration)
    return shown


def _items_lines(items: Mapping[str, Mapping[str, int]], out_dir: Path,
                 records: Mapping[str, str] | None = None) -> list[str]:
    """The console's account of where judge items went, one line per dimension asked (with
    this run's coverage, the share the judge decided itself, and its record's figures), and
    where to decide those left for people."""
    lines = []
    for dim, c in items.items():
        total = sum(c.values())
        coverage = f"; coverage {c['decided_locally'] / total:.2f}" if total else ""
        record = f"; record: {records[dim]}" if records and dim in records else ""
        lines.append(
            f"judge items ({dim}): {c['decided_locally']} decided locally, {c['escalated']} "
            f"escalated, {c['decided_by_people']} decided by people, {c['left_for_people']} left "
            f"for people{coverage}{record}")
    if any(c["left_for_people"] for c in items.values()):
        lines.append(f"decide those left for people with `toolgrade adjudicate {out_dir}`")
    return lines
