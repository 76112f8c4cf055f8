"""The verdict store the settings name (`open_cache`): the disk folder, Redis, or both layered.

`[cache] backend`: `disk` is this machine's folder (`[judge] cache_dir`, `judging.cache`),
`redis` is one server shared by every machine, `layered` asks the local folder first and Redis
on a local miss, copying a shared hit into the folder, and writes every new verdict to both.
Layered keeps a machine's verdicts through a Redis outage and spares Redis the requests it
answered before.

The shared cache on Redis holds the disk cache's keys and JSON records, under a prefix.

The key is `prefix + cache_key(...)`, the same sha256 every machine computes for the same judge
request, so a verdict one machine paid for is a hit on every other machine using the server.

An outage (connection refused, a timeout, the server killed mid-run, an error reply) never stops
grading and never loses a verdict: the call is a miss, or the entry is not written, and the run
goes on without the shared cache. It is warned once per process and server. A server that cannot
be reached is then left alone for `[cache] retry_s` before it is tried again, so a dead server
costs one timeout per interval, not one per request; one that answers with an error (out of
memory, read-only) costs only that call.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

from toolgrade.errors import CacheStorageError, ConfigError, ToolgradeError
from toolgrade.jsonio.values import JsonObject
from toolgrade.judging.cache import (
    VerdictCache,
    VerdictStore,
    canonical_json,
    decode_record,
    default_cache_dir,
)
from toolgrade.settings import JudgeSettings
from toolgrade.settings.cache import CacheSettings, masked_url

if TYPE_CHECKING:
    import redis

log = logging.getLogger(__name__)

#: Keys fetched or removed per round trip by `toolgrade cache stats|clear`.
_BATCH = 500

_warned: set[str] = set()
_warned_lock = threading.Lock()


def forget_outages() -> None:
    """Forget which servers were warned about, so the next outage is warned again (tests, and
    long-lived processes that want a fresh warning per run)."""
    with _warned_lock:
        _warned.clear()


def _warn_outage(url: str, exc: BaseException) -> None:
    """One warning per process and server: an outage fails every request the same way."""
    with _warned_lock:
        if url in _warned:
            return
        _warned.add(url)
    log.warning(
        "judge cache %s: Redis unavailable (%s: %s); grading goes on without the shared cache "
        "and every verdict is kept (further Redis failures are not reported)",
        masked_url(url), type(exc).__name__, exc,
    )


def _redis() -> ModuleType:
    """The redis client package; a ConfigError saying how to install it when missing."""
    try:
        import redis as module
    except ImportError as exc:
        raise ConfigError(
            "[cache] backend redis or layered needs the Redis client: "
            "pip install 'toolgrade[redis]'"
        ) from exc
    return module


def connect(settings: CacheSettings) -> redis.Redis:
    """A client for `settings.url` (no connection is made yet); ConfigError for a bad URL."""
    module = _redis()
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    if settings.url is None:
        raise ConfigError(f'[cache] backend "{settings.backend}" needs a url')
    try:
        client: redis.Redis = module.Redis.from_url(
            settings.url,
            socket_timeout=settings.timeout_s,
            socket_connect_timeout=settings.timeout_s,
            # No client-side retries: an outage is handled once, here, not per retry.
            retry=Retry(NoBackoff(), 0),
        )
    except ValueError as exc:
        raise ConfigError(f"[cache] url {masked_url(settings.url)}: {exc}") from exc
    return client


def outage_errors() -> tuple[type[BaseException], ...]:
    """What a failing server raises: every redis-py error, and socket errors it let through."""
    return (_redis().exceptions.RedisError, OSError)


class RedisVerdictCache:
    """A `VerdictStore` on one Redis server; never raises for an outage (see the module)."""

    def __init__(
        self, settings: CacheSettings, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._client = connect(settings)
        self.url = str(settings.url)
        self._prefix = settings.prefix
        self._ttl_s = settings.ttl_s
        self._retry_s = settings.retry_s
        self._clock = clock
        self._errors = outage_errors()
        self._refusals = _redis().exceptions.ResponseError
        self._resting_until = 0.0
        # Said now, before grading, when the server is not there at all.
        self._call(self._client.ping)

    @property
    def available(self) -> bool:
        """False while the server is left alone after an outage."""
        return self._clock() >= self._resting_until

    def get(self, key: str) -> JsonObject | None:
        """The stored record; None for a miss, a corrupt entry or an outage."""
        return decode_record(self._call(self._client.get, self._prefix + key))

    def set(self, key: str, record: JsonObject) -> None:
        """Store a record (JSON text, as on disk), expiring after `ttl_s` when set."""
        self._call(self._client.set, self._prefix + key, canonical_json(record), ex=self._ttl_s)

    def close(self) -> None:
        """Release the connections."""
        self._client.close()

    def _call(self, method: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """`method(...)`, or None when the server is resting or fails (which starts a rest)."""
        if not self.available:
            return None
        try:
            return method(*args, **kwargs)
        except self._refusals as exc:
            # The server answered (out of memory, a read-only replica, a foreign key's type):
            # this call is lost, the connection is fine, so no rest.
            _warn_outage(self.url, exc)
            return None
        except self._errors as exc:
            self._resting_until = self._clock() + self._retry_s
            _warn_outage(self.url, exc)
            return None


@dataclass(frozen=True)
class RedisStats:
    """What `toolgrade cache stats` shows for a Redis backend."""

    url: str
    prefix: str
    entries: int
    size_bytes: int


def _pattern(prefix: str) -> str:
    """A SCAN pattern matching exactly the keys under `prefix` (glob characters escaped)."""
    escaped = "".join(f"\\{c}" if c in "*?[]\\" else c for c in prefix)
    return escaped + "*"


def _batches(client: redis.Redis, prefix: str) -> Iterator[list[Any]]:
    batch: list[Any] = []
    for key in client.scan_iter(match=_pattern(prefix), count=_BATCH):
        batch.append(key)
        if len(batch) == _BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def _unreachable(settings: CacheSettings, exc: BaseException) -> ToolgradeError:
    # Not a ConfigError: the settings may be right and the server down (still exit 2).
    return ToolgradeError(
        f"judge cache {masked_url(str(settings.url))}: Redis cannot be reached "
        f"({type(exc).__name__}: {exc})"
    )


def redis_stats(settings: CacheSettings) -> RedisStats:
    """Entries under the prefix and their stored size; ToolgradeError when the server is down."""
    client = connect(settings)
    entries = size = 0
    try:
        for batch in _batches(client, settings.prefix):
            pipe = client.pipeline(transaction=False)
            for key in batch:
                pipe.strlen(key)
            # A foreign key of another type under the prefix answers an error: not counted.
            lengths = pipe.execute(raise_on_error=False)
            size += sum(n for n in lengths if isinstance(n, int))
            entries += len(batch)
    except outage_errors() as exc:
        raise _unreachable(settings, exc) from exc
    finally:
        client.close()
    return RedisStats(masked_url(str(settings.url)), settings.prefix, entries, size)


def clear_redis(settings: CacheSettings) -> int:
    """Remove every entry under the prefix (nothing else on the server); the number removed."""
    client = connect(settings)
    removed = 0
    try:
        for batch in _batches(client, settings.prefix):
            removed += int(client.unlink(*batch))
    except outage_errors() as exc:
        raise _unreachable(settings, exc) from exc
    finally:
        client.close()
    return removed




class LayeredCache:
    """The local folder first, then the shared server (see the module). Never raises: a local
    folder that fails is warned once and skipped, the server handles its own outages."""

    def __init__(self, local: VerdictCache, shared: RedisVerdictCache) -> None:
        self.local = local
        self.shared = shared
        self._warned = False
        self._lock = threading.Lock()

    def get(self, key: str) -> JsonObject | None:
        """The local record, else the shared one (then kept locally too), else None."""
        try:
            record = self.local.get(key)
        except CacheStorageError as exc:
            self._warn(exc)
            record = None
        if record is not None:
            return record
        record = self.shared.get(key)
        if record is not None:
            self._set_local(key, record)
        return record

    def set(self, key: str, record: JsonObject) -> None:
        """Store in both layers."""
        self._set_local(key, record)
        self.shared.set(key, record)

    def close(self) -> None:
        """Close both layers."""
        self.local.close()
        self.shared.close()

    def _set_local(self, key: str, record: JsonObject) -> None:
        try:
            self.local.set(key, record)
        except CacheStorageError as exc:
            self._warn(exc)

    def _warn(self, exc: CacheStorageError) -> None:
        with self._lock:
            if self._warned:
                return
            self._warned = True
        log.warning(
            "%s; verdicts go on to the shared cache only (further local cache failures are "
            "not reported; use another --cache-dir)",
            exc,
        )


def open_cache(settings: JudgeSettings) -> VerdictStore | None:
    """The store `settings` name, or None when `use_cache` is off. A local folder that cannot
    be opened or a malformed Redis URL is a ConfigError; an unreachable server is not."""
    if not settings.use_cache:
        return None
    cache = settings.cache
    local = None
    if cache.local:
        local = VerdictCache(settings.cache_dir or default_cache_dir(), ttl_s=cache.ttl_s)
    if not cache.shared:
        return local
    try:
        shared = RedisVerdictCache(cache)
    except BaseException:
        if local is not None:
            local.close()
        raise
    return LayeredCache(local, shared) if local is not None else shared
