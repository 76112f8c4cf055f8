"""Smoke test of benchmarks/bench_viewer.py on 60 graded runs (no timing asserted)."""

from __future__ import annotations

from pathlib import Path

import pytest

from script_modules import load_script

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_viewer.py"


def test_the_viewer_benchmark_indexes_and_fetches_every_page(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bench = load_script(SCRIPT, "bench_viewer")
    assert bench.main(["--runs", "60", "--repeats", "1"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("indexed 60 runs")
    timed = [line.split()[0] for line in printed[2:]]
    assert len(timed) == 11 and timed[0] == "list" and timed[-1] == "run"
