"""Where chunks of run lines are read and graded: this process, its worker processes, or Ray.

An engine is the executor `validate_and_grade`, `validate_inputs` and `grade` hand their chunks
to (`toolgrade run --jobs N` picks `LocalProcesses(N)`, `--engine ray`
`scoring.ray_engine.RayEngine`). The `Engine` protocol declares everything a caller uses:
`open` (get ready: start a fork server, connect to a cluster), `close`, `ordered_map` over
chunks, and `describe` (what the grading used, for the console). Every engine answers
`ordered_map` the same way: one answer per chunk, in input order, an item of a lost chunk
answered by `crashed(item, reason)`; so whatever the caller writes or folds from the answers is
byte-identical whichever engine made them.

The one size threshold (`hands_out`): run files under `PARALLEL_BYTES` are read and graded in
this process, whatever the engine: handing them out costs more than it saves. A judged run
grades here too, where the judge engine's concurrency bound and its verdict cache live (the
runner's rule).

`LocalProcesses` hands chunks to a process pool and yields the answers in the order the lines
were read. Memory stays flat: at most two chunks per worker are in flight. A worker that dies
(a crash in a C extension, the kernel's OOM killer) loses the chunks it and its siblings held:
the pool is replaced, and those chunks run again one line at a time in a separate one-worker
pool, so that a line that kills that worker killed it alone; that line is answered by
`crashed`. Workers ignore SIGINT: on Ctrl-C the parent stops handing out work, lets the running
chunks finish, and the interrupt goes on up from the parent alone. Processes start from a fork
server (a clean, single-threaded process that has already imported toolgrade) where the
platform has one: no import cost per worker, and no fork of a parent that runs threads.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: Lines per task: large enough that a task's overhead (two pickles, a pipe round trip) is
#: small beside grading it (about a millisecond a run), small enough to keep memory flat.
#: Read at call time (the tests make it small).
CHUNK_SIZE = 200
#: Below this many bytes of run files, everything runs in this process: starting workers would
#: cost more than they save (a run line is about 2 KB; this is a few chunks' worth).
PARALLEL_BYTES = 4 * CHUNK_SIZE * 2048
#: Chunks in flight per worker: one running, one queued, so no worker waits on the parent.
_IN_FLIGHT_PER_JOB = 2
#: What a run's checks say when the process grading it died (every engine says the same).
DIED = "the worker process grading this run died"


class Engine(Protocol):
    """An executor of chunked, ordered work: see the module's docstring."""

    @property
    def parallel(self) -> bool:
        """Whether this engine hands work to other processes (False: all of it runs here)."""
        ...

    def open(self) -> None:
        """Get ready to hand work out (may do nothing; may raise `ConfigError`); idempotent.
        Called while the suite is still being read, so that start-up overlaps it."""
        ...

    def close(self) -> None:
        """Let go of what `open` took (a local Ray it started); idempotent."""
        ...

    def describe(self) -> str | None:
        """Where the work ran, for the console (None: nothing worth saying)."""
        ...

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
        """`work` over chunks of `items`, its answers in input order.

        `work` and `initializer` are module-level functions (sent by name); `initializer`
        runs once per worker process with `initargs` before its first chunk.
        """
        ...


def run_bytes(files: list[Path]) -> int:
    """The run files' bytes (what decides whether workers get them)."""
    return sum(p.stat().st_size for p in files if p.is_file())


def hands_out(engine: Engine, files: list[Path]) -> bool:
    """Whether work on these run files goes to the engine's workers: the one size threshold."""
    return engine.parallel and run_bytes(files) >= PARALLEL_BYTES


def chunks(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """`items` in lists of `size` (the last one shorter), read lazily: the one chunking every
    engine uses, so they all cut the input at the same places."""
    iterator = iter(items)
    return iter(lambda: list(islice(iterator, size)), [])


@dataclass(frozen=True)
class Serial:
    """Everything in this process (`--jobs 1`)."""

    @property
    def parallel(self) -> bool:
        """Never: see `Engine.parallel`."""
        return False

    def open(self) -> None:
        """Nothing to start."""

    def close(self) -> None:
        """Nothing to stop."""

    def describe(self) -> str | None:
        """Nothing to say: it all ran here."""
        return None

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
        """`work` here, a chunk at a time; `crashed` answers an item whose chunk raised."""
        if initializer is not None:
            initializer(*initargs)
        for chunk in chunks(items, chunk_size):
            try:
                yield from work(chunk)
            except Exception as exc:  # as a worker would: each item of the chunk answered
                yield from (crashed(item, f"{type(exc).__name__}: {exc}") for item in chunk)


@dataclass(frozen=True)
class LocalProcesses:
    """`jobs` worker processes on this machine (`--jobs N`)."""

    jobs: int

    @property
    def parallel(self) -> bool:
        """With more than one worker: see `Engine.parallel`."""
        return self.jobs > 1

    def open(self) -> None:
        """Start the workers' fork server, whose imports (toolgrade's grading, about half a
        second of CPU in its own process) then overlap the caller's work instead of delaying
        its first workers."""
        if _context().get_start_method() == "forkserver":
            from multiprocessing import forkserver

            forkserver.ensure_running()

    def close(self) -> None:
        """Nothing held between maps: each `ordered_map` stops its own pool."""

    def describe(self) -> str | None:
        """Nothing to say: the worker count is the caller's own option."""
        return None

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
        """`work` over `items` in `jobs` worker processes, its answers in input order.

        `initargs`, the items and the answers must pickle. `crashed(item, reason)` answers for
        an item whose work killed its worker or raised.
        """
        pool = _Pool(self.jobs, initializer, initargs)
        retry = _Retry(initializer, initargs)
        window: deque[_Task[T, R]] = deque()
        finished = False
        try:
            for chunk in chunks(items, chunk_size):
                window.append(pool.submit(work, chunk))
                if len(window) >= self.jobs * _IN_FLIGHT_PER_JOB:
                    yield from _settle(window.popleft(), pool, retry, work, crashed)
            while window:
                yield from _settle(window.popleft(), pool, retry, work, crashed)
            finished = True
        finally:
            pool.close(cancel=not finished)
            retry.close()


def engine_for(jobs: int) -> Engine:
    """The engine `--jobs N` means: this process for 1, N worker processes otherwise."""
    return LocalProcesses(jobs) if jobs > 1 else Serial()


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, as a container or `taskset` sets)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


# The process pool ------------------------------------------------------------------------------

def _ignore_sigint(initializer: Callable[..., None] | None, *args: Any) -> None:
    """Worker start-up: Ctrl-C is the parent's to handle; then the caller's initializer."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if initializer is not None:
        initializer(*args)


def _context() -> multiprocessing.context.BaseContext:
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        # Not scipy: the checks' assignment solver is plain Python, and scipy is imported only
        # for a matrix with an infinite or NaN entry, which grading never builds (preloading
        # it cost about 0.8 s of CPU per start).
        context.set_forkserver_preload(["toolgrade.scoring.jobs"])
        return context
    return multiprocessing.get_context("spawn")


@dataclass
class _Pool:
    """A process pool that can be replaced when a worker dies (a broken pool takes no work)."""

    jobs: int
    initializer: Callable[..., None] | None
    initargs: tuple[Any, ...]

    def __post_init__(self) -> None:
        self.generation = 0
        self.executor = self._start()

    def _start(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self.jobs,
            mp_context=_context(),
            initializer=_ignore_sigint,
            initargs=(self.initializer, *self.initargs),
        )

    def submit(self, work: Callable[[list[T]], list[R]], items: list[T]) -> _Task[T, R]:
        """Hand `items` to the pool; a pool found broken (a worker died meanwhile) is
        replaced first, and the tasks it held are settled when their turn comes."""
        try:
            future = self.executor.submit(work, items)
        except BrokenProcessPool:
            self.restart(self.generation)
            future = self.executor.submit(work, items)
        return _Task(items, future, self.generation)

    def restart(self, generation: int) -> None:
        """Replace the pool once per breakage: futures of an older generation are already lost."""
        if generation != self.generation:
            return
        self.executor.shutdown(wait=True, cancel_futures=True)
        self.executor = self._start()
        self.generation += 1

    def close(self, cancel: bool) -> None:
        """Stop the workers: after the work, or at once when the parent is interrupted."""
        self.executor.shutdown(wait=True, cancel_futures=cancel)


@dataclass
class _Task(Generic[T, R]):
    items: list[T]
    future: Future[list[R]]
    generation: int


def _settle(
    task: _Task[T, R],
    pool: _Pool,
    retry: _Retry,
    work: Callable[[list[T]], list[R]],
    crashed: Callable[[T, str], R],
) -> list[R]:
    """The answers of one chunk; when it was lost, its items again one at a time."""
    try:
        return task.future.result()
    except BrokenProcessPool:
        pool.restart(task.generation)
    except Exception:  # the work itself raised: each item is retried alone, below
        pass
    return [retry.one(item, work, crashed) for item in task.items]


class _Retry:
    """A one-worker pool, started on first need, that runs lost items alone: when its worker
    dies, the item it held is the cause."""

    def __init__(self, initializer: Callable[..., None] | None, initargs: tuple[Any, ...]):
        self.initializer, self.initargs = initializer, initargs
        self.pool: _Pool | None = None

    def one(self, item: T, work: Callable[[list[T]], list[R]], crashed: Callable[[T, str], R]) -> R:
        """`work` on one item, or `crashed(item, why)` when it kills its worker or raises."""
        if self.pool is None:
            self.pool = _Pool(1, self.initializer, self.initargs)
        generation = self.pool.generation
        try:
            return self.pool.executor.submit(work, [item]).result()[0]
        except BrokenProcessPool:
            self.pool.restart(generation)
            return crashed(item, DIED)
        except Exception as exc:
            return crashed(item, f"{type(exc).__name__}: {exc}")

    def close(self) -> None:
        """Stop the worker, if one was started."""
        if self.pool is not None:
            self.pool.close(cancel=True)
