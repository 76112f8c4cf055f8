"""`toolgrade run --jobs N` scaling: the same runs graded with 1, 2, ... worker processes.

    python benchmarks/bench_jobs.py SUITE RUNS [--jobs 1,2] [--repeats 1]

Each N runs the command line as a user does (`toolgrade run SUITE RUNS --no-judge -q --jobs N`,
reports included) in a fresh process; the figures are wall time, runs/s, CPU time of every
process involved (the parent, the fork server and its workers), the parent's own CPU time, and
the peak RSS of the largest one, best of `--repeats`. The outputs of every N are compared byte
for byte with those of the first. Prints one JSON object.

CPU seconds hold on a loaded machine where wall time does not: `cpu_ratio` (a row's CPU over
the first row's) is what caps the speed-up, since N busy processes on N cores give at most
N / cpu_ratio. The parent is run through a two-line shim (`_PARENT_SHIM`) that calls the same
entry point as the console script and writes its own CPU time to a file at exit.
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

from common import absolute_pythonpath, measure_command

#: The console script's entry point, plus the parent's own CPU seconds written at exit.
_PARENT_SHIM = (
    "import os, resource, sys\n"
    "from toolgrade.cli.main import app\n"
    "try:\n"
    "    app(sys.argv[1:], prog_name='toolgrade')\n"
    "finally:\n"
    "    use = resource.getrusage(resource.RUSAGE_SELF)\n"
    "    with open(os.environ['TOOLGRADE_BENCH_PARENT_CPU'], 'w') as fh:\n"
    "        fh.write(repr(use.ru_utime + use.ru_stime))\n"
)

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
    measured = absolute_pythonpath()
    before = os.getloadavg()
    n_runs = sum(1 for line in args.runs.open(encoding="utf-8") if line.strip())
    rows: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="toolgrade-jobs-") as tmp:
        first: Path | None = None
        for jobs in (int(j) for j in args.jobs.split(",")):
            out = Path(tmp) / f"jobs-{jobs}"
            parent_cpu = Path(tmp) / f"parent-cpu-{jobs}"
            os.environ["TOOLGRADE_BENCH_PARENT_CPU"] = str(parent_cpu)
            command = [sys.executable, "-c", _PARENT_SHIM, "run", str(args.suite.resolve()),
                       str(args.runs.resolve()), "--out", str(out), "--no-judge", "-q",
                       "--jobs", str(jobs)]
            best: dict[str, float] = {}
            for _ in range(args.repeats):
                wall, cpu, rss = measure_command(command, cwd=Path(tmp))
                if not best or wall < best["wall_s"]:
                    best = {"wall_s": wall, "cpu_s": cpu, "peak_rss_mb": rss,
                            "parent_cpu_s": float(parent_cpu.read_text(encoding="utf-8"))}
            first = first or out
            same = all(filecmp.cmp(first / f, out / f, shallow=False) for f in OUTPUTS)
            rows[str(jobs)] = {**best, "runs_per_s": n_runs / best["wall_s"],
                               "identical_to_first": same}
    first_row = rows[next(iter(rows))]
    for row in rows.values():
        row["speedup"] = row["runs_per_s"] / first_row["runs_per_s"]
        row["cpu_ratio"] = row["cpu_s"] / first_row["cpu_s"]
        row["cpu_us_per_run"] = row["cpu_s"] / n_runs * 1e6
        row["parent_cpu_us_per_run"] = row["parent_cpu_s"] / n_runs * 1e6
    json.dump({"toolgrade": measured, "n": n_runs, "cpus": len(os.sched_getaffinity(0)),
               "load_average_before": before, "load_average": os.getloadavg(), "jobs": rows},
              sys.stdout)
    print()


if __name__ == "__main__":
    main()
