"""The cache backend options `run`, `calibrate` and `cache` share: `--cache-backend`, `--cache-url`.

They override the settings file's `[cache]` table; the result is validated as the table is, so a
malformed URL on the command line is the same configuration error (exit 2) as in the file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

import typer

from toolgrade.errors import ConfigError

if TYPE_CHECKING:  # the settings import the models: not at `--help` time
    from toolgrade.settings import JudgeSettings

CacheBackendOption = Annotated[
    # Spelled out, not imported from settings.cache: that would load pydantic at `--help` time.
    Literal["disk", "redis", "layered"] | None,
    typer.Option(
        "--cache-backend",
        help="Verdict cache: disk (this machine's folder), redis (shared), or layered (the "
        "folder, then Redis). Default: [cache] backend, else disk.",
    ),
]
CacheUrlOption = Annotated[
    str | None,
    typer.Option(
        "--cache-url",
        help="Redis server of the redis and layered backends, e.g. redis://127.0.0.1:6379/0 "
        "(default: [cache] url).",
    ),
]


def with_cache_options(
    judge: JudgeSettings, backend: str | None, url: str | None, prefix: str | None = None
) -> JudgeSettings:
    """`judge` with the command line's cache options applied (None: as the settings say)."""
    from pydantic import ValidationError

    from toolgrade.settings.cache import CacheSettings

    changes: dict[str, str] = {
        name: value
        for name, value in (("backend", backend), ("url", url), ("prefix", prefix))
        if value is not None
    }
    if not changes:
        return judge
    try:
        cache = CacheSettings.model_validate({**judge.cache.model_dump(), **changes})
    except ValidationError as exc:
        problems = "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in exc.errors())
        raise ConfigError(f"cache options: {problems}") from exc
    return judge.model_copy(update={"cache": cache})
