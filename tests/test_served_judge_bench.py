"""Smoke test of `benchmarks/served_judge.py`: a small run prints its figures, none lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from script_modules import load_script

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "served_judge.py"


def test_a_small_served_run_makes_every_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_script(BENCH, "bench_served_judge")
    assert bench.main(["--items", "12", "--fault-rate", "0.25", "--cap", "2", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert (figures["verdicts_made"], figures["verdicts_unscored"], figures["lost"]) == (12, 0, 0)
    assert figures["faults_injected"] >= 3 and figures["max_in_flight_at_server"] <= 2
