"""Small builders for recovery, state and harness tests: calls, runs, cases and a fake judge."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolgrade.checks.base import GradeContext
from toolgrade.models import (
    Aggregate,
    Case,
    CheckResult,
    Expected,
    JudgeRequest,
    Message,
    RecoveryExpectation,
    StateAssertion,
    Step,
    ToolCall,
    ToolResult,
    Trajectory,
    TrajectoryResult,
    Verdict,
)


def ok(tool: str, content: Any = "fine", **args: Any) -> ToolCall:
    """A call that returned ok."""
    return ToolCall(tool=tool, args=args, result=ToolResult(status="ok", content=content))


def err(tool: str, content: Any = "503 Service Unavailable", **args: Any) -> ToolCall:
    """A call that returned an error."""
    return ToolCall(tool=tool, args=args, result=ToolResult(status="error", content=content))


def bare(tool: str, **args: Any) -> ToolCall:
    """A call with no recorded result."""
    return ToolCall(tool=tool, args=args)


def say(text: str = "Done.") -> Message:
    """The agent's reply."""
    return Message(role="assistant", content=text)


def run(*steps: Step, final_state: dict[str, Any] | None = None, trial: int = 0) -> Trajectory:
    """A trajectory of the given steps for case `c1`."""
    return Trajectory(case_id="c1", trial=trial, steps=list(steps), final_state=final_state)


def fault(tool: str = "lookup", nth: int | str = 1, kind: str = "error", content: str | None = None
          ) -> dict[str, Any]:
    """A fault spec as a case file would write it."""
    return {"tool": tool, "nth": nth, "kind": kind, "content": content}


def recovery(*faults: dict[str, Any], **kw: Any) -> RecoveryExpectation:
    """A recovery expectation from fault dicts and keyword fields."""
    return RecoveryExpectation.model_validate({"faults": list(faults), **kw})


def case(
    rec: RecoveryExpectation | None = None,
    state: list[dict[str, Any]] | None = None,
    task: str = "Refund order A1",
) -> Case:
    """A case with only recovery and state expectations."""
    assertions = [StateAssertion.model_validate(s) for s in state] if state is not None else None
    return Case(id="c1", input=task, expected=Expected(recovery=rec, state=assertions))


def ctx(judge: Any = None, base_dir: Path | None = None) -> GradeContext:
    """A grading context (no judge unless given)."""
    return GradeContext(judge=judge, base_dir=base_dir or Path.cwd())


class FakeJudge:
    """A JudgePort that records requests and answers from a per-dimension script."""

    def __init__(self, **answers: Verdict) -> None:
        self.answers = answers
        self.requests: list[JudgeRequest] = []

    def judge(self, request: JudgeRequest) -> Verdict:
        """Record the request and answer with the scripted verdict (pass by default)."""
        self.requests.append(request)
        return self.answers.get(request.dimension, Verdict(verdict="pass", reason="fine"))

    def asked(self, dimension: str) -> list[JudgeRequest]:
        """The requests made for one dimension."""
        return [r for r in self.requests if r.dimension == dimension]


def record(result: CheckResult, passed: bool | None = None) -> TrajectoryResult:
    """A graded trajectory holding one recovery result."""
    agg = Aggregate(mode="binary", score=result.score, passed=bool(result.passed)
                    if passed is None else passed)
    return TrajectoryResult(case_id="c1", trial=0, agent=None, checks={"recovery": result},
                            aggregate=agg)
