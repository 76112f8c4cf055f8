"""`toolgrade run SUITE RUNS --out DIR`: validate, grade, report, gate."""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager, closing
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
    from toolgrade.scoring.outputs import ProgressHook
    from toolgrade.scoring.runner import ValidatedInputs
    from toolgrade.settings import Settings


class EngineName(StrEnum):
    """Where `toolgrade run` grades: worker processes here, or Ray tasks on a cluster."""

    local = "local"
    ray = "ray"


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


class _Console:
    """What `toolgrade run` adds to the grading (`scoring.runner.GradingHooks`): the judges it
    sets up (`composition.judges`), the progress bar and the notices it prints."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.setup: JudgeSetup | None = None

    def judges(self, inputs: ValidatedInputs | None) -> JudgeSetup:
        """The judges, for the dimensions the suite's cases decide (none before reading)."""
        from toolgrade.checks.adjudication import deciding_dimensions
        from toolgrade.composition.judges import setup_judges

        deciding = deciding_dimensions(inputs.suite.cases.values()) if inputs else None
        self.setup = setup_judges(self.settings, notify=_notify, deciding=deciding)
        return self.setup

    def progress(self, total: int | None) -> AbstractContextManager[ProgressHook | None]:
        """The progress bar; "read", not "graded", in one pass: grading runs ahead of
        validation there and is thrown away on bad input."""
        from toolgrade.cli.progress import progress_bar

        assert self.setup is not None  # the judges are set up first
        return progress_bar(self.settings.progress, total, self.setup,
                            verb="graded" if total is not None else "read")

    def before_write(self, inputs: ValidatedInputs) -> None:
        """Say what the figures leave out."""
        _warn_about_coverage(inputs)
        if inputs.otlp_stats is not None:
            err.print(inputs.otlp_stats.describe(), markup=False)


def _notify(message: str) -> None:
    err.print(message, markup=False)


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
    from toolgrade.reporting import ReportStream, print_scorecard
    from toolgrade.reporting.files import REPORT_FILES
    from toolgrade.scoring.gates import validate_gate_names
    from toolgrade.scoring.runner import GradingOptions, engine_named, finish, validate_and_grade

    with input_errors_exit():
        settings = _settings(config, judge_model, no_judge, cache_dir, no_cache, quiet)
        judge = with_cache_options(settings.judge, cache_backend, cache_url)
        settings = settings.model_copy(update={"judge": judge})
        validate_gate_names(settings.gates)
        if out_dir.exists() and not out_dir.is_dir():
            raise ConfigError(f"--out {out_dir}: a file of that name exists, not a folder")
        engine = engine_named(engine_name.value, jobs=jobs, address=address, quiet=quiet)
        console = _Console(settings)
        with closing(engine), ReportStream() as reports:
            options = GradingOptions(
                exclude=out_dir, otlp=OtlpOptions(case_attribute=case_attribute),
                text_calls=text_calls, allow_empty=allow_empty, judged=settings.judge.enabled,
                reports=reports, replaced=REPORT_FILES)
            _, output = validate_and_grade(suite, runs, out_dir, engine, options, console)
            assert console.setup is not None  # validate_and_grade sets the judges up
            gates = finish(output, suite_path=suite, judges=console.setup.summary(
                output.judge_items), gates=settings.gates, reports=reports)
            where = engine.describe()
            if where is not None and not quiet:
                err.print(where, markup=False)
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
