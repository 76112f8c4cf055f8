"""Fixtures of the judging tests: a real Redis server for the shared verdict cache."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from builders_redis import RedisServer, free_port
from toolgrade.judging.cache_shared import forget_outages


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A fresh redis-server on a free loopback port, killed at the end; outage warnings
    forgotten before and after, so each test sees its own."""
    folder = tmp_path / "redis"
    folder.mkdir()
    server = RedisServer(port=free_port(), folder=folder).start()
    forget_outages()
    try:
        yield server
    finally:
        server.kill()
        forget_outages()
