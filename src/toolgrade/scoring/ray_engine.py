"""`toolgrade run --engine ray [--address A]`: chunks of runs read and graded by Ray tasks.

The same work as `--jobs N` (`scoring.jobs`: each task gets a chunk of run lines as text and
answers with the chunk's output lines and its parts of the summary and the reports), on the
CPUs of a Ray cluster instead of this machine's. The driver (this process) keeps every task's
answer in input order, so the outputs are byte-for-byte those of `--jobs 1`.

- **Set-up once per worker process.** The suite, the route decisions and the checks (what the
  process pool's initializer gets) are put in Ray's object store once; a task carries a
  reference to them, and a Ray worker process runs the initializer the first time it sees that
  reference (`_run_chunk`), not on every task. It also moves to the driver's working folder
  then, so that a suite's relative file paths (state assertions' databases) read the same
  files, and report the same paths, as in one process.
- **Flat memory, no idle CPU.** At most two chunks per cluster CPU are in flight.
- **A task lost with its worker** (a crash in a C extension, the OOM killer, a node gone) is
  tried once more by Ray; if it is lost again, its runs run again one at a time, and a run
  whose task dies once more gets a record whose checks crashed, as with `--jobs`.
- **Ray itself.** With no `address`, the engine connects to the cluster `RAY_ADDRESS` names,
  or else starts a local instance for the run (and stops it after); `address="auto"` joins the
  cluster started on this machine with `ray start --head`. A process that already called
  `ray.init` (a notebook, the tests) is used as it is. Every node needs toolgrade (the same
  version) installed for the Python Ray runs; no runtime environment is shipped.
"""

from __future__ import annotations

import logging
import os
import socket
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, TypeVar

from toolgrade.errors import ConfigError
from toolgrade.scoring.engines import DIED, chunks

T = TypeVar("T")
R = TypeVar("R")

#: Chunks in flight per cluster CPU: one running, one queued.
_IN_FLIGHT_PER_CPU = 2

#: How long a cluster's address may take to accept a connection.
_CONNECT_TIMEOUT_S = 5.0

#: In a Ray worker process: the key (its arguments' reference, or None) of the set-up it ran
#: last (`_run_chunk`); empty until it ran one.
_WORKER: list[str | None] = []


def _run_chunk(
    setup: list[Any], work: Callable[[list[T]], list[R]], items: list[T]
) -> tuple[str, int, list[R]]:
    """A Ray task: `work` on one chunk, after this worker process's set-up; answers with the
    node and process that did it (`RayEngine.nodes`).

    `setup` is `[initializer, reference to its arguments, driver's folder]`, inside a list so
    that Ray hands the task the reference, not the value, and the arguments are fetched (and
    the initializer run) only by a process that has not seen them yet.
    """
    import ray

    initializer, ref, folder = setup
    key = ref.hex() if ref is not None else None
    if [key] != _WORKER:
        if os.path.isdir(folder):
            os.chdir(folder)
        if initializer is not None:
            initializer(*ray.get(ref))
        _WORKER[:] = [key]
    return ray.get_runtime_context().get_node_id(), os.getpid(), work(items)


@dataclass
class RayEngine:
    """Ray tasks on a cluster (see the module's docstring); an `engines.Engine`.

    `address`: the cluster (None: `RAY_ADDRESS`, else a local instance started for the run).
    `tasks`: chunks running at once (default: the cluster's CPUs). `init_options`: more
    `ray.init` arguments, for a local instance (`num_cpus`, `object_store_memory`).
    """

    address: str | None = None
    tasks: int | None = None
    init_options: dict[str, Any] = field(default_factory=dict)
    #: Ray's retries of a chunk whose worker died, before its runs are tried one at a time.
    chunk_retries: int = 1
    #: Only Ray's errors reach stderr (`toolgrade run --quiet`): not its start-up warnings.
    quiet: bool = False
    #: What the run used: the nodes and (node, process) pairs that graded chunks.
    nodes: set[str] = field(default_factory=set)
    processes: set[tuple[str, int]] = field(default_factory=set)
    _started: bool = False
    _open: bool = False

    @property
    def parallel(self) -> bool:
        """Always: the work goes to Ray."""
        return True

    def open(self) -> None:
        """Connect to Ray, or start a local instance; `ConfigError` when neither works."""
        if self._open:
            return
        ray = import_ray()
        if not ray.is_initialized():
            check_reachable(self.address)
            level = logging.ERROR if self.quiet else logging.WARNING
            # Ray logs some warnings (token authentication) before `logging_level` applies.
            logging.getLogger("ray").setLevel(level)
            try:
                ray.init(address=self._address(), include_dashboard=False, log_to_driver=False,
                         logging_level=level, **self.init_options)
            except (ConnectionError, RuntimeError, ValueError, TimeoutError) as exc:
                where = self.address or os.environ.get("RAY_ADDRESS") or "a local instance"
                raise ConfigError(f"--engine ray: cannot start or reach Ray ({where}): {exc}")\
                    from exc
            self._started = True
        self._open = True

    def _address(self) -> str:
        """Where `ray.init` goes: "local" (a new instance) rather than Ray's own default,
        which would join whatever cluster a `ray start` last ran on this machine."""
        return self.address or os.environ.get("RAY_ADDRESS") or "local"

    def close(self) -> None:
        """Stop the local instance this engine started; leave any other Ray as it was."""
        if self._started:
            import_ray().shutdown()
        self._started = self._open = False

    def describe(self) -> str | None:
        """How many nodes and worker processes graded (none: all of it ran here)."""
        return f"graded on Ray: {len(self.nodes)} node(s), {len(self.processes)} worker process(es)"

    def __enter__(self) -> RayEngine:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def ordered_map(
        self,
        items: Iterable[T],
        work: Callable[[list[T]], list[R]],
        crashed: Callable[[T, str], R],
        *,
        initializer: Callable[..., None] | None = None,
        initargs: tuple[Any, ...] = (),
        chunk_size: int,
    ) -> Iterator[R]:
        """`work` over chunks of `items` in Ray tasks, its answers in input order."""
        self.open()
        ray = import_ray()
        ref = ray.put(initargs) if initializer is not None else None
        batch = _Batch(self, [initializer, ref, os.getcwd()], work, crashed)
        limit = self.tasks or max(1, int(ray.cluster_resources().get("CPU", 1)))
        window: deque[tuple[list[T], Any]] = deque()
        finished = False
        try:
            for chunk in chunks(items, chunk_size):
                window.append((chunk, batch.submit(chunk, self.chunk_retries)))
                if len(window) >= limit * _IN_FLIGHT_PER_CPU:
                    yield from batch.settle(*window.popleft())
            while window:
                yield from batch.settle(*window.popleft())
            finished = True
        finally:
            if not finished:  # interrupted: the chunks still running are not waited for
                for _, pending in window:
                    ray.cancel(pending)

    def note(self, node: str, pid: int) -> None:
        """Record which node and process graded a chunk."""
        self.nodes.add(node)
        self.processes.add((node, pid))


@dataclass
class _Batch:
    """The tasks of one `ordered_map`: submitting chunks, and settling each in turn."""

    engine: RayEngine
    setup: list[Any]
    work: Callable[[list[Any]], list[Any]]
    crashed: Callable[[Any, str], Any]

    def __post_init__(self) -> None:
        # One remote function for the batch: Ray exports a function once per definition.
        self.task = import_ray().remote(_run_chunk)

    def submit(self, items: list[Any], retries: int) -> Any:
        """One task (an ObjectRef) for `items`."""
        task = self.task.options(max_retries=retries, retry_exceptions=False)
        return task.remote(self.setup, self.work, items)

    def settle(self, items: list[Any], pending: Any) -> list[Any]:
        """The answers of one chunk; when it was lost, its items again one at a time."""
        try:
            return self._answers(pending)
        except import_ray().exceptions.RayError:
            return [self._alone(item) for item in items]

    def _alone(self, item: Any) -> Any:
        """`work` on one item in a task of its own, or `crashed(item, why)`: a task that dies
        with no retry blames its item, as `--jobs`'s one-worker pool does."""
        errors = import_ray().exceptions
        try:
            return self._answers(self.submit([item], 0))[0]
        except errors.RayTaskError as exc:  # the work raised: say what, as --jobs does
            cause = exc.cause if exc.cause is not None else exc
            return self.crashed(item, f"{type(cause).__name__}: {cause}")
        except errors.RayError:
            return self.crashed(item, DIED)

    def _answers(self, pending: Any) -> list[Any]:
        node, pid, answers = import_ray().get(pending)
        self.engine.note(node, pid)
        return list(answers)


def check_reachable(address: str | None) -> None:
    """A `host:port` address where nothing listens is a `ConfigError` at once: `ray.init`
    would retry for minutes first. Other forms (`auto`, `ray://...`) are Ray's to check."""
    host, _, port = (address or "").rpartition(":")
    if not host or not port.isdigit() or "/" in host:
        return
    try:
        socket.create_connection((host, int(port)), timeout=_CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        raise ConfigError(f"--engine ray: nothing answers at {address}: {exc}") from exc


def import_ray() -> Any:
    """The ray module, or a `ConfigError` saying how to install it."""
    try:
        import ray
    except ImportError as exc:
        raise ConfigError(
            "--engine ray needs Ray: pip install 'toolgrade[ray]'"
        ) from exc
    return ray
