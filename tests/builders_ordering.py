"""Small builders for ordering and step-efficiency tests: cases, runs and graded records."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from toolgrade.models import (
    Aggregate,
    Case,
    CheckName,
    CheckResult,
    Expected,
    Message,
    OrderingExpectation,
    SelectionExpectation,
    Step,
    ToolCall,
    ToolResult,
    Trajectory,
    TrajectoryResult,
)


def call(
    tool: str,
    args: dict[str, Any] | None = None,
    *,
    status: str | None = "ok",
    group: int | str | None = None,
) -> ToolCall:
    """A tool call; `status=None` records no result at all."""
    result = None if status is None else ToolResult.model_validate({"status": status})
    return ToolCall(tool=tool, args=args or {}, result=result, group=group)


def answer(text: str = "Done.") -> Message:
    """The agent's final reply."""
    return Message(role="assistant", content=text)


def user(text: str = "Please help.") -> Message:
    """A user message."""
    return Message(role="user", content=text)


def run(*steps: Step, case_id: str = "c1", trial: int = 0) -> Trajectory:
    """A trajectory of the given steps."""
    return Trajectory(case_id=case_id, trial=trial, steps=list(steps))


def tools_run(*names: str, case_id: str = "c1", trial: int = 0) -> Trajectory:
    """A trajectory of distinct-argument calls of the named tools, one per step."""
    steps = [call(n, {"i": i}) for i, n in enumerate(names)]
    return run(*steps, case_id=case_id, trial=trial)


def ordering_case(
    *,
    case_id: str = "c1",
    task_type: str | None = None,
    min_steps: int | None = None,
    selection: list[str] | None = None,
    **ordering: Any,
) -> Case:
    """A case whose ordering expectation is built from the keyword arguments."""
    expected = Expected(
        ordering=OrderingExpectation.model_validate(ordering),
        selection=None if selection is None else SelectionExpectation(tools=selection),
    )
    return Case(id=case_id, task_type=task_type, min_steps=min_steps, expected=expected)


def record(
    case: Case, trajectory: Trajectory, *, passed: Mapping[str, bool | None] | None = None
) -> TrajectoryResult:
    """A graded record: each named check applicable with the given pass flag (None: n/a)."""
    checks: dict[CheckName, CheckResult] = {}
    for key, flag in (passed or {"ordering": True}).items():
        name = cast(CheckName, key)
        if flag is None:
            checks[name] = CheckResult.not_applicable(name)
        else:
            checks[name] = CheckResult(
                check=name,
                applicable=True,
                score=1.0 if flag else 0.0,
                passed=flag,
            )
    everything = all(r.passed for r in checks.values() if r.applicable)
    return TrajectoryResult(
        case_id=case.id,
        trial=trajectory.trial,
        agent=trajectory.agent,
        checks=checks,
        aggregate=Aggregate(mode="binary", score=1.0 if everything else 0.0, passed=everything),
        n_calls=len(trajectory.calls),
    )
