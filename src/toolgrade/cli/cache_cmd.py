"""`toolgrade cache stats|clear`: inspect or empty the judge verdict cache."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolgrade.cli.common import guarded

cache_app = typer.Typer(
    help="Inspect or clear the on-disk cache of judge verdicts.", no_args_is_help=True
)

CacheDirOption = Annotated[
    Path | None,
    typer.Option(
        "--cache-dir",
        help="Cache directory (default: $TOOLGRADE_CACHE_DIR, else ~/.cache/toolgrade/judge).",
        file_okay=False,
    ),
]


def _human(size: int) -> str:
    """A byte count for people: 1.5 MiB rather than 1572864."""
    units = ("B", "KiB", "MiB", "GiB")
    value, index = float(size), 0
    while value >= 1024 and index < len(units) - 1:
        value /= 1024
        index += 1
    return f"{size} B" if index == 0 else f"{value:.1f} {units[index]}"


@cache_app.command("stats")
def stats(cache_dir: CacheDirOption = None) -> None:
    """Show the number of cached verdicts, their size on disk and the directory."""
    from toolgrade.judging.cache import cache_stats, default_cache_dir

    info = guarded(lambda: cache_stats(cache_dir or default_cache_dir()))
    if info.exists:
        note = ""
    elif info.directory.is_dir():  # an empty folder: there, but no cache in it yet
        note = " (empty, no cache yet)"
    else:
        note = " (does not exist yet)"
    typer.echo(f"directory: {info.directory}{note}")
    typer.echo(f"entries:   {info.entries}")
    typer.echo(f"size:      {_human(info.size_bytes)} ({info.size_bytes} bytes)")


@cache_app.command("clear")
def clear(cache_dir: CacheDirOption = None) -> None:
    """Remove every cached verdict (the next run asks the judge models again)."""
    from toolgrade.judging.cache import clear_cache, default_cache_dir

    directory = cache_dir or default_cache_dir()
    removed = guarded(lambda: clear_cache(directory))
    typer.echo(f"removed {removed} cached verdict(s) from {directory}")
