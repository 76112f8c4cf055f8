"""`toolgrade mcp catalogue|record`: an MCP server's tools as a catalogue file, and an agent's
MCP session recorded as a run (docs/mcp.md). Thin: the work is in `toolgrade.mcp`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from toolgrade.cli.common import EXIT_OK, input_errors_exit, out

mcp_app = typer.Typer(
    help="MCP servers: write a server's catalogue (tools/list) for a suite's tools_from, and "
    "record an agent's MCP session as a run.",
    no_args_is_help=True,
)

#: Lets `-- CMD ARGS` through to the server command untouched.
_PASSTHROUGH = {"allow_extra_args": True, "ignore_unknown_options": True}
CommandArgument = Annotated[
    list[str] | None,
    typer.Argument(help="The server's command and arguments, after `--` (stdio)."),
]


@mcp_app.command("catalogue", context_settings=_PASSTHROUGH)
def catalogue(
    command: CommandArgument = None,
    *,
    out_file: Annotated[Path, typer.Option("--out", "-o", help="The catalogue file to write.")],
    url: Annotated[
        str | None, typer.Option("--url", help="A streamable HTTP server instead of a command.")
    ] = None,
    timeout: Annotated[
        float, typer.Option(help="Seconds to wait for initialize and tools/list.")
    ] = 30.0,
) -> None:
    """Connect to an MCP server (`-- CMD [ARGS...]` over stdio, or `--url URL`), list its tools
    (every page) and write them with the server's name and version and content hashes."""
    from toolgrade.mcp.catalogue import fetch_catalogue

    with input_errors_exit():
        document = fetch_catalogue(command, url, timeout)
    out_file.parent.mkdir(parents=True, exist_ok=True)
    out_file.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n",
                        encoding="utf-8")
    out.print(f"{len(document['tools'])} tools of {document['server']['name']} "
              f"{document['server']['version']} written to {out_file} ({document['hash']})",
              markup=False)
    raise typer.Exit(EXIT_OK)


@mcp_app.command("record", context_settings=_PASSTHROUGH)
def record(
    command: CommandArgument = None,
    *,
    out_file: Annotated[Path, typer.Option("--out", "-o", help="The runs file to append to.")],
    case: Annotated[str, typer.Option("--case", help="The case id the session is a run of.")],
    agent: Annotated[str | None, typer.Option("--agent", help="The agent's name.")] = None,
    trial: Annotated[
        int | None,
        typer.Option(help="The trial number (default: the runs of this case and agent so far)."),
    ] = None,
) -> None:
    """Run an MCP server (`-- CMD [ARGS...]`) behind a stdio proxy: the agent launches this
    instead of the server; every message is forwarded unchanged, and the session's calls,
    results and catalogue are appended to --out as one run line when it ends."""
    from toolgrade.mcp.proxy import RecordTarget, run_proxy

    if not case:
        from toolgrade.cli.common import fail

        fail("toolgrade: --case must name a case")
    with input_errors_exit():
        run_proxy(command or [], RecordTarget(out_file, case, agent, trial))  # exits itself
