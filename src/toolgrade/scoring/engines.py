"""Where chunks of run lines are read and graded: this process, its worker processes, or Ray.

An engine is the executor object `validate_inputs(engine=...)` and `grade(engine=...)` hand
their chunks to (`toolgrade run --jobs N` picks `LocalProcesses(N)`, `--engine ray`
`scoring.ray_engine.RayEngine`). Every engine answers `ordered_map` the same way: one answer
per item, in input order, a crashed item answered by `crashed(item, reason)`; so whatever the
caller writes or folds from the answers is byte-identical whichever engine made them.

The runner keeps its own thresholds (small inputs are read and graded in this process: handing
them out costs more than it saves) and the judge rule (a judged run grades here, where the
judge engine's concurrency bound and its verdict cache live); an engine only says whether it
hands work out at all (`parallel`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class Engine(Protocol):
    """An executor of chunked, ordered work: see the module's docstring."""

    @property
    def parallel(self) -> bool:
        """Whether this engine hands work to other processes (False: all of it runs here)."""
        ...

    def start_early(self) -> None:
        """Get ready while the caller still reads the suite (may do nothing)."""
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
        """`work` over chunks of `items`, one answer per item, in input order.

        `work` and `initializer` are module-level functions (sent by name); `initializer`
        runs once per worker process with `initargs` before its first chunk.
        """
        ...


@dataclass(frozen=True)
class Serial:
    """Everything in this process (`--jobs 1`)."""

    @property
    def parallel(self) -> bool:
        """Never: see `Engine.parallel`."""
        return False

    def start_early(self) -> None:
        """Nothing to start."""

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
        from toolgrade.scoring.workers import chunks

        if initializer is not None:
            initializer(*initargs)
        for chunk in chunks(items, chunk_size):
            try:
                yield from work(chunk)
            except Exception as exc:  # as a worker would: each item of the chunk answered
                yield from (crashed(item, f"{type(exc).__name__}: {exc}") for item in chunk)


@dataclass(frozen=True)
class LocalProcesses:
    """`jobs` worker processes on this machine (`--jobs N`: `scoring.workers`)."""

    jobs: int

    @property
    def parallel(self) -> bool:
        """With more than one worker: see `Engine.parallel`."""
        return self.jobs > 1

    def start_early(self) -> None:
        """Start the workers' fork server, whose imports then overlap the caller's work."""
        from toolgrade.scoring.workers import start_early

        start_early()

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
        """`workers.ordered_map` in `jobs` processes."""
        from toolgrade.scoring.workers import ordered_map

        return ordered_map(items, work, crashed, jobs=self.jobs, initializer=initializer,
                           initargs=initargs, chunk_size=chunk_size)


def engine_for(jobs: int) -> Engine:
    """The engine `--jobs N` means: this process for 1, N worker processes otherwise."""
    return LocalProcesses(jobs) if jobs > 1 else Serial()

