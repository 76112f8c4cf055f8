"""Throughput and memory of the four deterministic checks, against the read-and-validate floor.

Run once per N in a fresh process (run_all.py does), so that the peak RSS belongs to that N:

    python benchmarks/bench_checks.py SUITE RUNS [--skip-stream]

Prints one JSON object. Phases, in order:

1. `runner`: `validate_inputs` then `grade(...)` to a temporary folder, no judge: what
   `toolgrade run --no-judge` does, results.jsonl and summary included. Peak RSS after each.
2. `stream`: one pass over the same lines, timing separately the runner's own reading of a line
   (`read_line`: parsed and validated into a Trajectory, in one pydantic-core call for plain
   lines), the four checks (`grade_trajectory`), and `json.loads` plus a Counter-based P/R/F1 on
   the names (the naive baseline). The floor is the reading.
3. `seen`: the bytes the runner's duplicate-run index (`_SeenRuns`) holds at N, measured by
   filling one under tracemalloc.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from common import Clock, counter_prf, iter_lines, peak_rss_mb, rate

from toolgrade.checks import default_checks
from toolgrade.loaders import Suite, load_suite
from toolgrade.loaders.runs import read_line
from toolgrade.scoring.inputs import _SeenRuns
from toolgrade.scoring.runner import grade, grade_trajectory, validate_inputs


def bench_runner(suite: Path, runs: Path) -> dict[str, Any]:
    """Time the real runner path; peak RSS after validation and after grading."""
    start = time.perf_counter()
    inputs = validate_inputs(suite, [runs])
    validated = time.perf_counter()
    rss_validate = peak_rss_mb()
    with tempfile.TemporaryDirectory() as out:
        graded_start = time.perf_counter()
        output = grade(inputs, Path(out))
        done = time.perf_counter()
        errors = output.summary.errors
    n = inputs.n_runs
    return {
        "n": n,
        "validate_s": validated - start,
        "grade_s": done - graded_start,
        "runs_per_s": rate(n, done - start),
        "grade_runs_per_s": rate(n, done - graded_start),
        "peak_rss_validate_mb": rss_validate,
        "peak_rss_grade_mb": peak_rss_mb(),
        "check_errors": errors,
    }


def bench_stream(suite: Suite, runs: Path) -> dict[str, Any]:
    """Per-line phases: reading the line (the floor), the four checks, the Counter baseline."""
    checks = default_checks()
    clock = Clock()
    n = 0
    for number, line in enumerate(iter_lines(runs), start=1):
        trajectory, problems = clock.timed(
            "read", lambda line=line, k=number: read_line(line, runs, k)
        )
        assert trajectory is not None, f"line {number}: {problems}"
        value = clock.timed("json", lambda line=line: json.loads(line))
        case = suite.cases[trajectory.case_id]
        clock.timed("checks", lambda c=case, t=trajectory: grade_trajectory(
            c, t, checks, None, suite.base_dir))
        expected = case.expected.selection.tools if case.expected.selection else []
        clock.timed("counter", lambda v=value, e=expected: counter_prf(
            e, [s["tool"] for s in v["steps"] if "tool" in s]))
        n += 1
    t = clock.totals
    floor = t["read"]
    return {
        "n": n,
        "read_s": t["read"],
        "checks_s": t["checks"],
        "floor_runs_per_s": rate(n, floor),
        "checks_runs_per_s": rate(n, t["checks"]),
        "end_to_end_runs_per_s": rate(n, floor + t["checks"]),
        "ratio_to_floor": (floor + t["checks"]) / floor if floor else None,
        "naive_runs_per_s": rate(n, t["json"] + t["counter"]),
        "peak_rss_mb": peak_rss_mb(),
    }


def bench_seen(runs: Path) -> dict[str, Any]:
    """Bytes held by the runner's own duplicate-run index (`_SeenRuns`) after these runs."""
    keys = []
    for number, line in enumerate(iter_lines(runs), start=1):
        value = json.loads(line)
        keys.append((_Key(value["case_id"], value.get("trial", 0), value.get("agent")), number))
    gc.collect()
    tracemalloc.start()
    seen = _SeenRuns()
    for key, number in keys:
        seen.first_or_add(key, str(runs), number)  # type: ignore[arg-type]
    size, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    n = len(keys)
    return {"n": n, "bytes": size, "bytes_per_run": size / max(n, 1)}


class _Key:
    """The three fields of a trajectory `_SeenRuns` reads, without building the trajectory."""

    __slots__ = ("agent", "case_id", "trial")

    def __init__(self, case_id: str, trial: int, agent: str | None) -> None:
        self.case_id, self.trial, self.agent = case_id, trial, agent


def main() -> None:
    """Command line: measure one N and print a JSON object."""
    parser = argparse.ArgumentParser(description="toolgrade checks throughput and memory")
    parser.add_argument("suite", type=Path)
    parser.add_argument("runs", type=Path)
    parser.add_argument("--skip-stream", action="store_true",
                        help="only the runner pass (for the largest N when time is short)")
    args = parser.parse_args()
    out: dict[str, Any] = {"rss_after_imports_mb": peak_rss_mb()}
    start = time.perf_counter()
    suite = load_suite(args.suite)
    out["suite_load_s"] = time.perf_counter() - start
    out["rss_after_suite_mb"] = peak_rss_mb()
    out["runner"] = bench_runner(args.suite, args.runs)
    if not args.skip_stream:
        out["stream"] = bench_stream(suite, args.runs)
    out["seen"] = bench_seen(args.runs)
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main()
