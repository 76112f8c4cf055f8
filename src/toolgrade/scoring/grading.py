"""Grading one trajectory: every check through the one `Check` interface, a crashing check
recorded as data, the record aggregated by its case's scoring mode.
"""

from __future__ import annotations

import traceback
from pathlib import Path

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
from toolgrade.models.figures import JudgeLogEntry
from toolgrade.scoring.aggregate import aggregate
from toolgrade.scoring.recording import RecordingJudge


def grade_trajectory(
    case: Case,
    run: Trajectory,
    checks: list[Check],
    judge: JudgePort | None,
    base_dir: Path,
    decisions: HumanDecisions | None = None,
) -> TrajectoryResult:
    """Grade one trajectory with every check; a crashing check is recorded, not raised."""
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
    return _record(case, run, results, errors, recorder.log if recorder is not None else {})


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


