"""compare on the helpdesk example (strong and weak agents graded as two folders) against a
direct computation from their results files, and the rules for cases, gates and judges."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binomtest

from builders_comparison import aggregate_shares, graded
from toolgrade.comparison.compare import (
    Settings,
    compare_gradings,
    evaluate_drops,
    parse_max_drops,
)
from toolgrade.comparison.folders import read_grading
from toolgrade.comparison.model import FigureChange
from toolgrade.errors import ToolgradeError


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("graded")
    return {agent: graded(root / agent, agent) for agent in ("strong", "weak")}


def test_strong_against_weak_equals_a_direct_computation(folders: dict[str, Path]) -> None:
    base, new = aggregate_shares(folders["strong"]), aggregate_shares(folders["weak"])
    cases = sorted(base)
    diffs = np.array([new[c] - base[c] for c in cases])
    picks = np.random.default_rng(0).integers(0, len(cases), size=(10_000, len(cases)))
    low, high = np.quantile(diffs[picks].mean(axis=1), [0.025, 0.975])
    to_fail = sum(base[c] > 0.5 >= new[c] for c in cases)
    to_pass = sum(new[c] > 0.5 >= base[c] for c in cases)

    comparison = compare_gradings(read_grading(folders["strong"]), read_grading(folders["weak"]))
    aggregate = comparison.figure("aggregate.pass_rate")

    assert aggregate is not None and aggregate.cases == len(cases) == 18
    assert aggregate.difference == pytest.approx(diffs.mean())
    assert (aggregate.ci_low, aggregate.ci_high) == pytest.approx((low, high))
    assert (aggregate.to_fail, aggregate.to_pass) == (to_fail, to_pass)
    assert aggregate.mcnemar_p == pytest.approx(binomtest(to_fail, to_fail + to_pass).pvalue)
    assert comparison.same_suite and comparison.paired_by == "case"
    assert aggregate.difference < 0 and aggregate.ci_high < 0


def test_a_grading_against_itself_changes_nothing(folders: dict[str, Path]) -> None:
    grading = read_grading(folders["strong"])
    comparison = compare_gradings(grading, grading, Settings(max_drops={
        "aggregate.pass_rate": 0.0}))
    for figure in comparison.figures:
        assert figure.difference == 0 and figure.to_fail == figure.to_pass == 0
        assert figure.mcnemar_p == 1.0
    assert comparison.flips == [] and all(g.passed for g in comparison.gates)
    strong = comparison.figure("aggregate.pass_rate")
    assert strong is not None and strong.pass_hat_k is not None and strong.pass_hat_k.k == 3


def test_flips_name_the_failures_that_appeared_and_link_both_runs(
        folders: dict[str, Path]) -> None:
    comparison = compare_gradings(read_grading(folders["strong"]),
                                  read_grading(folders["weak"]))
    flip = next(f for f in comparison.flips if f.case == "cancel-order-03")
    assert flip.direction == "to_fail"
    assert "selection/forbidden_tool" in flip.appeared
    assert flip.base_run.startswith(str(folders["strong"] / "report.html") + "#run-")
    assert flip.new_run.startswith(str(folders["weak"] / "report.html") + "#run-")
    assert comparison.failures["selection/forbidden_tool"].new >= 1


def test_different_cases_compare_only_the_shared_ones_and_say_so(
        folders: dict[str, Path], tmp_path: Path) -> None:
    trimmed = tmp_path / "trimmed"
    trimmed.mkdir()
    lines = (folders["weak"] / "results.jsonl").read_text().splitlines()
    kept = [line for line in lines if json.loads(line)["case_id"] != "refund-damaged-01"]
    (trimmed / "results.jsonl").write_text("\n".join(kept) + "\n")
    (trimmed / "summary.json").write_text((folders["weak"] / "summary.json").read_text())
    comparison = compare_gradings(read_grading(folders["strong"]), read_grading(trimmed))
    assert comparison.cases == 17 and comparison.base_only == ["refund-damaged-01"]
    assert not comparison.same_suite
    assert "only the shared cases are compared" in comparison.suite_note


def test_a_different_judge_marks_judged_figures_not_like_for_like(
        folders: dict[str, Path], tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "results.jsonl").write_text((folders["weak"] / "results.jsonl").read_text())
    summary = json.loads((folders["weak"] / "summary.json").read_text())
    summary["judges"]["argument_equivalence"]["model"] = "openai/gpt-4o-mini"
    (other / "summary.json").write_text(json.dumps(summary))
    comparison = compare_gradings(read_grading(folders["strong"]), read_grading(other))
    assert "argument_equivalence" in comparison.judges_differ
    like = {f.figure: f.like_for_like for f in comparison.figures}
    assert like == {"aggregate.pass_rate": False, "selection.pass_rate": True,
                    "arguments.pass_rate": False, "ordering.pass_rate": True,
                    "recovery.pass_rate": True}


def _change(difference: float, low: float, high: float) -> FigureChange:
    return FigureChange(figure="aggregate.pass_rate", cases=10, base=0.8, new=0.8 + difference,
                        difference=difference, ci_low=low, ci_high=high, to_fail=0, to_pass=0,
                        mcnemar_p=1.0)


@pytest.mark.parametrize(("difference", "low", "high", "passed"), [
    (-0.10, -0.2, -0.01, False),  # drop over the maximum, interval below 0: fails
    (-0.10, -0.2, 0.05, True),    # over the maximum but within noise: holds
    (-0.01, -0.02, -0.005, True),  # a real drop, under the maximum: holds
    (0.10, 0.01, 0.2, True),      # a rise
])
def test_a_drop_gate_fails_only_beyond_the_maximum_and_the_noise(
        difference: float, low: float, high: float, passed: bool) -> None:
    [gate] = evaluate_drops([_change(difference, low, high)], {"aggregate.pass_rate": 0.02})
    assert gate.passed is passed
    assert gate.message().startswith("gate ok:" if passed else "gate FAILED:")


@pytest.mark.parametrize("spec", ["aggregate.pass_rate", "nope=0.1",
                                  "aggregate.pass_rate=x", "aggregate.pass_rate=1.5"])
def test_a_bad_max_drop_is_refused_by_name(spec: str) -> None:
    with pytest.raises(ValueError, match="--max-drop"):
        parse_max_drops([spec])


def test_a_folder_without_results_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ToolgradeError, match=r"no results\.jsonl or summary\.json"):
        read_grading(tmp_path)
    (tmp_path / "results.jsonl").write_text("{}\n")
    (tmp_path / "summary.json").write_text("[")
    with pytest.raises(ToolgradeError, match=r"summary\.json: not readable JSON"):
        read_grading(tmp_path)


def test_different_suites_are_told_by_their_recorded_sha256(
        folders: dict[str, Path], tmp_path: Path) -> None:
    other = tmp_path / "other-suite"
    other.mkdir()
    (other / "results.jsonl").write_text((folders["weak"] / "results.jsonl").read_text())
    summary = json.loads((folders["weak"] / "summary.json").read_text())
    assert len(summary["suite_sha256"]) == 64  # run records it
    summary["suite_sha256"] = "0" * 64
    (other / "summary.json").write_text(json.dumps(summary))
    comparison = compare_gradings(read_grading(folders["strong"]), read_grading(other))
    assert not comparison.same_suite and comparison.cases == 18
    assert comparison.suite_note.startswith("different suites (sha256 recorded at grading)")


def test_no_shared_case_compares_nothing_and_fails_no_gate(
        folders: dict[str, Path], tmp_path: Path) -> None:
    from toolgrade.comparison.render import render_html, render_markdown

    other = tmp_path / "renamed"
    other.mkdir()
    lines = [json.loads(line) for line in (folders["weak"] / "results.jsonl").read_text()
             .splitlines()]
    (other / "results.jsonl").write_text("".join(
        json.dumps({**r, "case_id": "x-" + r["case_id"]}) + "\n" for r in lines))
    (other / "summary.json").write_text((folders["weak"] / "summary.json").read_text())
    comparison = compare_gradings(read_grading(folders["strong"]), read_grading(other),
                                  Settings(max_drops={"aggregate.pass_rate": 0.02}))
    assert comparison.cases == 0 and len(comparison.new_only) == 18
    assert all(f.difference is None and f.mcnemar_p is None for f in comparison.figures)
    [gate] = comparison.gates
    assert gate.passed and "n/a" in gate.message()
    dash = "\N{EN DASH}"
    assert f"| aggregate.pass\\_rate | 0 | {dash} | {dash} |" in render_markdown(comparison)
    assert "Cases not compared" in render_html(comparison, tmp_path)
