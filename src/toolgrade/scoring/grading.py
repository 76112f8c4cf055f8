"""Grading one run: every check through the one `Check` interface, a crashing check recorded as
data, the judge's verdicts logged per run, and the record aggregated by its case's scoring mode.

The judge log (`RecordingJudge`): people go first. A judge item (any dimension but
alternate_route, whose decisions are per case and route, `checks.adjudication`) that a person
decided with `toolgrade adjudicate` is answered from the decision, and the judge is not asked
(docs/judges.md). An item left `unscored` is recorded with its id and the inputs the judge saw
(as is one the escalation judge decided), so `toolgrade adjudicate` can show it to a person and
the decision can be exported as a labelled calibration item.

The aggregate (docs/case-format.md), by the case's scoring mode:

- binary: passes when every applicable check passes (score 1.0 or 0.0).
- weighted: weighted mean of applicable check scores against `threshold`; a check not named in
  `weights` weighs 1.0; weights are renormalised over the applicable checks. A mean equal to
  the threshold reaches it, also when float rounding puts it a hair under (`reaches`).
- hybrid: the `required` checks must pass (a required check that is not applicable does not
  block) and the weighted mean must reach `threshold`.

Nothing applicable means nothing was shown: score None, not passed. A check that crashed
(passed None while applicable) never passes, scores 0 in the weighted mean, and keeps the case
from passing in every mode: a weighted mean over the other checks must not pass a case one of
whose checks was never graded.

A check left `unscored` (it did not pass only because items were undecided, `is_unscored`)
decides nothing either way: the run passes only if it passes with each such check counted as
failed with score 0, fails only if it fails with each counted as passed with score 1, and is
otherwise `unscored`, naming the checks that keep it open (`Aggregate.unscored_checks`). The
score shown stays the mean of the scores as graded.
"""

from __future__ import annotations

import math
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import cast

from toolgrade.adapters.text_steps import with_text_calls
from toolgrade.checks import Check, GradeContext
from toolgrade.checks.run_calls import calls_of
from toolgrade.errors import ProviderAuthError
from toolgrade.models import (
    Aggregate,
    Case,
    CheckName,
    CheckResult,
    HumanDecisions,
    JudgePort,
    JudgeRequest,
    Scoring,
    Trajectory,
    TrajectoryResult,
    Verdict,
    item_id,
)
from toolgrade.models.catalogue import ToolDrift, catalogue_drift
from toolgrade.models.figures import BlockView, JudgeLogEntry, decision_of, figures_of
from toolgrade.models.status import check_status, unscored_items

# One run graded ------------------------------------------------------------------------------

def as_graded(case: Case, run: Trajectory) -> Trajectory:
    """The run as its case grades it: with `text_calls`, the calls written in assistant text
    read as call steps (adapters.text_steps). Callers grade and write this run, so the
    transcript's step indices are the ones the failures name."""
    return with_text_calls(run, case.tools) if case.text_calls else run


def grade_trajectory(
    case: Case,
    run: Trajectory,
    checks: list[Check],
    judge: JudgePort | None,
    base_dir: Path,
    decisions: HumanDecisions | None = None,
) -> TrajectoryResult:
    """Grade one trajectory with every check; a crashing check is recorded, not raised."""
    drift = run_drift(case, run)
    unscored = bool(drift) and case.catalogue is not None and case.catalogue.on_drift == "unscored"
    if unscored:
        judge = None  # nothing graded here will count: no judge is asked
    decisions = decisions or HumanDecisions()
    recorder = RecordingJudge(judge, decisions) if judge is not None else None
    ctx = GradeContext(judge=recorder, base_dir=base_dir, decisions=decisions)
    results: dict[CheckName, CheckResult] = {}
    errors = []
    for check in checks:
        try:
            results[check.name] = check.grade(case, run, ctx)
        except ProviderAuthError:  # not about this record: every judged record would fail so
            raise
        except Exception as exc:  # a crash is data about this record; the run goes on
            detail = "".join(traceback.format_exception_only(exc)).strip()
            errors.append(f"{check.name}: {detail}")
            results[check.name] = _crashed(check.name, detail)
    if unscored:
        assert drift is not None
        results = _left_unscored(results, drift)
    record = _record(case, run, results, errors, recorder.log if recorder is not None else {})
    return record.model_copy(update={"drift": drift}) if drift else record


def run_drift(case: Case, run: Trajectory) -> ToolDrift | None:
    """How the MCP catalogue a run saw differs from its suite's, or None when either is
    unknown (a suite without `tools_from`, a run not recorded at the protocol)."""
    if case.catalogue is None or run.catalogue is None:
        return None
    return catalogue_drift(case.catalogue, run.catalogue)


def _left_unscored(results: dict[CheckName, CheckResult], drift: ToolDrift
                   ) -> dict[CheckName, CheckResult]:
    """A run's results when the suite leaves runs with catalogue drift unscored (`on_drift:
    unscored`): graded against tools it was not shown, no applicable check passes or fails."""
    shown = ", ".join(f"{name} {kind}" for name, kind in drift.by_tool().items())
    reason = f"catalogue drift: {shown}"
    return {
        name: CheckResult(check=name, applicable=True, score=None, passed=False,
                          figures={"unscored_run": reason}) if result.applicable else result
        for name, result in results.items()
    }


def _record(
    case: Case,
    run: Trajectory,
    results: dict[CheckName, CheckResult],
    errors: list[str],
    judges: dict[str, list[JudgeLogEntry]],
) -> TrajectoryResult:
    """A run's record from its check results, aggregated by the case's scoring mode."""
    return TrajectoryResult(
        case_id=run.case_id,
        trial=run.trial,
        agent=run.agent,
        checks=results,
        aggregate=aggregate(results, case.scoring),
        judges=judges,
        error="; ".join(errors) or None,
        n_calls=len(calls_of(run)),
    )


def _crashed(check: CheckName, detail: str) -> CheckResult:
    """The result of a check that raised: applicable, neither passed nor failed."""
    return CheckResult(
        check=check, applicable=True, score=None, passed=None, figures={"error": detail}
    )


def crashed_record(
    case: Case, run: Trajectory, checks: list[Check], reason: str
) -> TrajectoryResult:
    """The record of a run whose grading was lost with its worker process: every check is
    reported as crashed with `reason`, as a check that raises is, and the run goes on."""
    results = {check.name: _crashed(check.name, reason) for check in checks}
    return _record(case, run, results, [f"{name}: {reason}" for name in results], {})


# The judge log ------------------------------------------------------------------------------

#: Verdict fields copied into the record when set, in this order (`_entry`).
_RECORDED = ("label", "p_pass", "model", "error", "raw", "escalated", "escalated_from",
             "decided_by")


class RecordingJudge:
    """Passes requests to the real judge and keeps a compact log for `results.jsonl`."""

    def __init__(self, inner: JudgePort, decisions: HumanDecisions | None = None) -> None:
        self._inner = inner
        self._decisions = decisions or HumanDecisions()
        self.log: dict[str, list[JudgeLogEntry]] = {}

    def judge(self, request: JudgeRequest) -> Verdict:
        """A person's decision on the item, else the inner judge's verdict; recorded under its
        dimension."""
        item = None if request.dimension == "alternate_route" else \
            item_id(request.dimension, request.inputs)
        decided = self._decisions.item(item) if item is not None else None
        if decided is not None:
            who = decided.by or "a person"
            reason = f"{decided.decision} by {who}" + (f": {decided.reason}" if decided.reason
                                                       else "")
            verdict = Verdict(verdict=decided.verdict, reason=reason, label=decided.label,
                              decided_by="human")
        else:
            verdict = self._inner.judge(request)
        entry = _entry(verdict)
        undecided = not verdict.scored or bool(verdict.escalated)  # by the first judge
        if item is not None and (decided is not None or undecided):
            entry["item"] = item
        if item is not None and undecided:
            entry["inputs"] = request.inputs
        self.log.setdefault(request.dimension, []).append(entry)
        return verdict


def _entry(verdict: Verdict) -> JudgeLogEntry:
    """The log entry of a verdict: verdict, reason, the `_RECORDED` fields that are set (in
    that order), cached."""
    recorded = {key: value for key in _RECORDED if (value := getattr(verdict, key)) is not None}
    # One cast: tests/models/test_figures.py holds JudgeLogEntry's keys to `_RECORDED`.
    return cast(JudgeLogEntry, {"verdict": verdict.verdict, "reason": verdict.reason,
                                **recorded, "cached": verdict.cached})


# The aggregate ------------------------------------------------------------------------------

#: Relative slack when a figure meets a minimum: a mean of floats can land one rounding step
#: under a value it equals exactly ((1 + 1 + 0.4) / 3 is 0.7999999999999999 in floats), and a
#: figure equal to its minimum must reach it.
REACH_TOLERANCE = 1e-9


def reaches(value: float, minimum: float) -> bool:
    """`value >= minimum`, counting a value within floating-point rounding of it as equal."""
    return value >= minimum or math.isclose(value, minimum, rel_tol=REACH_TOLERANCE)


def _applicable(results: Mapping[CheckName, CheckResult]) -> dict[CheckName, CheckResult]:
    return {name: r for name, r in results.items() if r.applicable}


def weighted_mean(
    results: Mapping[CheckName, CheckResult], weights: Mapping[CheckName, float]
) -> float | None:
    """Weighted mean of the applicable check scores, or None when nothing is applicable."""
    applicable = _applicable(results)
    total = sum(weights.get(name, 1.0) for name in applicable)
    if not applicable or total <= 0:
        return None
    return sum(weights.get(n, 1.0) * (r.score or 0.0) for n, r in applicable.items()) / total


#: The verdicts that take no arithmetic: nothing applicable (per mode), and binary's two. An
#: `Aggregate` is frozen, so records can share them instead of each validating its own.
_NOTHING_SHOWN = {
    mode: Aggregate(mode=mode, score=None, passed=False)
    for mode in ("binary", "weighted", "hybrid")
}
_BINARY = {
    True: Aggregate(mode="binary", score=1.0, passed=True),
    False: Aggregate(mode="binary", score=0.0, passed=False),
}


def _binary(results: Mapping[CheckName, CheckResult]) -> Aggregate:
    """Binary mode: passes when every applicable check passes."""
    applicable = _applicable(results)
    if not applicable:
        return _NOTHING_SHOWN["binary"]
    return _BINARY[all(r.passed is True for r in applicable.values())]


def aggregate(results: Mapping[CheckName, CheckResult], scoring: Scoring) -> Aggregate:
    """The case-level verdict for one trajectory, unscored checks deciding nothing."""
    open_checks = [
        name for name, r in results.items()
        if r.applicable and r.passed is False and is_unscored(r)
    ]
    if not open_checks:
        return _decide(results, scoring)
    graded = _decide(results, scoring)
    worst = _decide(_counted_as(results, open_checks, False), scoring)
    if worst.passed:
        return graded.model_copy(update={"passed": True, "status": "pass"})
    best = _decide(_counted_as(results, open_checks, True), scoring)
    if not best.passed:
        return graded.model_copy(update={"passed": False, "status": "fail"})
    return graded.model_copy(
        update={"passed": False, "status": "unscored", "unscored_checks": tuple(open_checks)}
    )


def _counted_as(
    results: Mapping[CheckName, CheckResult], names: list[CheckName], passed: bool
) -> dict[CheckName, CheckResult]:
    """The results with the checks `names` counted as passed with score 1, or as failed with
    score 0."""
    change = {"passed": passed, "score": 1.0 if passed else 0.0}
    return {
        name: r.model_copy(update=change) if name in names else r for name, r in results.items()
    }


def _decide(results: Mapping[CheckName, CheckResult], scoring: Scoring) -> Aggregate:
    """The verdict of the results as they stand, by the case's scoring mode."""
    if scoring.mode == "binary":
        return _binary(results)
    applicable = _applicable(results)
    if not applicable:
        return _NOTHING_SHOWN[scoring.mode]
    score = weighted_mean(applicable, scoring.weights)
    crashed = any(r.passed is None for r in applicable.values())
    reached = score is not None and reaches(score, scoring.threshold) and not crashed
    if scoring.mode == "weighted":
        return Aggregate(mode="weighted", score=score, passed=reached)
    required_ok = all(
        applicable[name].passed is True for name in scoring.required if name in applicable
    )
    return Aggregate(mode="hybrid", score=score, passed=required_ok and reached)


def status_block(result: CheckResult) -> BlockView:
    """The parts of a result's JSON form its undecided items depend on (cheaper than
    `to_json`); its status also reads `failures`, added where there are such items."""
    block: BlockView = {"applicable": result.applicable, "passed": result.passed}
    if result.check == "arguments":
        fields = figures_of(result, "arguments").get("unscored_fields")
        if fields is not None:
            block["unscored_fields"] = fields
    decision = decision_of(result)
    if "adjudicated" in decision:
        block["adjudicated"] = decision["adjudicated"]
    if "adjudicated_route" in decision:
        block["adjudicated_route"] = decision["adjudicated_route"]
    if "adjudication_reason" in decision:
        block["adjudication_reason"] = decision["adjudication_reason"]
    return block


def is_unscored(result: CheckResult) -> bool:
    """Whether a check's state is `unscored`: it did not pass only because items were
    undecided (read from the result without writing its JSON form)."""
    figures = result.figures
    if not figures.get("unscored_fields") and figures.get("adjudicated") != "unscored":
        return False  # the two ways an item is left undecided (`models.status.unscored_items`)
    block = status_block(result)
    if not unscored_items(result.check, block):
        return False
    block["failures"] = [f.to_json() for f in result.failures]
    return check_status(result.check, block) == "unscored"
