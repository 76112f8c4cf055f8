"""What tool coverage costs `validate`: reading runs against a suite with `tools_from` (the
called tools collected) and against the same suite with its tools written inline (nothing
collected), serially and in two worker processes.

    python benchmarks/bench_validate_coverage.py [--runs 50000] [--repeats 3]

The runs are examples/mcp's eight recorded sessions written as plain `steps` lines (the fast
read path, where any extra work per run shows most), repeated with distinct trials. Each
configuration is timed `--repeats` times, round-robin, and the minimum kept. Prints one JSON
object: seconds (serial: CPU seconds; two workers: wall seconds) and runs per second per
configuration, and the ratio with/without coverage.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from toolgrade.loaders.catalogue import read_tools_from
from toolgrade.loaders.runs import iter_runs, run_files
from toolgrade.scoring import engines
from toolgrade.scoring.engines import Engine, LocalProcesses, Serial
from toolgrade.scoring.runner import validate_inputs

ROOT = Path(__file__).resolve().parent.parent
MCP = ROOT / "examples" / "mcp"


def write_inputs(folder: Path, n_runs: int) -> tuple[Path, Path, Path]:
    """The suite with `tools_from`, the same suite with its tools inline, and the runs."""
    shutil.copy(MCP / "tools.json", folder / "tools.json")
    with_catalogue = folder / "suite-tools-from.yaml"
    shutil.copy(MCP / "suite.yaml", with_catalogue)
    data = yaml.safe_load((MCP / "suite.yaml").read_text(encoding="utf-8"))
    catalogue, problems = read_tools_from(data.pop("tools_from"), with_catalogue, {},
                                          lambda schema: None)
    assert not problems, problems
    inline = folder / "suite-inline.yaml"
    inline.write_text(yaml.safe_dump({"tools": catalogue.tools, **data}), encoding="utf-8")
    recorded = [run for _, _, run, _ in iter_runs(run_files([MCP / "runs"])) if run is not None]
    runs = folder / "runs.jsonl"
    with runs.open("w", encoding="utf-8") as out:
        for i in range(n_runs):
            run = recorded[i % len(recorded)]
            line = run.model_dump(mode="json", exclude_none=True,
                                  include={"case_id", "agent", "steps"})
            out.write(json.dumps({**line, "trial": i}) + "\n")
    return with_catalogue, inline, runs


def timed(suite: Path, runs: Path, engine: Engine) -> tuple[float, bool]:
    """Seconds to validate (serially: this process's CPU time, which other work on the
    machine does not stretch; with workers: wall time), and whether called tools were
    collected."""
    clock = time.process_time if not engine.parallel else time.perf_counter
    start = clock()
    inputs = validate_inputs(suite, [runs], engine=engine)
    # getattr: the same script times versions from before tool coverage was read here.
    return clock() - start, getattr(inputs, "called_tools", None) is not None


def main() -> None:
    """Time each configuration and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        with_catalogue, inline, runs = write_inputs(Path(tmp), args.runs)
        configs = {f"{name}/{label}": (suite, engine)
                   for name, suite in (("tools_from", with_catalogue), ("inline", inline))
                   for label, engine in (("serial", Serial()), ("jobs2", LocalProcesses(2)))}
        size_mb = runs.stat().st_size / 2**20
        best: dict[str, float] = {}
        collected: dict[str, bool] = {}
        for _ in range(args.repeats):
            for name, (suite, engine) in configs.items():
                seconds, collected[name] = timed(suite, runs, engine)
                best[name] = min(best.get(name, seconds), seconds)
    figures: dict[str, Any] = {
        "runs": args.runs, "run_file_mb": round(size_mb, 1),
        "parallel_read_mb": round(engines.PARALLEL_BYTES / 2**20, 1),
        "configs": {name: {"seconds": round(s, 3), "runs_per_s": round(args.runs / s),
                           "called_tools_collected": collected[name]}
                    for name, s in best.items()},
        "ratio_serial": round(best["tools_from/serial"] / best["inline/serial"], 3),
        "ratio_jobs2": round(best["tools_from/jobs2"] / best["inline/jobs2"], 3),
    }
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
