"""The verdict cache shared by several processes (several `toolgrade run` on one --cache-dir,
or a run and `toolgrade calibrate`): every verdict any of them writes is read back by all."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from toolgrade.judging.cache import VerdictCache

WRITERS, EACH = 3, 40


def _write(directory: str, writer: int) -> None:
    cache = VerdictCache(Path(directory))
    try:
        for i in range(EACH):
            cache.set(f"{writer}-{i}", {"verdict": "pass", "reason": f"writer {writer} item {i}"})
            # Reads interleave with the other processes' writes.
            assert cache.get(f"{writer}-{i // 2}") is not None
    finally:
        cache.close()


def test_processes_writing_one_cache_lose_no_verdict(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    processes = [
        context.Process(target=_write, args=(str(tmp_path), w)) for w in range(WRITERS)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=120)
    assert [p.exitcode for p in processes] == [0] * WRITERS
    cache = VerdictCache(tmp_path)
    try:
        for writer in range(WRITERS):
            for i in range(EACH):
                record = cache.get(f"{writer}-{i}")
                assert record is not None and record["reason"] == f"writer {writer} item {i}"
    finally:
        cache.close()
