"""`toolgrade view DIR`: browse an output folder's runs in a local web viewer until Ctrl-C."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolgrade.cli.common import EXIT_OK, fail, input_errors_exit, out


def view(
    out_dir: Annotated[Path, typer.Argument(metavar="DIR", help="A `toolgrade run --out` folder.")],
    port: Annotated[int, typer.Option(min=0, max=65535,
                                      help="Port on 127.0.0.1 (0: a free one).")] = 0,
    no_browser: Annotated[bool, typer.Option("--no-browser",
                                             help="Print the address only.")] = False,
) -> None:
    """Serve DIR's runs on 127.0.0.1: a list with paging, search and filters, and each run's
    transcript with its failures pinned to the steps; until Ctrl-C.

    Reads DIR/results.jsonl once (a line that is not a record is left out and named on the
    list page) and each run's transcript from DIR/transcripts.jsonl when it is opened.
    Exit 2 when DIR has no results.jsonl or the port is taken.
    """
    from toolgrade.reporting.viewer.index import build_index
    from toolgrade.reporting.viewer.server import make_server

    with input_errors_exit():
        index = build_index(out_dir)
    try:
        server = make_server(index, port)
    except OSError as exc:
        fail(f"toolgrade: cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}")
    index.warm()
    unread = f", {len(index.problems)} unreadable line(s)" if index.problems else ""
    out.print(f"toolgrade view: {index.runs:,} runs indexed in {index.seconds:.2f} s{unread}",
              markup=False)
    out.print(f"serving {out_dir} at {server.url} (Ctrl-C to stop)", markup=False)
    if not no_browser:
        import webbrowser

        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        out.print("stopped", markup=False)
    finally:
        server.server_close()
    raise typer.Exit(EXIT_OK)
