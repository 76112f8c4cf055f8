"""Smoke test of the benchmark inputs: the synthetic generator and our checks on 50 runs.

No timing is asserted (benchmarks are scripts, not tests); this only keeps the generator and the
shape of its output from rotting.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

from script_modules import load_script
from toolgrade.loaders import load_suite
from toolgrade.scoring.runner import grade, validate_inputs

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def _load(name: str) -> ModuleType:
    return load_script(BENCH / f"{name}.py", f"bench_{name}")


def test_synthetic_runs_are_deterministic_and_shaped(tmp_path: Path) -> None:
    synth = _load("synth")
    _, runs_a = synth.write_synthetic(tmp_path / "a", 50, n_cases=10, seed=3)
    _, runs_b = synth.write_synthetic(tmp_path / "b", 50, n_cases=10, seed=3)
    assert runs_a.read_text() == runs_b.read_text()
    lines = [json.loads(line) for line in runs_a.read_text().splitlines()]
    assert len(lines) == 50
    n_calls = [sum("tool" in s for s in run["steps"]) for run in lines]
    assert 8 <= sum(n_calls) / len(n_calls) <= 12.5
    assert any("group" in s for run in lines for s in run["steps"])
    assert any(s.get("result", {}).get("status") == "error" for run in lines for s in run["steps"])


def test_our_checks_grade_every_synthetic_run(tmp_path: Path) -> None:
    synth = _load("synth")
    suite, runs = synth.write_synthetic(tmp_path / "in", 50, n_cases=20, seed=12)
    inputs = validate_inputs(suite, [runs])
    output = grade(inputs, tmp_path / "out")
    summary = output.summary.to_data()
    assert summary["trajectories"] == 50
    assert summary["errors"] == 0
    # A realistic mix: some runs pass every check, some fail one.
    assert 0.0 < summary["aggregate"]["pass_rate"] < 1.0
    for check in ("selection", "arguments", "ordering", "recovery"):
        assert summary["checks"][check]["applicable"] > 0


def test_the_targets_table_says_which_targets_are_met() -> None:
    run_all = _load("run_all")
    rates = {"toolgrade": 1000.0, "agentevals": 90.0, "deepeval": 110.0, "pydantic-evals": 600.0,
             "lean bound: 4 bare verdicts": 3000.0}
    peers = {1000: {"runs_per_s": rates}, 10000: {"error": "boom"}}
    checks = {
        1000: {"runner": {"peak_rss_grade_mb": 100.0}, "stream": {"ratio_to_floor": 3.5}},
        100000: {"runner": {"peak_rss_grade_mb": 109.0}},
    }
    rows = run_all.target_rows(checks, peers)
    cells = [[c.strip() for c in row.strip("|").split("|")] for row in rows[2:]]
    met = {target: verdict for target, _, verdict in cells}
    measured = {target: figure for target, figure, _ in cells}
    assert measured[">= 10x agentevals"].endswith("lean bound 33.33x)")
    assert met == {
        ">= 2x agentevals": "yes",
        ">= 2x deepeval": "yes",
        ">= 10x agentevals": "yes",
        ">= 10x deepeval": "no",
        ">= 1.5x pydantic-evals": "yes",
        "within 3x of the read-and-validate floor": "no",
        "flat memory (peak RSS grows under 10%)": "yes",
    }


def test_the_lean_bound_gives_four_verdicts_that_vary(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    synth, lean = _load("synth"), _load("lean_bound")
    suite_path, runs = synth.write_synthetic(tmp_path / "in", 60, n_cases=20, seed=5)
    suite = load_suite(suite_path)
    plans = {cid: lean.case_plan(case) for cid, case in suite.cases.items()}
    results = [lean.verdicts(line, plans) for line in runs.read_text().splitlines()]
    assert all(len(r) == 4 and all(type(v) is bool for v in r) for r in results)
    # Selection, arguments and ordering both hold and fail somewhere in a realistic mix (three
    # errors in a row, the recovery verdict's only failure, are rare in 60 runs).
    for k in range(3):
        assert {r[k] for r in results} == {True, False}, k


def test_importer_agreement_measures_small_files(tmp_path: Path) -> None:
    from builders_importers import TAU_RUNS, TAU_TASKS, tau2_results

    agreement = _load("importer_agreement")
    results = tmp_path / "tau2.json"
    results.write_text(json.dumps(tau2_results()))
    tau2 = agreement.measure_tau2(results, tmp_path)
    assert (tau2["agent_actions"], tau2["agreement"]) == (3, 1.0)
    tau = agreement.measure_tau_bench(TAU_TASKS, TAU_RUNS, tmp_path, seed=0)
    # 19 runs plus one missing_mention run for the one task with outputs.
    assert tau["runs"] == 20 and tau["agreement_by_kind"]["correct"] == 1.0
    assert tau["agreement_by_kind"]["missing_mention"] == 1.0
    assert tau["aggregate_auc"] is not None
    assert agreement.auc([0.0, 1.0, 1.0], [0, 1, 0]) == 0.75


def test_tau2_agreement_separates_reward_per_domain(tmp_path: Path) -> None:
    bench = _load("tau2_agreement")
    for domain, tasks, solo in (("airline", bench._airline_tasks(), False),
                                ("retail", bench._retail_tasks(), False),
                                ("telecom", bench._telecom_solo_tasks(), True)):
        figures = bench.measure(domain, tasks, solo, tmp_path, seed=0)
        assert 0 < figures["reward_1"] < figures["runs"], domain
        assert figures["aggregate_auc"] >= 0.9, (domain, figures)
        assert figures["action_agreement"] >= 0.97, (domain, figures)


def test_the_mcp_proxy_benchmark_records_every_call() -> None:
    bench = _load("bench_mcp_proxy")
    figures = bench.measure(200)
    assert figures["calls_recorded"] == 200
    assert figures["added_per_message_median_ms"] is not None


def test_tau2_agreement_reads_a_real_results_file(tmp_path: Path) -> None:
    import random
    bench = _load("tau2_agreement")
    tasks = bench._airline_tasks()
    from toolgrade.importers.tau_domains import WRITE_TOOLS
    sims = bench.simulations(tasks, WRITE_TOOLS["airline"], False, random.Random(0))
    path = tmp_path / "airline.json"
    path.write_text(json.dumps(bench.results_file("airline", tasks, sims, False)))
    figures = bench.measure_file(path, tmp_path)
    assert figures["runs"] == len(sims) and 0 < figures["reward_1"] < figures["runs"]
    assert figures["aggregate_auc"] >= 0.9


def test_the_signals_judge_benchmark_reports_every_dimension_with_signals(capsys: Any) -> None:
    bench = _load("signals_judge")
    assert bench.main(["--sets", str(BENCH / "judge_dev")]) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if not ln.startswith(" ")]
    assert [ln.split(":")[0] for ln in lines] == [
        "alternate_route", "recovery_quality", "result_interpretation"]
    assert all("kappa" in ln and "ms per item" in ln for ln in lines)
