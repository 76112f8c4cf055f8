"""`toolgrade report DIR`: re-render the reports of a finished run without re-grading."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolgrade.cli.common import EXIT_OK, input_errors_exit, out


def report(
    out_dir: Annotated[Path, typer.Argument(help="A `toolgrade run --out` folder.")],
) -> None:
    """Re-write report.md, report.html and junit.xml from DIR's results.jsonl and summary.json.

    Nothing is graded and no judge is called. Exit 2 when DIR lacks those files.
    """
    from toolgrade.reporting.files import rerender

    with input_errors_exit():
        written = rerender(out_dir)
    out.print("wrote " + ", ".join(str(p) for p in written), markup=False)
    raise typer.Exit(EXIT_OK)
