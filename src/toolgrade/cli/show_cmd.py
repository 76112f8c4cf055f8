"""`toolgrade show RESULTS_DIR CASE`: a graded run's transcript with its failures, in the shell."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolgrade.cli.common import EXIT_OK, input_errors_exit, out


def show(
    out_dir: Annotated[Path, typer.Argument(help="A `toolgrade run --out` folder.")],
    case_id: Annotated[str, typer.Argument(metavar="CASE", help="The case id.")],
    agent: Annotated[str | None, typer.Option(help="Only this agent's runs.")] = None,
    trial: Annotated[int | None, typer.Option(help="Only this trial.")] = None,
) -> None:
    """Print each graded run of CASE step by step, with the failures pinned to the steps.

    The same view as the runs section of report.html. Exit 2 when DIR holds no such run or
    no transcripts.jsonl (a folder written before transcripts were kept).
    """
    from toolgrade.reporting.terminal_run import find_run_views, print_run_view

    with input_errors_exit():
        views = find_run_views(out_dir, case_id, agent, trial)
    for number, view in enumerate(views):
        if number:
            out.print()
        print_run_view(out, view)
    raise typer.Exit(EXIT_OK)
