"""Worker processes for `toolgrade run --jobs N`: the same work, in input order, on every core.

`ordered_map` hands chunks of run lines to a process pool and yields the per-line answers in
the order the lines were read, so whatever the parent writes or folds from them (results.jsonl,
the summary, the reports) is byte-identical to one process doing the work alone. Memory stays
flat: at most two chunks per worker are in flight, and nothing else is kept.

A worker that dies (a crash in a C extension, the kernel's OOM killer) loses the chunks it and
its siblings held: the pool is replaced, and those chunks run again one line at a time in a
separate one-worker pool, so that a line that kills that worker killed it alone. That line is
answered by `crashed(item, reason)` (a record whose checks crashed, like a check that raises);
every other line is graded as usual.

Workers ignore SIGINT: on Ctrl-C the parent stops handing out work, lets the running chunks
finish (a fraction of a second), and the interrupt goes on up from the parent alone, so the
terminal gets no traceback per worker.

Processes start from a fork server (a clean, single-threaded process that has already imported
toolgrade) where the platform has one: no import cost per worker, and no fork of a parent that
runs threads (a progress bar, a judge client).
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
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: Lines per task: large enough that a task's overhead (two pickles, a pipe round trip) is
#: small beside grading it (about a millisecond a run), small enough to keep memory flat.
CHUNK_SIZE = 200
#: Chunks in flight per worker: one running, one queued, so no worker waits on the parent.
_IN_FLIGHT_PER_JOB = 2


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, as a container or `taskset` sets)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


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


def start_early() -> None:
    """Start the fork server now, where there is one: its imports (toolgrade's grading, about
    half a second of CPU in its own process) then run while this process still reads the suite,
    instead of while it waits for its first workers."""
    context = _context()
    if context.get_start_method() == "forkserver":
        from multiprocessing import forkserver

        forkserver.ensure_running()


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


def chunks(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """`items` in lists of `size` (the last one shorter), read lazily: the one chunking every
    engine uses, so they all cut the input at the same places."""
    iterator = iter(items)
    return iter(lambda: list(islice(iterator, size)), [])


def ordered_map(
    items: Iterable[T],
    work: Callable[[list[T]], list[R]],
    crashed: Callable[[T, str], R],
    *,
    jobs: int,
    initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
    chunk_size: int = CHUNK_SIZE,
) -> Iterator[R]:
    """`work` over `items` in `jobs` worker processes, one answer per item, in input order.

    `work` and `initializer` must be module-level functions (they are pickled by name), and
    `initargs`, the items and the answers must pickle. `crashed(item, reason)` answers for an
    item whose work killed its worker or raised.
    """
    pool = _Pool(jobs, initializer, initargs)
    retry = _Retry(initializer, initargs)
    window: deque[_Task[T, R]] = deque()
    finished = False
    try:
        for chunk in chunks(items, chunk_size):
            window.append(pool.submit(work, chunk))
            if len(window) >= jobs * _IN_FLIGHT_PER_JOB:
                yield from _settle(window.popleft(), pool, retry, work, crashed)
        while window:
            yield from _settle(window.popleft(), pool, retry, work, crashed)
        finished = True
    finally:
        pool.close(cancel=not finished)
        retry.close()


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
            return crashed(item, "the worker process grading this run died")
        except Exception as exc:
            return crashed(item, f"{type(exc).__name__}: {exc}")

    def close(self) -> None:
        """Stop the worker, if one was started."""
        if self.pool is not None:
            self.pool.close(cancel=True)
