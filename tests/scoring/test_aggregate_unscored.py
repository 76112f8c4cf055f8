"""A run's aggregate with unscored checks (docs/reports.md): `pass` only if it passes with each
unscored check counted 0, `fail` only if it fails with each counted full marks, else `unscored`
naming the checks that keep it open."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolgrade.cli.main import app
from toolgrade.loaders.suite import load_suite
from toolgrade.models import CheckName, CheckResult, Scoring
from toolgrade.scoring.grading import _decide, aggregate

HELPDESK = Path(__file__).parents[2] / "examples" / "helpdesk"
UNDECIDED = {"unscored_fields": [
    {"tool": "refund", "field": "reason", "step": 2, "reason": "no judge configured"}
]}


def r(check: CheckName, score: float, passed: bool) -> CheckResult:
    return CheckResult(check=check, applicable=True, score=score, passed=passed)


def undecided(score: float) -> CheckResult:
    return CheckResult(check="arguments", applicable=True, score=score, passed=False,
                       figures=UNDECIDED)


@pytest.mark.parametrize(
    ("selection", "threshold", "status"),
    [
        (1.0, 0.6, "pass"),  # (1 + 0 + 1) / 3 still reaches 0.6
        (1.0, 0.9, "unscored"),  # 2/3 with arguments at 0, 1 with it at full marks
        (0.0, 0.9, "fail"),  # 2/3 even with arguments at full marks
    ],
)
def test_weighted_reads_the_unscored_check_at_0_and_at_full_marks(
    selection: float, threshold: float, status: str
) -> None:
    results = {"selection": r("selection", selection, selection == 1.0),
               "arguments": undecided(1.0), "ordering": r("ordering", 1.0, True)}
    agg = aggregate(results, Scoring(mode="weighted", threshold=threshold))
    assert agg.status == status and agg.passed is (status == "pass")
    assert agg.unscored_checks == (("arguments",) if status == "unscored" else ())
    assert agg.score == pytest.approx((selection + 2) / 3)  # the score as graded stays shown


def test_hybrid_with_an_unscored_required_check_is_unscored() -> None:
    results = {"selection": r("selection", 1.0, True), "arguments": undecided(1.0)}
    agg = aggregate(results, Scoring(mode="hybrid", threshold=0.5, required=["arguments"]))
    assert (agg.status, agg.passed, agg.unscored_checks) == ("unscored", False, ("arguments",))


def test_a_plain_failure_is_no_unscored_check() -> None:
    results = {"selection": r("selection", 1.0, True), "arguments": r("arguments", 1.0, False)}
    agg = aggregate(results, Scoring(mode="weighted", threshold=0.5))
    assert (agg.status, agg.passed) == (None, True)  # as before: the status follows `passed`


def test_helpdesk_without_a_judge_passes_no_run_an_unscored_check_decides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["run", str(HELPDESK / "suite.yaml"), str(HELPDESK / "runs"),
                                      "--out", str(out), "--no-judge", "-q"])
    assert result.exit_code in (0, 1), result.output
    cases = load_suite(HELPDESK / "suite.yaml").cases
    lines = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    seen_open = 0
    for line in lines:
        checks = {
            name: CheckResult(check=name, applicable=b["applicable"], score=b["score"],
                              passed=b["passed"])
            for name, b in line["checks"].items()
        }
        open_checks = [name for name, b in line["checks"].items() if b["status"] == "unscored"]
        scoring = cases[line["case_id"]].scoring
        agg = line["aggregate"]
        if not open_checks:  # every check scored: the verdict of the plain rule, unchanged
            assert agg["passed"] is _decide(checks, scoring).passed
            continue
        at_zero = {n: c.model_copy(update={"score": 0.0, "passed": False}) if n in open_checks
                   else c for n, c in checks.items()}
        if agg["status"] == "pass":
            assert _decide(at_zero, scoring).passed, line["case_id"]
        elif agg["status"] == "unscored":
            seen_open += 1
            assert agg["unscored_checks"] == open_checks
    assert seen_open > 0
    strong = next(line for line in lines
                  if (line["case_id"], line["agent"]) == ("refund-damaged-01", "strong-agent"))
    assert strong["aggregate"]["status"] == "unscored"  # was `pass`, 1.000, before the rule
    assert strong["aggregate"]["unscored_checks"] == ["arguments"]


@pytest.mark.parametrize(
    ("minimum", "passed", "status"),
    [(0.4, True, None), (0.6, False, "unscored"), (0.9, False, None)],
)
def test_an_aggregate_gate_reads_unscored_runs_as_the_aggregate_does(
    minimum: float, passed: bool, status: str | None
) -> None:
    from toolgrade.scoring.gates import evaluate_gates

    summary = {"trajectories": 10, "aggregate": {"pass_rate": 0.5, "mean_score": 0.5},
               "unscored": {"runs": 2, "checks": {}}}
    (gate,) = evaluate_gates({"aggregate.pass_rate": minimum}, summary)
    assert gate.passed is passed
    assert (gate.model_extra or {}).get("status") == status
    if status == "unscored":  # held only if the 2 unscored runs of 10 passed: 0.7 >= 0.6
        assert "2 undecided run(s) could bring it to 0.7" in gate.message()
