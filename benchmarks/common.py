"""Helpers shared by the benchmark scripts: memory, timing, our per-run figures.

Kept free of peer imports so that `bench_checks.py` runs in the project's own virtualenv.
"""

from __future__ import annotations

import resource
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from toolgrade.models import TrajectoryResult

#: Environment that keeps peer libraries offline: no telemetry, tracing or dotenv reads.
OFFLINE_ENV = {
    "DEEPEVAL_TELEMETRY_OPT_OUT": "YES",
    "DEEPEVAL_DISABLE_DOTENV": "1",
    "DEEPEVAL_GRPC_LOGGING": "NO",
    "ERROR_REPORTING": "NO",
    "DO_NOT_TRACK": "1",
    "LANGSMITH_TRACING": "false",
    "LANGCHAIN_TRACING_V2": "false",
    "LOGFIRE_IGNORE_NO_CONFIG": "1",
    "LOGFIRE_SEND_TO_LOGFIRE": "false",
    "OTEL_SDK_DISABLED": "true",
}


def peak_rss_mb() -> float:
    """This process's peak resident set size so far, in MiB (ru_maxrss is KiB on Linux)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def iter_lines(path: Path) -> Iterator[str]:
    """The non-blank lines of a JSONL file, streamed."""
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield line


class Clock:
    """Accumulates wall time per named phase (perf_counter, about 0.1 us per reading)."""

    def __init__(self) -> None:
        self.totals: Counter[str] = Counter()

    def timed(self, phase: str, fn: Callable[[], Any]) -> Any:
        """Run `fn`, add its wall time to `phase`, return its value."""
        start = time.perf_counter()
        value = fn()
        self.totals[phase] += time.perf_counter() - start
        return value


def counter_prf(expected: list[str], called: list[str]) -> tuple[float, float, float]:
    """The naive baseline: multiset precision, recall and F1 with a Counter."""
    overlap = sum((Counter(expected) & Counter(called)).values())
    precision = overlap / len(called) if called else 1.0
    recall = overlap / len(expected) if expected else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def mode_held(record: TrajectoryResult) -> bool | None:
    """Whether our ordering check's whole-sequence mode held (None: no mode on the case)."""
    result = record.checks.get("ordering")
    if result is None or not result.applicable:
        return None
    return not any(f.name == "order_violation" and "mode" in f.evidence for f in result.failures)


def selection_passed(record: TrajectoryResult) -> bool | None:
    """Our selection check's verdict."""
    result = record.checks.get("selection")
    return None if result is None or not result.applicable else bool(result.passed)


def rate(n: int, seconds: float) -> float:
    """Runs per second (0 when nothing was timed)."""
    return n / seconds if seconds > 0 else 0.0


def _adopt_orphans() -> None:
    """Become the reaper of our descendants' orphans (Linux), so that the CPU time of worker
    processes started through a fork server, which outlive their parent by a moment, is still
    counted in RUSAGE_CHILDREN once they are waited for."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def absolute_pythonpath() -> str:
    """Make PYTHONPATH's entries absolute, for commands run in another folder (a relative
    `PYTHONPATH=../src` names another folder there, and the installed toolgrade would be
    measured instead of this tree's); return the toolgrade package they import."""
    import os

    entries = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    os.environ["PYTHONPATH"] = os.pathsep.join(os.path.abspath(e) for e in entries if e)
    import toolgrade

    return str(Path(toolgrade.__file__).resolve().parent)


def measure_command(command: list[str], cwd: Path) -> tuple[float, float, float]:
    """Run `command` to completion: (wall s, CPU s of it and every process it started, peak
    RSS MiB of the largest of them). Output is discarded; a failure raises."""
    import os
    import subprocess

    _adopt_orphans()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    while True:  # the fork server and its workers, if any were left to us
        try:
            os.wait()
        except ChildProcessError:
            break
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss / 1024
