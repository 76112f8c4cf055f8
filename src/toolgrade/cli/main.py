"""The `toolgrade` command line: a thin layer that builds settings, judges and the runner.

Each command imports what it needs inside its own body, not at the top of its module: typer
needs only the signatures to print `--help` or dispatch, and a command should not pay for the
suite loader, the checks, the judges or the reports of the others (`tests/cli/test_startup.py`
guards this).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from toolgrade.cli.adjudicate_cmd import adjudicate
from toolgrade.cli.cache_cmd import cache_app
from toolgrade.cli.calibrate_cmd import calibrate
from toolgrade.cli.common import (
    ALLOW_EMPTY_HELP,
    CASE_ATTRIBUTE_HELP,
    DEFAULT_OUT,
    EXIT_GATE,
    EXIT_OK,
    input_errors_exit,
    out,
    refuse_together,
)
from toolgrade.cli.compare_cmd import compare
from toolgrade.cli.draft_cmd import draft
from toolgrade.cli.help_format import FlagsWithoutTypeGroup
from toolgrade.cli.import_cmd import import_app
from toolgrade.cli.mcp_cmd import mcp_app
from toolgrade.cli.report_cmd import report
from toolgrade.cli.run_cmd import run
from toolgrade.cli.show_cmd import show
from toolgrade.cli.view_cmd import view
from toolgrade.vocabulary import CASE_ATTRIBUTE

if TYPE_CHECKING:
    from toolgrade.jsonio.values import JsonObject

app = typer.Typer(
    name="toolgrade",
    cls=FlagsWithoutTypeGroup,
    help="Score an AI agent's tool calls against a structured reference: selection, arguments, "
    "ordering and recovery, each with its own score.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

def _print_version(value: bool) -> None:
    if value:
        import toolgrade

        typer.echo(f"toolgrade {toolgrade.__version__}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True,
                     help="Print the version and exit."),
    ] = False,
) -> None:
    """Score an AI agent's tool calls against a structured reference: selection, arguments,
    ordering and recovery, each with its own score."""


app.command("run")(run)
app.command("report")(report)
app.command("show")(show)
app.command("view")(view)
app.command("calibrate")(calibrate)
app.command("adjudicate")(adjudicate)
app.command("compare")(compare)
app.command("draft")(draft)
app.add_typer(import_app, name="import")
app.add_typer(cache_app, name="cache")
app.add_typer(mcp_app, name="mcp")


@app.command()
def validate(
    suite: Annotated[Path, typer.Argument(help="Suite: YAML, JSONL, or a folder of them.")],
    runs: Annotated[list[Path] | None, typer.Argument(help="Run files or folders (JSONL).")] = None,
    out_dir: Annotated[
        Path,
        typer.Option(
            "--out", "-o",
            help="run's output folder (validate writes nothing): left out when it is inside a "
            "runs folder, as run leaves it out, so a previous run's results are not read as runs.",
        ),
    ] = DEFAULT_OUT,
    config: Annotated[Path | None, typer.Option(help="Settings file (TOML).")] = None,
    case_attribute: Annotated[str, typer.Option(help=CASE_ATTRIBUTE_HELP)] = CASE_ATTRIBUTE,
    allow_empty: Annotated[bool, typer.Option("--allow-empty", help=ALLOW_EMPTY_HELP)] = False,
) -> None:
    """Validate a suite (and runs) only: each problem as file:line: field: reason; exit 2 if any.

    A runs folder is read as `toolgrade run` reads it, leaving out the `--out` folder in it, so
    a previous run's results.jsonl is not taken for runs. The settings (toolgrade.toml, or
    --config) are read as by run, so a misspelt gate is refused here too; no model is called.
    """
    from toolgrade.errors import InputError
    from toolgrade.loaders import load_suite
    from toolgrade.loaders.adjudications import adjudications_path, load_decisions
    from toolgrade.scoring.gates import validate_gate_names
    from toolgrade.settings import load_settings

    with input_errors_exit():
        validate_gate_names(load_settings(config).gates)
        if runs:
            # The runner and the run readers only when there are runs to read.
            from toolgrade.loaders.otlp import OtlpOptions
            from toolgrade.loaders.runs import duplicate_key_problems
            from toolgrade.scoring.runner import require_runs, validate_inputs

            otlp = OtlpOptions(case_attribute=case_attribute)
            inputs = validate_inputs(suite, runs, exclude=out_dir, otlp=otlp)
            duplicates = duplicate_key_problems(inputs.files)
            if duplicates:  # `run` reads the last value, as JSON readers do: see the loader
                raise InputError(duplicates)
            if not allow_empty:
                require_runs(inputs)
            loaded = inputs.suite
            out.print(
                f"ok: {len(inputs.suite)} cases, {inputs.n_runs} runs in "
                f"{len(inputs.files)} file(s)"
            )
            if inputs.otlp_stats is not None:
                out.print(inputs.otlp_stats.describe(), markup=False)
            called = inputs.called_tools
        else:
            loaded = load_suite(suite)
            # The people's decisions beside the suite are read with it by `run`: check them too.
            _, problems = load_decisions(adjudications_path(suite), loaded.cases)
            if problems:
                raise InputError(problems)
            out.print(f"ok: {len(loaded)} cases")
            called = None
        from toolgrade.scoring.tallies import coverage_line, coverage_lines

        out.print(coverage_line(loaded.cases.values()))

        for line in coverage_lines(loaded.cases.values(), called):
            out.print(line, markup=False)
    raise typer.Exit(EXIT_OK)


def suite_schema() -> JsonObject:
    """The JSON Schema of a YAML suite file: `cases` (each a case), the shared `tools` and
    `groups` merged into every case, and the `defaults` filled into them."""
    from toolgrade.loaders.catalogue import ToolsFrom
    from toolgrade.loaders.suite_defaults import SuiteDefaults
    from toolgrade.models import Case

    case = Case.model_json_schema()
    definitions = case.pop("$defs", {})
    defaults = SuiteDefaults.model_json_schema(ref_template="#/$defs/{model}")
    definitions.update(defaults.pop("$defs", {}))
    groups = definitions["OrderingExpectation"]["properties"]["groups"]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "toolgrade suite",
        "type": "object",
        "additionalProperties": False,
        "required": ["cases"],
        "properties": {
            "cases": {"type": "array", "items": {"$ref": "#/$defs/Case"}},
            "tools": {
                "type": "object",
                "additionalProperties": {"$ref": "#/$defs/ToolSpec"},
                "description": "A catalogue shared by every case (a case's own entries win).",
            },
            "groups": {
                **groups,
                "description": "Ordering groups shared by every case (a case's own entries win).",
            },
            "defaults": {
                **defaults,
                "description": "Keys filled into every case that leaves them out.",
            },
            "tools_from": {
                "anyOf": [{"type": "string"}, ToolsFrom.model_json_schema()],
                "description": "An MCP catalogue file whose tools every case takes "
                "(docs/mcp.md); the suite's own `tools` entries win.",
            },
        },
        "$defs": {**definitions, "Case": case},
    }


@app.command()
def schema(
    suite: Annotated[
        bool,
        typer.Option(
            "--suite", help="The schema of a YAML suite file (cases, shared tools and groups)."
        ),
    ] = False,
    summary: Annotated[
        bool, typer.Option("--summary", help="The schema of a run's summary.json instead.")
    ] = False,
    results: Annotated[
        bool, typer.Option("--results", help="The schema of one results.jsonl line instead.")
    ] = False,
    compare: Annotated[
        bool, typer.Option("--compare", help="The schema of compare.json instead.")
    ] = False,
) -> None:
    """Print the JSON Schema of the case format (for editor autocompletion).

    A YAML suite file (`cases:` at the top) needs `--suite`; without it the schema is of one
    case, as in a JSONL suite line. `--summary` prints the schema of `summary.json`,
    `--results` that of one `results.jsonl` line, `--compare` that of `compare.json`.
    """
    from toolgrade.models import Case

    with input_errors_exit():
        refuse_together(suite=suite, summary=summary, results=results, compare=compare)
    if compare:
        from toolgrade.comparison.model import compare_schema

        document = compare_schema()
    elif results:
        from toolgrade.checks.registry import entries
        from toolgrade.models.result_line import results_schema

        document = results_schema({entry.name: entry.line_model for entry in entries()})
    elif summary:
        from toolgrade.models.summary import SUMMARY_SCHEMA_VERSION, RunSummary

        document = RunSummary.model_json_schema()
        document["title"] = f"toolgrade summary.json (shape version {SUMMARY_SCHEMA_VERSION})"
    elif suite:
        document = suite_schema()
    else:
        document = Case.model_json_schema()
        document["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        document["title"] = "toolgrade case"
    typer.echo(json.dumps(document, indent=2))


def main() -> None:  # pragma: no cover - console entry point
    """Entry point for `python -m toolgrade`."""
    app()


__all__ = ["EXIT_GATE", "app", "main"]
