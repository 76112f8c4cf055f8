"""Builders for the Ray tests: a local Ray instance for the session, and a two-node cluster of
`ray start` processes on this machine (head plus a second node), stopped by their own ids."""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

TESTS = Path(__file__).resolve().parent
#: The environment's own bin folder: `make test` runs its python without activating the
#: virtual environment, so `ray` (and the python Ray starts workers with) is not on PATH.
BIN = Path(sys.executable).parent

#: How long a `ray start` may take to come up on a busy 2-core machine.
START_TIMEOUT_S = 150.0

#: Ray gives its raylet a fixed 30 s to register (ray/_private/node.py, not configurable); on
#: a loaded 2-core machine it sometimes misses that, and Ray says so in these words. Such a
#: start is tried again from scratch, up to this many times in all: a machine too busy to
#: start Ray is not a failure of the code under test, anything else still fails at once.
START_ATTEMPTS = 3
RAY_START_TIMED_OUT = "timed out during startup"


class RayStartTimedOut(RuntimeError):
    """Ray's own start-up deadline passed (see `START_ATTEMPTS`)."""


def _attempts() -> Iterator[int]:
    """Attempt numbers for a Ray start, the last one re-raising what it met."""
    yield from range(1, START_ATTEMPTS + 1)


@contextmanager
def local_ray() -> Iterator[None]:
    """`ray.init` with 2 CPUs and no dashboard; its workers can import the tests' builders
    (custom checks are pickled by reference to their module)."""
    import ray

    path = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(TESTS), path) if p)
    try:
        for attempt in _attempts():
            try:
                # "local": a new instance, never a cluster some other `ray start` left here.
                ray.init(address="local", num_cpus=2, include_dashboard=False,
                         log_to_driver=False, logging_level="warning")
                break
            except Exception as exc:
                if RAY_START_TIMED_OUT not in str(exc) or attempt == START_ATTEMPTS:
                    raise
                ray.shutdown()
    finally:  # the workers were started with it; nothing else needs it
        if path is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = path
    try:
        yield
    finally:
        ray.shutdown()


def free_port() -> int:
    """A TCP port nothing listens on at the moment."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Cluster:
    """A Ray cluster of `ray start --block` processes: its address and the environment a
    driver needs to join it (its own token file)."""

    address: str
    env: dict[str, str]


@contextmanager
def two_node_cluster(folder: Path) -> Iterator[Cluster]:
    """A head and a second node (one CPU each), in sessions of their own, so that each is
    stopped, with every process it started, by its process group id."""
    for attempt in _attempts():
        with ExitStack() as stack:
            try:
                cluster = stack.enter_context(_start_two_nodes(folder, attempt))
            except RayStartTimedOut:
                if attempt == START_ATTEMPTS:
                    raise
                continue
            yield cluster
            return


@contextmanager
def _start_two_nodes(folder: Path, attempt: int) -> Iterator[Cluster]:
    """One try at `two_node_cluster`: raises `RayStartTimedOut` before yielding when Ray's own
    start-up deadline passed (everything it started is stopped)."""
    folder = folder / f"attempt-{attempt}"
    folder.mkdir()
    token = folder / "token"
    token.write_text(secrets.token_hex(32), encoding="utf-8")
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "token",
           "RAY_AUTH_TOKEN_PATH": str(token),
           "PATH": os.pathsep.join([str(BIN), os.environ.get("PATH", "")])}
    # Its own temporary folder (short: Unix socket paths are limited to 107 bytes), so that
    # nothing it leaves (ray_current_cluster) is found by another Ray on this machine.
    temp = Path(tempfile.mkdtemp(prefix="tg-ray-"))
    port = free_port()
    address = f"127.0.0.1:{port}"
    started: list[subprocess.Popen[bytes]] = []
    where = ("--temp-dir", str(temp))
    try:
        head = _ray_start(folder / "head.log", env, started, "--head", "--port", str(port),
                          "--node-ip-address", "127.0.0.1", "--include-dashboard", "false", *where)
        _wait_for_line(head, folder / "head.log", "Ray runtime started")
        node = _ray_start(folder / "node.log", env, started, "--address", address,
                          "--node-ip-address", "127.0.0.1", *where)
        _wait_for_line(node, folder / "node.log", "Ray runtime started")
        yield Cluster(address, env)
    finally:
        _stop(started)
        shutil.rmtree(temp, ignore_errors=True)


def _ray_start(
    log: Path, env: dict[str, str], started: list[subprocess.Popen[bytes]], *args: str
) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(BIN / "ray"), "start", "--block", "--num-cpus", "1", "--disable-usage-stats",
             *args],
            stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True,
        )
    started.append(process)
    return process


def _wait_for_line(process: subprocess.Popen[bytes], log: Path, line: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while line not in log.read_text(encoding="utf-8", errors="replace"):
        text = log.read_text(encoding="utf-8", errors="replace")[-2000:]
        if process.poll() is not None and RAY_START_TIMED_OUT in text:
            raise RayStartTimedOut(f"ray start missed Ray's start-up deadline:\n{text}")
        assert process.poll() is None, f"ray start ended early:\n{text}"
        assert time.monotonic() < deadline, f"ray start took too long:\n{text}"
        time.sleep(0.5)


def _stop(started: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM each `ray start` process group (the node first), then SIGKILL what is left."""
    for process in reversed(started):
        _signal_group(process, signal.SIGTERM)
    for process in reversed(started):
        with suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10)
        _signal_group(process, signal.SIGKILL)
        # Reap it: a `ray start` killed but never waited for is a ResourceWarning when its
        # Popen is collected, an error under the suite's filterwarnings.
        with suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10)


def _signal_group(process: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    with suppress(ProcessLookupError):
        os.killpg(process.pid, sig)
