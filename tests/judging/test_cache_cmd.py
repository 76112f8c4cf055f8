"""`toolgrade cache stats|clear` and the cache module behind it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from builders_judging import all_requests, engine
from toolgrade.cli.cache_cmd import cache_app
from toolgrade.errors import ConfigError
from toolgrade.judging.cache import (
    VerdictCache,
    cache_key,
    cache_stats,
    clear_cache,
    default_cache_dir,
)
from toolgrade.judging.scripted import FakeClient, verdict_json

runner = CliRunner()


def fill(tmp_path: Path) -> Path:
    with engine(FakeClient([verdict_json("pass")]), tmp_path) as judge:
        for request in all_requests():
            judge.judge(request)
    return tmp_path / "judge-cache"


def test_stats_counts_entries_and_size(tmp_path: Path) -> None:
    directory = fill(tmp_path)
    result = runner.invoke(cache_app, ["stats", "--cache-dir", str(directory)])
    assert result.exit_code == 0, result.output
    assert "entries:   4" in result.output
    assert str(directory) in result.output
    assert cache_stats(directory).size_bytes > 0


def test_clear_empties_the_cache(tmp_path: Path) -> None:
    directory = fill(tmp_path)
    result = runner.invoke(cache_app, ["clear", "--cache-dir", str(directory)])
    assert result.exit_code == 0, result.output
    assert "removed 4" in result.output
    assert cache_stats(directory).entries == 0


def test_stats_on_a_missing_directory_does_not_create_it(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    result = runner.invoke(cache_app, ["stats", "--cache-dir", str(missing)])
    assert result.exit_code == 0 and "entries:   0" in result.output
    assert not missing.exists()
    assert clear_cache(missing) == 0


def test_stats_on_an_empty_directory_does_not_say_it_is_missing(tmp_path: Path) -> None:
    result = runner.invoke(cache_app, ["stats", "--cache-dir", str(tmp_path)])
    assert result.exit_code == 0 and "entries:   0" in result.output
    assert "does not exist" not in result.output and "(empty, no cache yet)" in result.output


@pytest.mark.parametrize("command", ["stats", "clear"])
def test_a_folder_that_is_not_a_cache_is_refused_and_left_alone(
    tmp_path: Path, command: str
) -> None:
    (tmp_path / "mine.txt").write_text("keep me")
    result = runner.invoke(cache_app, [command, "--cache-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "not a toolgrade cache (no cache.db in it)" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.txt"]


def test_a_corrupt_cache_is_a_configuration_error_not_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "cache.db").write_text("not a database")
    result = runner.invoke(cache_app, ["stats", "--cache-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "cannot be opened (file is not a database)" in result.output
    with pytest.raises(ConfigError, match="cannot be opened"):
        VerdictCache(tmp_path)
    with pytest.raises(ConfigError, match="a file, not a folder"):
        VerdictCache(tmp_path / "cache.db")


def test_default_directory_follows_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLGRADE_CACHE_DIR", str(tmp_path / "c"))
    assert default_cache_dir() == tmp_path / "c"
    monkeypatch.delenv("TOOLGRADE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "toolgrade" / "judge"


def test_cache_key_is_stable_and_order_insensitive() -> None:
    common: dict[str, Any] = {
        "model": "m",
        "sampling": {"temperature": 0},
        "mode": "reasoned",
        "dimension": "alternate_route",
        "template_hash": "h",
    }
    a = cache_key(inputs={"task": "t", "actual_route": ["a", "b"]}, **common)
    b = cache_key(inputs={"actual_route": ["a", "b"], "task": "t"}, **common)
    c = cache_key(inputs={"actual_route": ["b", "a"], "task": "t"}, **common)
    assert a == b != c
    assert len(a) == 64
