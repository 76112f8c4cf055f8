"""`toolgrade run --jobs N` and `--engine ray` scaling: the same runs graded with 1, 2, ...
worker processes, and by Ray tasks.

    python benchmarks/bench_jobs.py SUITE RUNS [--jobs 1,2,ray] [--ray-address A] [--repeats 1]

Each N runs the command line as a user does (`toolgrade run SUITE RUNS --no-judge -q --jobs N`,
reports included) in a fresh process; `ray` runs `--engine ray` instead (a local Ray instance
started and stopped by the command, its start-up included in the wall time; with
`--ray-address`, the cluster there, started beforehand). The figures are wall time, runs/s,
CPU time of every process involved (the parent, the fork server and its workers), the
parent's own CPU time, and the peak RSS of the largest one, best of `--repeats`. The outputs
of every N are compared byte for byte with those of the first. Prints one JSON object.

`ray`'s CPU seconds count Ray's own processes (its server, raylet and workers) as far as this
process waits for them (it adopts orphans); a cluster started beforehand is not counted.
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
    parser.add_argument("--jobs", default="1,2,ray",
                        help="comma-separated: worker counts, and `ray` for --engine ray")
    parser.add_argument("--ray-address", default=None,
                        help="the Ray cluster `ray` joins (default: a local instance per run)")
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    measured = absolute_pythonpath()
    before = os.getloadavg()
    n_runs = sum(1 for line in args.runs.open(encoding="utf-8") if line.strip())
    rows: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="toolgrade-jobs-") as tmp:
        first: Path | None = None
        for jobs in args.jobs.split(","):
            out = Path(tmp) / f"jobs-{jobs}"
            parent_cpu = Path(tmp) / f"parent-cpu-{jobs}"
            os.environ["TOOLGRADE_BENCH_PARENT_CPU"] = str(parent_cpu)
            command = [sys.executable, "-c", _PARENT_SHIM, "run", str(args.suite.resolve()),
                       str(args.runs.resolve()), "--out", str(out), "--no-judge", "-q",
                       *_engine_args(jobs, args.ray_address)]
            best: dict[str, float] = {}
            for _ in range(args.repeats):
                wall, cpu, rss = measure_command(command, cwd=Path(tmp))
                if not best or wall < best["wall_s"]:
                    best = {"wall_s": wall, "cpu_s": cpu, "peak_rss_mb": rss,
                            "parent_cpu_s": float(parent_cpu.read_text(encoding="utf-8"))}
            first = first or out
            same = all(filecmp.cmp(first / f, out / f, shallow=False) for f in OUTPUTS)
            rows[jobs] = {**best, "runs_per_s": n_runs / best["wall_s"],
                               "identical_to_first": same}
    first_row = rows[next(iter(rows))]
    for row in rows.values():
        row["speedup"] = row["runs_per_s"] / first_row["runs_per_s"]
        row["cpu_ratio"] = row["cpu_s"] / first_row["cpu_s"]
        row["cpu_us_per_run"] = row["cpu_s"] / n_runs * 1e6
        row["parent_cpu_us_per_run"] = row["parent_cpu_s"] / n_runs * 1e6
    if "ray" in rows and "2" in rows:  # the bound on Ray's overhead: >= 0.8x of this
        rows["ray"]["vs_jobs_2"] = rows["ray"]["runs_per_s"] / rows["2"]["runs_per_s"]
    json.dump({"toolgrade": measured, "n": n_runs, "cpus": len(os.sched_getaffinity(0)),
               "load_average_before": before, "load_average": os.getloadavg(), "jobs": rows},
              sys.stdout)
    print()


def _engine_args(jobs: str, address: str | None) -> list[str]:
    """The options a `--jobs` list entry stands for."""
    if jobs != "ray":
        return ["--jobs", str(int(jobs))]
    return ["--engine", "ray", *(["--address", address] if address else [])]


if __name__ == "__main__":
    main()
