"""The `[cache]` settings table: where judge verdicts are cached (this machine, or a Redis
shared by many).

    [cache]
    backend = "layered"                   # "disk" (default), "redis", or "layered"
    url = "redis://127.0.0.1:6379/0"      # redis and layered
    prefix = "toolgrade:verdict:"         # namespace of the keys in Redis
    ttl_s = 604800                        # optional: entries expire after a week

The local folder stays `[judge] cache_dir` (`--cache-dir`) and `[judge] use_cache = false`
(`--no-cache`) still turns every backend off. A URL that is not a Redis URL is a configuration
error (exit 2) when the settings are read; a Redis that cannot be reached is not: the run goes on
without the shared cache, warned once (see `toolgrade.judging.cache_shared`).
"""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictFloat,
    StrictInt,
    field_validator,
    model_validator,
)

#: The Redis URL schemes redis-py accepts (TCP, TLS, a Unix socket).
REDIS_SCHEMES = ("redis", "rediss", "unix")

#: What prefixes every key toolgrade writes in Redis unless `[cache] prefix` says.
DEFAULT_PREFIX = "toolgrade:verdict:"

CacheBackend = Literal["disk", "redis", "layered"]


def redis_url_problem(url: str) -> str | None:
    """Why `url` is not a usable Redis URL, or None when it is (checked without connecting)."""
    expected = "expected redis://HOST[:PORT][/DB], rediss://... or unix:///PATH"
    try:
        parts = urlsplit(url)
        _ = parts.port  # parsed lazily: a bad port raises here
    except ValueError as exc:
        return f"not a Redis URL ({exc}); {expected}"
    if parts.scheme not in REDIS_SCHEMES:
        return f"not a Redis URL (scheme {parts.scheme or 'missing'!r}); {expected}"
    if parts.scheme == "unix":
        return None if parts.path else f"not a Redis URL (no socket path); {expected}"
    if not parts.hostname:
        return f"not a Redis URL (no host); {expected}"
    database = parts.path.strip("/")
    if database and not database.isdigit():
        return f"not a Redis URL (database {database!r} is not a number); {expected}"
    return None


def masked_url(url: str) -> str:
    """`url` with any password replaced by `***`, for messages and `toolgrade cache stats`."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "(unparseable URL)"
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=f"{user}:***@{host}").geturl()


class CacheSettings(BaseModel):
    """Which store keeps judge verdicts: `disk` (this machine's diskcache folder), `redis` (one
    server shared by every machine), or `layered` (the local folder first, then Redis)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    backend: CacheBackend = "disk"
    url: str | None = Field(
        default=None, description="The Redis server (backends redis and layered)."
    )
    prefix: str = Field(
        default=DEFAULT_PREFIX, min_length=1,
        description="Namespace of the keys in Redis: `toolgrade cache clear` removes only these.",
    )
    ttl_s: StrictInt | None = Field(
        default=None, ge=1, description="Seconds an entry lives (unset: until cleared)."
    )
    timeout_s: StrictFloat = Field(
        default=2.0, gt=0.0, allow_inf_nan=False,
        description="Redis connect and reply timeout; past it the call counts as an outage.",
    )
    retry_s: StrictFloat = Field(
        default=30.0, ge=0.0, allow_inf_nan=False,
        description="After an outage, Redis is left alone this long before it is tried again.",
    )

    @field_validator("url")
    @classmethod
    def _a_redis_url(cls, url: str | None) -> str | None:
        problem = redis_url_problem(url) if url is not None else None
        if url is not None and problem is not None:
            raise ValueError(f"{masked_url(url)!r}: {problem}")
        return url

    @model_validator(mode="after")
    def _url_fits_backend(self) -> CacheSettings:
        if self.backend != "disk" and self.url is None:
            raise ValueError(f'backend "{self.backend}" needs url = "redis://HOST:PORT/DB"')
        return self

    @property
    def shared(self) -> bool:
        """True when verdicts go to Redis (backends redis and layered)."""
        return self.backend != "disk"

    @property
    def local(self) -> bool:
        """True when verdicts go to the local folder (backends disk and layered)."""
        return self.backend != "redis"
