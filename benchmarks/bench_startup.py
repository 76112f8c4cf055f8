"""Start-up: what a command costs before it does its work, as a ratio to `python -c pass`.

    python benchmarks/bench_startup.py [--repeats 7]

Each command runs `--repeats` times, round-robin with the others so that a noisy moment hits
them alike; the figure is the minimum wall time and the minimum CPU time (user + sys of the
process and everything it started), each also as a multiple of `python -c pass` measured in
the same run. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from common import absolute_pythonpath, measure_command

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "helpdesk" / "suite.yaml"
BFCL = ROOT / "tests" / "importers" / "data"


def toolgrade_command() -> list[str]:
    """The console script beside this interpreter, as a user runs it; else `-m toolgrade`."""
    script = Path(sys.executable).parent / "toolgrade"
    return [str(script)] if script.exists() else [sys.executable, "-m", "toolgrade"]


def commands(out: Path) -> dict[str, list[str]]:
    """The measured commands by the name the table gives them."""
    tg = toolgrade_command()
    bfcl = [str(BFCL / "bfcl_questions.json"), str(BFCL / "bfcl_answers.json")]
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "toolgrade --help": [*tg, "--help"],
        "toolgrade validate examples/helpdesk/suite.yaml": [*tg, "validate", str(EXAMPLE)],
        "toolgrade import bfcl (a 3-entry file)": [*tg, "import", "bfcl", *bfcl, "--out",
                                                   str(out)],
    }


def main() -> None:
    """Command line: measure each command and print a JSON object."""
    parser = argparse.ArgumentParser(description="toolgrade start-up")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    measured = absolute_pythonpath()
    with tempfile.TemporaryDirectory(prefix="toolgrade-startup-") as tmp:
        named = commands(Path(tmp) / "bfcl")
        best: dict[str, dict[str, float]] = {}
        for _ in range(args.repeats):
            for name, command in named.items():
                wall, cpu, _ = measure_command(command, cwd=ROOT)
                seen = best.setdefault(name, {"wall_s": wall, "cpu_s": cpu})
                seen["wall_s"], seen["cpu_s"] = min(seen["wall_s"], wall), min(seen["cpu_s"], cpu)
    base = best["python -c pass"]
    out: dict[str, Any] = {"toolgrade": measured, "repeats": args.repeats,
                           "load_average": os.getloadavg(), "commands": {}}
    for name, figures in best.items():
        out["commands"][name] = {
            **figures,
            "wall_ratio": figures["wall_s"] / base["wall_s"],
            "cpu_ratio": figures["cpu_s"] / max(base["cpu_s"], 1e-3),
        }
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main()
