"""`toolgrade run --jobs N` scaling: the same runs graded with 1, 2, ... worker processes.

    python benchmarks/bench_jobs.py SUITE RUNS [--jobs 1,2] [--repeats 1]

Each N runs the command line as a user does (`toolgrade run SUITE RUNS --no-judge -q --jobs N`,
reports included) in a fresh process; the figures are wall time, runs/s, CPU time of every
process involved (the parent, the fork server and its workers) and the peak RSS of the largest
one, best of `--repeats`. The outputs of every N are compared byte for byte with those of the
first. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench_startup import toolgrade_command
from common import measure_command

OUTPUTS = ("results.jsonl", "transcripts.jsonl", "summary.json", "report.md", "report.html",
           "junit.xml")


def main() -> None:
    """Command line: one row per --jobs value, as JSON."""
    parser = argparse.ArgumentParser(description="toolgrade run --jobs scaling")
    parser.add_argument("suite", type=Path)
    parser.add_argument("runs", type=Path)
    parser.add_argument("--jobs", default="1,2")
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    n_runs = sum(1 for line in args.runs.open(encoding="utf-8") if line.strip())
    rows: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="toolgrade-jobs-") as tmp:
        first: Path | None = None
        for jobs in (int(j) for j in args.jobs.split(",")):
            out = Path(tmp) / f"jobs-{jobs}"
            command = [*toolgrade_command(), "run", str(args.suite.resolve()),
                       str(args.runs.resolve()), "--out", str(out), "--no-judge", "-q",
                       "--jobs", str(jobs)]
            best: dict[str, float] = {}
            for _ in range(args.repeats):
                wall, cpu, rss = measure_command(command, cwd=Path(tmp))
                if not best or wall < best["wall_s"]:
                    best = {"wall_s": wall, "cpu_s": cpu, "peak_rss_mb": rss}
            first = first or out
            same = all(filecmp.cmp(first / f, out / f, shallow=False) for f in OUTPUTS)
            rows[str(jobs)] = {**best, "runs_per_s": n_runs / best["wall_s"],
                               "identical_to_first": same}
    base = rows[next(iter(rows))]["runs_per_s"]
    for row in rows.values():
        row["speedup"] = row["runs_per_s"] / base
    json.dump({"n": n_runs, "cpus": len(os.sched_getaffinity(0)), "load_average":
               os.getloadavg(), "jobs": rows}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
