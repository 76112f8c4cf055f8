"""The runner: a results line per trajectory, crashes as data, docs/contract.md's summary keys."""

from __future__ import annotations

import json
from pathlib import Path

from builders_foundation import SIMPLE_CASE, steps_run, write_jsonl, write_yaml_suite
from toolgrade.checks import GradeContext, default_checks
from toolgrade.checks.base import PassRateAccumulator
from toolgrade.models import Case, CheckName, CheckResult, Trajectory
from toolgrade.scoring.runner import grade, validate_inputs


class ExplodingCheck:
    """A check that always raises, to show a crash becomes data."""

    name: CheckName = "recovery"

    def grade(self, case: Case, run: Trajectory, ctx: GradeContext) -> CheckResult:
        raise RuntimeError("kaboom")

    def accumulator(self) -> PassRateAccumulator:
        return PassRateAccumulator(self.name)


def _inputs(tmp_path: Path, runs: list[dict[str, object]]):  # type: ignore[no-untyped-def]
    suite = write_yaml_suite(tmp_path, SIMPLE_CASE)
    return validate_inputs(suite, [write_jsonl(tmp_path / "runs.jsonl", runs)])


GOOD = steps_run(
    "c1", ("lookup_order", {"order_id": "A1"}), ("refund", {"order_id": "A1", "amount": 10})
)
BAD = steps_run("c1", ("refund", {"order_id": "A1", "amount": 99}), trial=1)


def test_results_and_summary_keys(tmp_path: Path) -> None:
    output = grade(_inputs(tmp_path, [GOOD, BAD]), tmp_path / "out")
    lines = [json.loads(line) for line in output.results_path.read_text().splitlines()]
    assert [(r["case_id"], r["trial"]) for r in lines] == [("c1", 0), ("c1", 1)]
    first = lines[0]
    assert set(first) >= {"case_id", "trial", "agent", "checks", "aggregate", "judges"}
    assert set(first["checks"]) == {"selection", "arguments", "ordering", "recovery"}
    sel = first["checks"]["selection"]
    assert set(sel) >= {
        "applicable",
        "score",
        "passed",
        "failures",
        "tp",
        "fp",
        "fn",
        "precision",
        "recall",
        "f1",
    }
    assert first["aggregate"]["passed"] is True and lines[1]["aggregate"]["passed"] is False
    assert first["checks"]["recovery"]["applicable"] is False

    summary = output.summary.to_data()
    assert summary["cases"] == 1 and summary["trajectories"] == 2
    assert set(summary) >= {
        "cases",
        "trajectories",
        "checks",
        "failures",
        "aggregate",
        "reliability",
    }
    assert summary["aggregate"]["pass_rate"] == 0.5
    assert summary["reliability"]["c1"]["n"] == 2 and summary["reliability"]["c1"]["c"] == 1
    assert summary["failures"].get("missing_tool", 0) >= 1
    assert summary["failures"]["order_violation"] == 1  # refund with no lookup before it


def test_a_crashing_check_becomes_data_and_the_run_goes_on(tmp_path: Path) -> None:
    checks = [*default_checks()[:3], ExplodingCheck()]
    output = grade(_inputs(tmp_path, [GOOD, BAD]), tmp_path / "out", checks=checks)  # type: ignore[list-item]
    lines = [json.loads(line) for line in output.results_path.read_text().splitlines()]
    assert len(lines) == 2
    assert all("kaboom" in line["error"] for line in lines)
    assert lines[0]["checks"]["recovery"]["passed"] is None
    assert lines[0]["aggregate"]["passed"] is False  # a crash never passes
    assert lines[0]["checks"]["selection"]["passed"] is True  # the other checks still graded
    assert output.summary.errors == 2


class ExplodingOrdering(ExplodingCheck):
    name: CheckName = "ordering"


def test_errors_count_crashed_checks_not_trajectories(tmp_path: Path) -> None:
    checks = [*default_checks()[:2], ExplodingOrdering(), ExplodingCheck()]
    output = grade(_inputs(tmp_path, [GOOD]), tmp_path / "out", checks=checks)  # type: ignore[list-item]
    assert output.summary.errors == 2  # one trajectory, two crashed checks


def test_several_agents_keep_reliability_apart(tmp_path: Path) -> None:
    runs = [{**GOOD, "agent": "x"}, {**GOOD, "agent": "y"}, {**BAD, "agent": "y"}]
    output = grade(_inputs(tmp_path, runs), tmp_path / "out")
    reliability = output.summary.to_data()["reliability"]
    assert set(reliability) == {"c1@x", "c1@y"}
    assert reliability["c1@y"]["n"] == 2
    assert set(output.summary.to_data()["agents"]) == {"x", "y"}
    assert output.summary.to_data()["agents"]["x"]["pass_rate"] == 1.0


def test_progress_hook_sees_every_run(tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    grade(
        _inputs(tmp_path, [GOOD, BAD]), tmp_path / "out", progress=lambda d, t: seen.append((d, t))
    )
    assert seen == [(1, 2), (2, 2)]


def test_cases_no_run_names_are_listed_in_the_summary_only_when_there_are_some(
    tmp_path: Path,
) -> None:
    suite = write_yaml_suite(tmp_path, SIMPLE_CASE + SIMPLE_CASE.replace("c1", "c2"))
    inputs = validate_inputs(suite, [write_jsonl(tmp_path / "runs.jsonl", [GOOD])])
    output = grade(inputs, tmp_path / "out")
    assert output.summary.cases == 2
    assert output.summary.cases_without_runs == ["c2"]
    (tmp_path / "all").mkdir()
    every = grade(_inputs(tmp_path / "all", [GOOD]), tmp_path / "out2")
    assert "cases_without_runs" not in every.summary.to_data()
