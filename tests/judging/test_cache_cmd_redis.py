"""`toolgrade cache stats|clear` on the redis and layered backends (a real redis-server)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders_judging import all_requests, no_sleep, settings
from builders_redis import RedisServer, free_port
from toolgrade.cli.cache_cmd import cache_app
from toolgrade.judging import JudgeEngine
from toolgrade.judging.scripted import FakeClient, verdict_json
from toolgrade.settings.cache import CacheSettings

runner = CliRunner()


def fill(tmp_path: Path, url: str, prefix: str = "toolgrade:verdict:") -> Path:
    """Four verdicts in the local folder and on Redis (layered)."""
    cache = CacheSettings(backend="layered", url=url, prefix=prefix)
    client = FakeClient([verdict_json("pass")])
    with JudgeEngine(settings(tmp_path, cache=cache), client, sleep=no_sleep) as judge:
        for request in all_requests():
            judge.judge(request)
    return tmp_path / "judge-cache"


def test_stats_counts_the_entries_on_redis(tmp_path: Path, redis_server: RedisServer) -> None:
    fill(tmp_path, redis_server.url)
    result = runner.invoke(
        cache_app, ["stats", "--cache-backend", "redis", "--cache-url", redis_server.url]
    )
    assert result.exit_code == 0, result.output
    assert f"redis:     {redis_server.url} (prefix toolgrade:verdict:)" in result.output
    assert "entries:   4" in result.output and "directory:" not in result.output


def test_layered_stats_and_clear_cover_both_layers(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    folder = fill(tmp_path, redis_server.url)
    options = ["--cache-backend", "layered", "--cache-url", redis_server.url,
               "--cache-dir", str(folder)]
    shown = runner.invoke(cache_app, ["stats", *options])
    assert shown.exit_code == 0, shown.output
    assert shown.output.count("entries:   4") == 2
    cleared = runner.invoke(cache_app, ["clear", *options])
    assert cleared.exit_code == 0, cleared.output
    assert f"removed 4 cached verdict(s) from {folder}" in cleared.output
    assert f"removed 4 cached verdict(s) from {redis_server.url}" in cleared.output
    assert redis_server.client().dbsize() == 0


def test_clear_removes_only_its_own_prefix(tmp_path: Path, redis_server: RedisServer) -> None:
    fill(tmp_path, redis_server.url, prefix="ci-a:")
    redis_server.client().set("someone-else", "keep me")
    redis_server.client().set("ci-a*not-ours", "keep me too")  # a glob character in the way
    result = runner.invoke(cache_app, ["clear", "--cache-backend", "redis", "--cache-url",
                                       redis_server.url, "--prefix", "ci-a:"])
    assert result.exit_code == 0, result.output
    assert "removed 4 cached verdict(s)" in result.output
    assert sorted(redis_server.client().keys("*")) == [b"ci-a*not-ours", b"someone-else"]


def test_the_settings_file_names_the_backend(tmp_path: Path, redis_server: RedisServer) -> None:
    fill(tmp_path, redis_server.url)
    config = tmp_path / "toolgrade.toml"
    config.write_text(f'[cache]\nbackend = "redis"\nurl = "{redis_server.url}"\n')
    result = runner.invoke(cache_app, ["stats", "--config", str(config)])
    assert result.exit_code == 0, result.output
    assert "redis:" in result.output and "entries:   4" in result.output


@pytest.mark.parametrize("command", ["stats", "clear"])
def test_an_unreachable_server_is_a_clear_exit_2(command: str) -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"
    result = runner.invoke(cache_app, [command, "--cache-backend", "redis", "--cache-url", url])
    assert result.exit_code == 2
    assert f"judge cache {url}: Redis cannot be reached" in result.output


def test_a_malformed_url_is_a_configuration_error() -> None:
    result = runner.invoke(
        cache_app, ["stats", "--cache-backend", "redis", "--cache-url", "http://cache:6379"]
    )
    assert result.exit_code == 2
    assert "configuration error: cache options: 'http://cache:6379': not a Redis URL" \
        in result.output


def test_stats_counts_a_foreign_key_under_the_prefix_without_failing(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    fill(tmp_path, redis_server.url)
    redis_server.client().hset("toolgrade:verdict:someone-elses-hash", "f", "v")
    result = runner.invoke(
        cache_app, ["stats", "--cache-backend", "redis", "--cache-url", redis_server.url]
    )
    assert result.exit_code == 0, result.output
    assert "entries:   5" in result.output
