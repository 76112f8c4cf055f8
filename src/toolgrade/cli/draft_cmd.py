"""`toolgrade draft RUNS... --out SUITE`: a suite drafted from recorded runs, for review."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolgrade.cli.common import EXIT_OK, input_errors_exit, out


def draft(
    runs: Annotated[list[Path], typer.Argument(help="Run files or folders, any accepted format.")],
    out_file: Annotated[Path, typer.Option("--out", "-o", help="The suite to write (YAML).")],
    agent: Annotated[
        str | None, typer.Option(help="Draft from this agent's runs only (default: all runs).")
    ] = None,
    min_runs: Annotated[
        int, typer.Option("--min-runs", min=1, help="Leave out cases with fewer runs.")
    ] = 1,
    tools: Annotated[
        Path | None,
        typer.Option(help="Tool catalogue: a suite's `tools:` or an MCP tools list (JSON)."),
    ] = None,
    free_reads: Annotated[
        bool,
        typer.Option("--free-reads", help="Routes hold the writes only; reads are free calls."),
    ] = False,
    by_input: Annotated[
        bool,
        typer.Option("--by-input", help="One case per task input (the user's messages before the "
                     "first call), not per case id: for runs recorded with an id per run."),
    ] = False,
    guards: Annotated[
        bool,
        typer.Option(help="Order a check (verify_..., confirm_...) every run made before a write "
                     "ahead of it; --no-guards orders value flows and answers only."),
    ] = True,
) -> None:
    """Draft a suite from recorded runs: one case per case id (or task input); routes,
    arguments, orderings, faults and final states inferred from what the runs did, every
    inferred line marked `# review:` with the number of runs it came from (docs/draft.md).

    The suite is written only once it validates; exit 2 on bad input, nothing written.
    """
    from toolgrade.drafting.draft import DraftOptions, draft_suite, header, write_draft
    from toolgrade.scoring.tallies import coverage_line

    options = DraftOptions(agent=agent, min_runs=min_runs, tools=tools, free_reads=free_reads,
                           guards=guards, by_input=by_input)
    with input_errors_exit():
        drafted = draft_suite(runs, options)
        write_draft(drafted, out_file, header(drafted, runs, options))
    out.print(f"wrote {len(drafted.cases)} cases drafted from {drafted.runs} runs to "
              f"{out_file}; review every `# review:` line", markup=False)
    if drafted.skipped:
        out.print(f"left out {len(drafted.skipped)} case(s) with fewer than {min_runs} runs: "
                  + ", ".join(sorted(drafted.skipped)), markup=False)
    out.print(coverage_line(drafted.suite), markup=False)
    raise typer.Exit(EXIT_OK)
