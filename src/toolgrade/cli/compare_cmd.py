"""`toolgrade compare BASE NEW`: a new grading against a base, with paired statistics."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolgrade.cli.common import EXIT_GATE, EXIT_OK, err, fail, input_errors_exit, out

MAX_DROP_HELP = (
    "FIGURE=X: fail (exit 1) when FIGURE (aggregate.pass_rate, selection.pass_rate, ...) drops "
    "by more than X and the 95% interval of the change excludes 0. Repeatable."
)


def compare(
    base: Annotated[Path, typer.Argument(help="The base grading's output folder.")],
    new: Annotated[Path, typer.Argument(help="The new grading's output folder.")],
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Where compare.json, .md and .html go (default NEW)."),
    ] = None,
    max_drop: Annotated[list[str] | None, typer.Option("--max-drop", help=MAX_DROP_HELP)] = None,
    seed: Annotated[int, typer.Option(help="The bootstrap's seed.")] = 0,
) -> None:
    """Compare two gradings case by case: pass rates, the change with a paired-bootstrap 95%
    interval, an exact McNemar test on the cases that flipped, failures that appeared.

    Exit 0 when every --max-drop gate holds, 1 when one fails, 2 when a folder is unreadable.
    """
    from toolgrade.comparison.compare import Settings, compare_gradings, parse_max_drops
    from toolgrade.comparison.folders import read_grading
    from toolgrade.comparison.render import summary_lines, write_comparison

    try:
        drops = parse_max_drops(max_drop or [])
    except ValueError as exc:
        fail(f"toolgrade: {exc}")
    with input_errors_exit():
        gradings = read_grading(base), read_grading(new)
    comparison = compare_gradings(*gradings, Settings(seed=seed, max_drops=drops))
    for line in summary_lines(comparison):
        out.print(line, markup=False)
    written = write_comparison(comparison, out_dir or new)
    out.print("wrote " + ", ".join(str(p) for p in written), markup=False)
    for gate in comparison.gates:
        (out if gate.passed else err).print(gate.message(), markup=False)
    raise typer.Exit(EXIT_OK if all(g.passed for g in comparison.gates) else EXIT_GATE)
