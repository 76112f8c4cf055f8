"""The on-disk verdict cache (diskcache), its key, and the `toolgrade cache` operations.

Key: sha256 over the canonical JSON of (model, sampling parameters, answer mode, dimension,
template hash, the request's inputs). The rendered messages are a pure function of the template
and the inputs except for the per-call random delimiter token, so this key is the same as keying
on the rendered messages with the delimiter normalised, while staying stable across runs.

Only scored verdicts (pass/fail) are stored: errors and unscored replies are asked again next run.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NotRequired, Protocol, TypedDict

import diskcache

from toolgrade.errors import CacheStorageError, ConfigError
from toolgrade.jsonio.values import JsonObject

#: Bumped when the cached value's shape or the key's ingredients change.
CACHE_VERSION = 1


def default_cache_dir() -> Path:
    """`$TOOLGRADE_CACHE_DIR`, else `$XDG_CACHE_HOME/toolgrade/judge`, else `~/.cache/...`."""
    explicit = os.environ.get("TOOLGRADE_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "toolgrade" / "judge"


def canonical_json(value: Any) -> str:
    """Deterministic JSON: sorted keys, no whitespace, non-JSON values as strings."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


class Sampling(TypedDict):
    """The sampling parameters that shape a reply (and so belong in the cache key)."""

    temperature: float
    max_tokens: int
    #: Log-probability mode only: how many alternatives of the first token are asked for.
    top_logprobs: NotRequired[int]


class _KeyMaterial(TypedDict):
    """What a cache key is the hash of (`v`: `CACHE_VERSION`)."""

    v: int
    model: str
    sampling: Sampling
    mode: str
    dimension: str
    template: str
    inputs: JsonObject
    role: NotRequired[str]
    examples: NotRequired[list[str]]


def cache_key(
    *,
    model: str,
    sampling: Sampling,
    mode: str,
    dimension: str,
    template_hash: str,
    inputs: Mapping[str, Any],
    role: str | None = None,
    examples: Sequence[str] | None = None,
) -> str:
    """The cache (and in-run memo) key of one judge request. `role` (e.g. "escalation") keeps
    a judge's verdicts apart from another role's on the same model; None adds nothing, so the
    first judge's keys are those of before roles existed. `examples` are the ids of the
    nearest examples the prompt shows (the template hash covers K and their pool); None, a
    judge showing none, adds nothing either."""
    material: _KeyMaterial = {
        "v": CACHE_VERSION,
        "model": model,
        "sampling": sampling.copy(),
        "mode": mode,
        "dimension": dimension,
        "template": template_hash,
        "inputs": dict(inputs),
    }
    if role is not None:
        material["role"] = role
    if examples is not None:
        material["examples"] = list(examples)
    # surrogatepass: a lone surrogate in judged content (possible from Python callers) still
    # hashes, deterministically, instead of failing the request.
    return hashlib.sha256(canonical_json(material).encode("utf-8", "surrogatepass")).hexdigest()


def decode_record(raw: object) -> JsonObject | None:
    """A stored entry (JSON text, or its bytes) as a record; None for anything else (a corrupt
    or foreign entry is a miss, so the request is asked again)."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
    if not isinstance(raw, str):
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


#: What the database raises when its disk is full, read-only or locked past diskcache's timeout.
_STORAGE_ERRORS = (OSError, sqlite3.Error, diskcache.Timeout)


class VerdictStore(Protocol):
    """What the judge engine needs of a verdict cache (disk, Redis, or both layered)."""

    def get(self, key: str) -> JsonObject | None:
        """The stored record, or None for a miss."""

    def set(self, key: str, record: JsonObject) -> None:
        """Store a record under `key`."""

    def close(self) -> None:
        """Release connections and handles."""


class VerdictCache:
    """A thread- and process-safe store of verdict records (JSON-able dicts) by key.

    `get` and `set` raise `CacheStorageError` (naming the folder) when the database fails, so the
    engine can keep a verdict it already paid for instead of losing it to a full disk.
    """

    def __init__(self, directory: Path, *, ttl_s: int | None = None) -> None:
        self.directory = directory.expanduser()
        self._cache = _open(self.directory)
        self._ttl_s = ttl_s  # None: entries live until `toolgrade cache clear`

    def get(self, key: str) -> JsonObject | None:
        """The stored record, or None (also for a corrupt entry, which is then re-asked)."""
        try:
            raw = self._cache.get(key)
        except _STORAGE_ERRORS as exc:
            reason = f"judge cache {self.directory}: cannot be read ({exc})"
            raise CacheStorageError(reason) from exc
        return decode_record(raw)

    def set(self, key: str, record: JsonObject) -> None:
        """Store a record (stored as JSON text so entries stay readable across versions)."""
        try:
            # `expire` only when a TTL is set: without one the entry is stored as before.
            expiry = {} if self._ttl_s is None else {"expire": self._ttl_s}
            self._cache.set(key, canonical_json(record), **expiry)
        except _STORAGE_ERRORS as exc:
            raise CacheStorageError(
                f"judge cache {self.directory}: cannot be written ({exc})"
            ) from exc

    def close(self) -> None:
        """Release the database handle."""
        self._cache.close()


@dataclass(frozen=True)
class CacheStats:
    """What `toolgrade cache stats` shows."""

    directory: Path
    exists: bool
    entries: int
    size_bytes: int


#: The database file diskcache keeps in its directory: what makes a folder a cache.
_DATABASE = "cache.db"


def _open(directory: Path) -> diskcache.Cache:
    """Open (creating if needed) the cache at `directory`; a `ConfigError` naming it if not."""
    if directory.exists() and not directory.is_dir():
        reason = "a file, not a folder; choose another --cache-dir"
        raise ConfigError(f"judge cache {directory}: {reason}")
    try:
        return diskcache.Cache(str(directory))
    except (OSError, sqlite3.Error) as exc:
        raise ConfigError(
            f"judge cache {directory}: cannot be opened ({exc}); choose another --cache-dir, "
            "or remove the folder to start an empty cache"
        ) from exc


def _existing(directory: Path) -> Path | None:
    """`directory` when it holds a cache; None when there is none (nothing is created).

    A folder that exists without the cache's database is someone else's: refused, so that
    `stats` does not count its files and `clear` does not touch it.
    """
    directory = directory.expanduser()
    if not directory.exists() or (directory.is_dir() and not any(directory.iterdir())):
        return None
    if not (directory / _DATABASE).is_file():
        raise ConfigError(f"judge cache {directory}: not a toolgrade cache (no {_DATABASE} in it)")
    return directory


def _size_on_disk(directory: Path) -> int:
    return sum(p.stat().st_size for p in directory.rglob("*") if p.is_file())


def cache_stats(directory: Path) -> CacheStats:
    """Entries and size of the cache at `directory`; a missing directory is not created."""
    found = _existing(directory)
    if found is None:
        return CacheStats(directory.expanduser(), exists=False, entries=0, size_bytes=0)
    with _open(found) as cache:
        entries = len(cache)
    return CacheStats(found, exists=True, entries=entries, size_bytes=_size_on_disk(found))


def clear_cache(directory: Path) -> int:
    """Remove every entry of the cache at `directory`; the number removed."""
    found = _existing(directory)
    if found is None:
        return 0
    with _open(found) as cache:
        removed = int(cache.clear())
    return removed
