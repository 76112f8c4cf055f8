"""The `[cache]` table: read from the settings file, validated when the settings are loaded."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolgrade.errors import ConfigError
from toolgrade.judging.escalation import escalation_settings
from toolgrade.settings import load_settings
from toolgrade.settings.cache import CacheSettings, masked_url, redis_url_problem


def write(tmp_path: Path, text: str, name: str = "toolgrade.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_the_default_is_todays_disk_cache() -> None:
    cache = load_settings(cwd=Path("/nonexistent")).cache
    assert cache == CacheSettings() and cache.backend == "disk"
    assert cache.local and not cache.shared


def test_the_cache_table_reaches_the_judge_settings(tmp_path: Path) -> None:
    config = write(tmp_path, '[judge]\nescalate_to = "m2"\n[cache]\nbackend = "layered"\n'
                             'url = "redis://10.0.0.5:6380/2"\nprefix = "ci:"\nttl_s = 86400\n')
    settings = load_settings(config)
    assert settings.judge.cache == settings.cache
    assert (settings.cache.backend, settings.cache.url) == ("layered", "redis://10.0.0.5:6380/2")
    assert (settings.cache.prefix, settings.cache.ttl_s) == ("ci:", 86400)
    # An escalation judge caches in the same place as the first judge.
    second = escalation_settings(settings.judge)
    assert second is not None and second.cache == settings.cache


def test_pyproject_takes_the_table_under_tool_toolgrade(tmp_path: Path) -> None:
    write(tmp_path, '[tool.toolgrade.cache]\nbackend = "redis"\nurl = "unix:///run/r.sock"\n',
          "pyproject.toml")
    assert load_settings(cwd=tmp_path).cache.url == "unix:///run/r.sock"


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('backend = "redis"', 'cache: Value error, backend "redis" needs url'),
        ('backend = "memcached"', "cache.backend: Input should be 'disk', 'redis' or 'layered'"),
        ('url = "http://cache:6379"', "cache.url: Value error, 'http://cache:6379': not a Redis"),
        ('url = "redis://cache:port"', "cache.url: Value error, 'redis://cache:port': not a"),
        ('url = "redis://cache/zero"', "database 'zero' is not a number"),
        ('url = "redis://:hunter2@cache/x"', "'redis://:***@cache/x'"),
        ("ttl_s = 0", "cache.ttl_s: Input should be greater than or equal to 1"),
        ('ttl_s = "1d"', "cache.ttl_s: Input should be a valid integer"),
        ("bogus = 1", "cache.bogus: Extra inputs are not permitted"),
    ],
)
def test_a_bad_table_is_an_exit_2_error_naming_the_key(
    tmp_path: Path, table: str, message: str
) -> None:
    config = write(tmp_path, f"[cache]\n{table}\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(config)
    assert message in str(caught.value)
    assert "hunter2" not in str(caught.value)


def test_the_cache_is_set_in_one_place(tmp_path: Path) -> None:
    config = write(tmp_path, '[cache]\nbackend = "disk"\n[judge.cache]\nbackend = "disk"\n')
    with pytest.raises(ConfigError, match="set the cache once, in the"):
        load_settings(config)


def test_redis_urls_are_checked_without_connecting() -> None:
    assert redis_url_problem("redis://127.0.0.1:6379/0") is None
    assert redis_url_problem("rediss://user:pw@cache.internal") is None
    assert redis_url_problem("redis://") == (
        "not a Redis URL (no host); expected redis://HOST[:PORT][/DB], rediss://... or "
        "unix:///PATH"
    )
    assert masked_url("redis://u:pw@h:1/0") == "redis://u:***@h:1/0"
    assert masked_url("redis://h:1/0") == "redis://h:1/0"


def test_the_documented_table_loads(tmp_path: Path) -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "cache.md").read_text()
    block = page.split("```toml\n", 1)[1].split("```", 1)[0]
    cache = load_settings(write(tmp_path, block)).cache
    assert (cache.backend, cache.url, cache.ttl_s) == ("layered", "redis://10.0.0.5:6379/0", 604800)
