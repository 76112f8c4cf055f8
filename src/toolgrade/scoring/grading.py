"""Grading one trajectory: every check through the one `Check` interface, a crashing check
recorded as data, the record aggregated by its case's scoring mode.
"""

from __future__ import annotations

import traceback
from pathlib import Path

from toolgrade.adapters.text_steps import with_text_calls
from toolgrade.checks import Check, GradeContext
from toolgrade.checks.run_calls import calls_of
from toolgrade.errors import ProviderAuthError
from toolgrade.models import (
    Case,
    CheckName,
    CheckResult,
    HumanDecisions,
    JudgePort,
    Trajectory,
    TrajectoryResult,
)
from toolgrade.models.catalogue import ToolDrift, catalogue_drift
from toolgrade.models.figures import JudgeLogEntry
from toolgrade.scoring.aggregate import aggregate
from toolgrade.scoring.recording import RecordingJudge


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


