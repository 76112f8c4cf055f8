"""`open_cache`: the verdict store the settings name, and the layered local-then-Redis store.

`[cache] backend`: `disk` is this machine's folder (`[judge] cache_dir`), `redis` is one server
shared by every machine, `layered` asks the local folder first and Redis on a local miss,
copying a shared hit into the folder, and writes every new verdict to both. Layered keeps a
machine's verdicts through a Redis outage and spares Redis the requests it answered before.
"""

from __future__ import annotations

import logging
import threading

from toolgrade.jsonio.values import JsonObject
from toolgrade.judging.cache import (
    CacheStorageError,
    VerdictCache,
    VerdictStore,
    default_cache_dir,
)
from toolgrade.judging.cache_redis import RedisVerdictCache
from toolgrade.settings import JudgeSettings

log = logging.getLogger(__name__)


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
