"""`toolgrade import bfcl|tau-bench|tau2`: turn benchmark data into a toolgrade suite and runs.

Thin by design: it parses options, calls the importer and prints its summary. Malformed input
exits 2 with every problem as file:line: field: reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from toolgrade.errors import InputError

if TYPE_CHECKING:
    from toolgrade.importers import ImportSummary

import_app = typer.Typer(
    help="Import a public benchmark's references and model outputs as a suite.jsonl and "
    "runs.jsonl that `toolgrade run` grades with its four checks.",
    no_args_is_help=True,
)

OutOption = Annotated[Path, typer.Option("--out", help="Folder for suite.jsonl and runs.jsonl.")]


def _report(summary: ImportSummary) -> None:
    for line in summary.lines():
        typer.echo(line)


def _fail(exc: InputError) -> typer.Exit:
    for problem in exc.problems:
        typer.echo(str(problem), err=True)
    return typer.Exit(code=2)


@import_app.command("bfcl")
def bfcl_command(
    questions: Annotated[Path, typer.Argument(help="BFCL question file (JSON Lines).")],
    answers: Annotated[
        Path | None,
        typer.Argument(help="BFCL possible-answer file; may be left out for irrelevance."),
    ] = None,
    *,
    out: OutOption,
    results: Annotated[
        Path | None, typer.Option("--results", help="BFCL result file (model outputs).")
    ] = None,
    agent: Annotated[
        str | None, typer.Option("--agent", help="Agent name recorded on each run.")
    ] = None,
    model: Annotated[
        str | None,
        typer.Option("--model", help="BFCL model name whose handler decodes the results "
                     "[default: the results file's folder, as in result/<model>/]."),
    ] = None,
    lenient: Annotated[
        bool,
        typer.Option("--lenient", help="Read result texts with toolgrade's raw-text reader "
                     "(every known form) instead of the model's BFCL handler."),
    ] = False,
) -> None:
    """Import BFCL questions, possible answers and optionally a result file."""
    from toolgrade.importers import import_bfcl

    if model is not None and lenient:
        typer.echo("--model and --lenient contradict each other: choose one", err=True)
        raise typer.Exit(code=2)
    try:
        summary = import_bfcl(questions, answers, results, out, agent, model=model,
                              lenient=lenient)
    except InputError as exc:
        raise _fail(exc) from None
    _report(summary)


@import_app.command("tau-bench")
def tau_bench_command(
    tasks: Annotated[Path, typer.Argument(help="tau-bench tasks as a JSON array.")],
    *,
    out: OutOption,
    trajectories: Annotated[
        Path | None,
        typer.Option("--trajectories", help="tau-bench recorded runs (JSON array)."),
    ] = None,
    agent: Annotated[
        str, typer.Option("--agent", help="Agent name recorded on each run.")
    ] = "tau-bench",
    domain: Annotated[
        str | None,
        typer.Option(
            "--domain",
            help="tau-bench domain (default: inferred from the tasks' tool names). retail and "
            "airline have known write tools; any other name infers them from tool names. A "
            "domain the data contradicts is refused.",
        ),
    ] = None,
) -> None:
    """Import tau-bench tasks and optionally recorded trajectories."""
    from toolgrade.importers import import_tau_bench

    try:
        summary = import_tau_bench(tasks, trajectories, out, agent=agent, domain=domain)
    except InputError as exc:
        raise _fail(exc) from None
    _report(summary)


@import_app.command("tau2")
def tau2_command(
    results: Annotated[
        Path, typer.Argument(help="tau2-bench results file (tasks and simulations, JSON).")
    ],
    *,
    out: OutOption,
    agent: Annotated[
        str | None,
        typer.Option("--agent", help="Agent name recorded on each run (default: the file's "
                     "agent model)."),
    ] = None,
) -> None:
    """Import a tau2-bench results file: its tasks and its recorded simulations."""
    from toolgrade.importers import import_tau2

    try:
        summary = import_tau2(results, out, agent=agent)
    except InputError as exc:
        raise _fail(exc) from None
    _report(summary)
