"""The shared verdict cache on a real redis-server: round trips, the disk cache's keys, and
outages (down from the start, killed mid-run) that cost the cache and never a verdict."""

from __future__ import annotations

import logging
import socket
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from builders_judging import all_requests, no_sleep, request_for, settings
from builders_redis import RedisServer, free_port
from toolgrade.errors import CacheStorageError, ConfigError
from toolgrade.judging import JudgeEngine
from toolgrade.judging.cache import VerdictCache
from toolgrade.judging.cache_shared import LayeredCache, RedisVerdictCache, open_cache
from toolgrade.judging.client import ChatRequest
from toolgrade.judging.scripted import FakeClient, verdict_json
from toolgrade.models import JudgeRequest
from toolgrade.settings.cache import CacheSettings

OUTAGE = "Redis unavailable"


def shared(url: str, **changes: object) -> CacheSettings:
    """Redis-only cache settings on `url`."""
    return CacheSettings.model_validate({"backend": "redis", "url": url, **changes})


def engine_on(
    client: FakeClient, folder: Path, backend: str, url: str, **changes: object
) -> JudgeEngine:
    """An engine with its local cache in `folder` and the given backend."""
    cache = CacheSettings.model_validate({"backend": backend, "url": url, **changes})
    return JudgeEngine(settings(folder, cache=cache), client, sleep=no_sleep)


def many_requests(n: int) -> list[JudgeRequest]:
    """`n` distinct argument_equivalence requests (each its own cache key)."""
    return [request_for("argument_equivalence", actual=f"flights {i}") for i in range(n)]


def outage_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if OUTAGE in r.getMessage()]


def test_a_record_round_trips_under_the_prefix(redis_server: RedisServer) -> None:
    store = RedisVerdictCache(shared(redis_server.url, prefix="team-a:", ttl_s=3600))
    try:
        assert store.get("k1") is None
        store.set("k1", {"verdict": "pass", "reason": "same route"})
        assert store.get("k1") == {"verdict": "pass", "reason": "same route"}
    finally:
        store.close()
    raw = redis_server.client()
    assert raw.keys("*") == [b"team-a:k1"]
    assert 0 < int(raw.ttl("team-a:k1")) <= 3600
    raw.set("team-a:k2", "not json")
    again = RedisVerdictCache(shared(redis_server.url, prefix="team-a:"))
    assert again.get("k2") is None  # a foreign entry is a miss, asked again
    again.close()


def test_redis_keys_are_the_disk_cache_keys(tmp_path: Path, redis_server: RedisServer) -> None:
    client = FakeClient([verdict_json("pass")])
    with engine_on(client, tmp_path, "layered", redis_server.url) as judge:
        for request in all_requests():
            judge.judge(request)
    local = VerdictCache(tmp_path / "judge-cache")
    try:
        stored = {k.decode().removeprefix("toolgrade:verdict:")
                  for k in redis_server.client().keys("*")}
        assert len(stored) == 4
        assert all(local.get(key) is not None for key in stored)
    finally:
        local.close()


def test_a_verdict_made_on_one_machine_is_a_hit_on_another(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    first = FakeClient([verdict_json("pass")])
    with engine_on(first, tmp_path / "a", "layered", redis_server.url) as judge:
        made = [judge.judge(r) for r in all_requests()]
    second = FakeClient([verdict_json("fail")])
    with engine_on(second, tmp_path / "b", "layered", redis_server.url) as judge:
        replayed = [judge.judge(r) for r in all_requests()]
        usage = judge.usage()
    assert first.calls == 4 and second.calls == 0
    assert sum(u["cache_hits"] for u in usage.values()) == 4
    assert [v.verdict for v in replayed] == [v.verdict for v in made] == ["pass"] * 4
    assert all(v.cached for v in replayed)
    redis_server.kill()
    # The shared hits were copied into machine b's folder: they survive the server.
    third = FakeClient([verdict_json("fail")])
    with engine_on(third, tmp_path / "b", "disk", redis_server.url) as judge:
        assert [judge.judge(r).verdict for r in all_requests()] == ["pass"] * 4
    assert third.calls == 0


def test_a_server_down_from_the_start_is_warned_once_and_costs_no_verdict(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    client = FakeClient([verdict_json("pass")])
    with caplog.at_level(logging.WARNING):
        for repeat in range(2):  # two engines (e.g. a judge and its escalation judge)
            with engine_on(client, tmp_path / str(repeat), "redis", url) as judge:
                verdicts = [judge.judge(r) for r in many_requests(6)]
            assert [v.verdict for v in verdicts] == ["pass"] * 6
    assert client.calls == 12  # no cache at all: each engine asked the model
    assert len(outage_lines(caplog)) == 1
    assert "ConnectionError" in outage_lines(caplog)[0]


@pytest.mark.parametrize("backend", ["redis", "layered"])
def test_killing_redis_mid_run_loses_no_verdict_and_warns_once(
    tmp_path: Path, redis_server: RedisServer, caplog: pytest.LogCaptureFixture, backend: str
) -> None:
    asked: list[int] = []

    def judge_then_kill(request: ChatRequest) -> str:
        asked.append(1)
        if len(asked) == 5:
            redis_server.kill()
        return verdict_json("pass")

    client = FakeClient(judge_then_kill)
    with caplog.at_level(logging.WARNING), engine_on(
        client, tmp_path, backend, redis_server.url, retry_s=0.0
    ) as judge:
        verdicts = [judge.judge(r) for r in many_requests(12)]
    assert [v.verdict for v in verdicts] == ["pass"] * 12
    assert client.calls == 12
    assert len(outage_lines(caplog)) == 1  # retried on every request (retry_s 0), warned once
    if backend == "layered":
        local = VerdictCache(tmp_path / "judge-cache")
        try:
            assert all(local.get(k) is not None for k in _keys(tmp_path, 12))
        finally:
            local.close()


def _keys(tmp_path: Path, n: int) -> list[str]:
    """The cache keys of `many_requests(n)`, read back by a disk-only engine that records them."""
    seen: list[str] = []

    class Recording(VerdictCache):
        def get(self, key: str) -> dict[str, object] | None:
            seen.append(key)
            return super().get(key)

    store = Recording(tmp_path / "judge-cache")
    client = FakeClient([verdict_json("fail")])
    with JudgeEngine(settings(tmp_path), client, cache=store, sleep=no_sleep) as judge:
        for request in many_requests(n):
            judge.judge(request)
    assert client.calls == 0  # every verdict is there
    return seen


def test_an_outage_rests_the_server_then_it_is_tried_again(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    now = [0.0]
    store = RedisVerdictCache(shared(redis_server.url, retry_s=30.0), clock=lambda: now[0])
    store.set("k", {"verdict": "pass"})
    redis_server.kill()
    with caplog.at_level(logging.WARNING):
        assert store.get("k") is None and not store.available
        redis_server.start()
        now[0] = 29.0
        assert store.get("k") is None  # resting: the server is not asked yet
        now[0] = 31.0
        store.set("k", {"verdict": "fail"})
        assert store.get("k") == {"verdict": "fail"} and store.available
    store.close()
    assert len(outage_lines(caplog)) == 1


def test_open_cache_builds_the_named_backend(tmp_path: Path, redis_server: RedisServer) -> None:
    url = redis_server.url
    disk = open_cache(settings(tmp_path))
    layered = open_cache(settings(tmp_path, cache=CacheSettings(backend="layered", url=url)))
    only = open_cache(settings(tmp_path / "x", cache=CacheSettings(backend="redis", url=url)))
    off = open_cache(settings(tmp_path, use_cache=False, cache=shared(url)))
    try:
        assert isinstance(disk, VerdictCache)
        assert isinstance(layered, LayeredCache)
        assert isinstance(only, RedisVerdictCache)
        assert off is None
        assert not (tmp_path / "x").exists()  # redis alone writes nothing locally
    finally:
        for store in (disk, layered, only):
            assert store is not None
            store.close()


def test_a_server_that_never_answers_times_out_once_then_rests(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # A listening socket that accepts connections and never replies: a hung server.
    with socket.socket() as hung:
        hung.bind(("127.0.0.1", 0))
        hung.listen(16)
        url = f"redis://127.0.0.1:{hung.getsockname()[1]}/0"
        client = FakeClient([verdict_json("pass")])
        cache = shared(url, timeout_s=0.2)
        with caplog.at_level(logging.WARNING):
            store = RedisVerdictCache(cache)
            with JudgeEngine(settings(tmp_path, cache=cache), client, cache=store,
                             sleep=no_sleep) as judge:
                verdicts = [judge.judge(r) for r in many_requests(6)]
        assert not store.available  # resting: the six requests did not wait on it
    assert [v.verdict for v in verdicts] == ["pass"] * 6 and client.calls == 6
    assert len(outage_lines(caplog)) == 1 and "TimeoutError" in outage_lines(caplog)[0]


def test_without_the_redis_client_the_backend_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "redis", None)  # `import redis` now raises ImportError
    cache = shared("redis://127.0.0.1:6379/0")
    with pytest.raises(ConfigError, match=r"pip install 'toolgrade\[redis\]'"):
        open_cache(settings(tmp_path, cache=cache))
    assert not (tmp_path / "judge-cache").exists()  # redis alone: no local folder made


class _BrokenFolder(VerdictCache):
    """A local folder whose disk has failed: every read and write raises."""

    def get(self, key: str) -> dict[str, object] | None:
        raise CacheStorageError(f"judge cache {self.directory}: cannot be read (disk I/O error)")

    def set(self, key: str, record: Mapping[str, object]) -> None:
        raise CacheStorageError(f"judge cache {self.directory}: cannot be written (disk full)")


def test_a_failing_local_layer_is_warned_once_and_redis_still_serves(
    tmp_path: Path, redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    store = LayeredCache(_BrokenFolder(tmp_path / "c"), RedisVerdictCache(shared(redis_server.url)))
    client = FakeClient([verdict_json("pass")])
    with caplog.at_level(logging.WARNING), JudgeEngine(
        settings(tmp_path), client, cache=store, sleep=no_sleep
    ) as judge:
        first = [judge.judge(r) for r in many_requests(3)]
    assert [v.verdict for v in first] == ["pass"] * 3
    assert redis_server.client().dbsize() == 3  # the shared layer got every verdict
    local = [r.getMessage() for r in caplog.records if "shared cache only" in r.getMessage()]
    assert len(local) == 1 and "disk I/O error" in local[0]
    again = LayeredCache(_BrokenFolder(tmp_path / "c"), RedisVerdictCache(shared(redis_server.url)))
    try:
        assert again.get(next(iter(_redis_keys(redis_server)))) is not None
    finally:
        again.close()


def _redis_keys(server: RedisServer) -> list[str]:
    return [k.decode().removeprefix("toolgrade:verdict:") for k in server.client().keys("*")]


def test_an_error_reply_costs_that_call_only(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    store = RedisVerdictCache(shared(redis_server.url))
    store.set("before", {"verdict": "pass"})
    raw = redis_server.client()
    raw.config_set("maxmemory", "1")  # every write is now refused: OOM
    raw.config_set("maxmemory-policy", "noeviction")
    with caplog.at_level(logging.WARNING):
        store.set("k", {"verdict": "pass"})
        store.set("k2", {"verdict": "pass"})
        assert store.available  # the server answered: no rest
        assert store.get("before") == {"verdict": "pass"}
    store.close()
    assert len(outage_lines(caplog)) == 1 and "OutOfMemoryError" in outage_lines(caplog)[0]
    assert raw.exists("toolgrade:verdict:k") == 0
