"""`toolgrade cache stats|clear`: inspect or empty the judge verdict cache, on either backend.

The backend, the Redis URL and the folder come from the settings file's `[cache]` table and
`[judge] cache_dir` (as for `run`), overridden by the options; `layered` shows or clears both.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from toolgrade.cli.cache_options import CacheBackendOption, CacheUrlOption, with_cache_options
from toolgrade.cli.common import guarded

if TYPE_CHECKING:
    from toolgrade.settings import JudgeSettings

cache_app = typer.Typer(
    help="Inspect or clear the cache of judge verdicts (local folder or Redis).",
    no_args_is_help=True,
)

CacheDirOption = Annotated[
    Path | None,
    typer.Option(
        "--cache-dir",
        help="Cache directory (default: [judge] cache_dir, else $TOOLGRADE_CACHE_DIR, else "
        "~/.cache/toolgrade/judge).",
        file_okay=False,
    ),
]
PrefixOption = Annotated[
    str | None,
    typer.Option("--prefix", help="Redis key namespace (default: [cache] prefix)."),
]
ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", help="Settings file (TOML); default as for `toolgrade run`."),
]


def _human(size: int) -> str:
    """A byte count for people: 1.5 MiB rather than 1572864."""
    units = ("B", "KiB", "MiB", "GiB")
    value, index = float(size), 0
    while value >= 1024 and index < len(units) - 1:
        value /= 1024
        index += 1
    return f"{size} B" if index == 0 else f"{value:.1f} {units[index]}"


def _settings(
    config: Path | None,
    cache_dir: Path | None,
    backend: str | None,
    url: str | None,
    prefix: str | None,
) -> JudgeSettings:
    """The judge settings naming the cache: the file's, with the options applied."""
    from toolgrade.settings import load_settings

    judge = load_settings(config).judge
    if cache_dir is not None:
        judge = judge.model_copy(update={"cache_dir": cache_dir})
    return with_cache_options(judge, backend, url, prefix)


def _folder(judge: JudgeSettings) -> Path:
    from toolgrade.judging.cache import default_cache_dir

    return judge.cache_dir or default_cache_dir()


def _show_folder(judge: JudgeSettings) -> None:
    from toolgrade.judging.cache import cache_stats

    info = guarded(lambda: cache_stats(_folder(judge)))
    if info.exists:
        note = ""
    elif info.directory.is_dir():  # an empty folder: there, but no cache in it yet
        note = " (empty, no cache yet)"
    else:
        note = " (does not exist yet)"
    typer.echo(f"directory: {info.directory}{note}")
    typer.echo(f"entries:   {info.entries}")
    typer.echo(f"size:      {_human(info.size_bytes)} ({info.size_bytes} bytes)")


def _show_redis(judge: JudgeSettings) -> None:
    from toolgrade.judging.cache_shared import redis_stats

    info = guarded(lambda: redis_stats(judge.cache))
    typer.echo(f"redis:     {info.url} (prefix {info.prefix})")
    typer.echo(f"entries:   {info.entries}")
    typer.echo(f"size:      {_human(info.size_bytes)} ({info.size_bytes} bytes)")


@cache_app.command("stats")
def stats(
    cache_dir: CacheDirOption = None,
    backend: CacheBackendOption = None,
    url: CacheUrlOption = None,
    prefix: PrefixOption = None,
    config: ConfigOption = None,
) -> None:
    """Show the number of cached verdicts and their size, in the folder and/or on Redis."""
    judge = guarded(lambda: _settings(config, cache_dir, backend, url, prefix))
    if judge.cache.local:
        _show_folder(judge)
    if judge.cache.shared:
        _show_redis(judge)


@cache_app.command("clear")
def clear(
    cache_dir: CacheDirOption = None,
    backend: CacheBackendOption = None,
    url: CacheUrlOption = None,
    prefix: PrefixOption = None,
    config: ConfigOption = None,
) -> None:
    """Remove every cached verdict (the next run asks the judge models again). On Redis only
    the keys under the prefix are removed."""
    from toolgrade.judging.cache import clear_cache
    from toolgrade.judging.cache_shared import clear_redis
    from toolgrade.settings.cache import masked_url

    judge = guarded(lambda: _settings(config, cache_dir, backend, url, prefix))
    if judge.cache.local:
        directory = _folder(judge)
        removed = guarded(lambda: clear_cache(directory))
        typer.echo(f"removed {removed} cached verdict(s) from {directory}")
    if judge.cache.shared:
        removed = guarded(lambda: clear_redis(judge.cache))
        where = f"{masked_url(str(judge.cache.url))} (prefix {judge.cache.prefix})"
        typer.echo(f"removed {removed} cached verdict(s) from {where}")
