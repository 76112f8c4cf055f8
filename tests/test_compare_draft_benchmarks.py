"""The compare-gate simulation and the draft-agreement benchmark, kept from rotting.

No timing is asserted. The helpdesk agreement is the draft's Done-when figure (>= 90% of
per-check verdicts equal to the hand-written suite's): it is deterministic, so it is held here.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from script_modules import load_script

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def _load(name: str) -> ModuleType:
    return load_script(BENCH / f"{name}.py", f"bench_{name}")


def test_the_gate_simulation_is_seeded_and_gives_shares() -> None:
    gate = _load("compare_gate")
    first = gate.simulate(20, 1, reps=6, resamples=200, seed=1)
    assert first == gate.simulate(20, 1, reps=6, resamples=200, seed=1)
    for figures in first.values():
        assert 0.0 <= figures["false_alarm_rate"] <= 1.0
        assert 0.0 <= figures["power_at_10_points"] <= 1.0


def test_a_draft_from_the_strong_agent_grades_like_the_hand_suite(tmp_path: Path) -> None:
    agreement = _load("draft_agreement").helpdesk(tmp_path)
    assert agreement["pairs"] == 144  # 36 mid- and weak-agent runs, four checks each
    assert agreement["agreement"] >= 0.9, agreement["disagreements"]


def test_a_draft_from_tau2_airline_rewarded_runs_grades_like_the_imported_suite(
        tmp_path: Path) -> None:
    bench = _load("draft_agreement")
    if not bench.AIRLINE.is_file():
        pytest.skip(f"the shared tau2 fixture is not here: {bench.AIRLINE}")
    agreement = bench.airline(tmp_path)
    assert agreement["pairs"] == 148  # 13 rewarded runs and 24 altered copies, four checks each
    assert agreement["agreement"] >= 0.9, agreement["disagreements"]
