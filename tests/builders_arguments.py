"""Small builders for the arguments check tests: cases, runs and a fake argument judge."""

from __future__ import annotations

from typing import Any

from toolgrade.checks.arguments import ArgumentsCheck
from toolgrade.checks.base import GradeContext
from toolgrade.models import (
    ArgumentExpectation,
    Case,
    CheckResult,
    Expected,
    JudgeRequest,
    Message,
    ToolCall,
    ToolSpec,
    Trajectory,
    Verdict,
)

REFUND_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "order_id": {"type": "string", "pattern": "^[A-Z][0-9]+$"},
        "amount": {"type": "number", "minimum": 0},
        "reason": {"type": "string", "maxLength": 40},
        "speed": {"type": "string", "enum": ["standard", "express"]},
    },
    "required": ["order_id", "amount"],
}


def case(
    expected: list[tuple[str, dict[str, Any]]] | None,
    tools: dict[str, dict[str, Any]] | None = None,
    case_id: str = "c1",
    task: str = "refund order A123",
) -> Case:
    """A case whose `expected.arguments` lists (tool, args); `tools` maps name -> JSON Schema."""
    arguments = (
        None if expected is None else [ArgumentExpectation(tool=t, args=a) for t, a in expected]
    )
    catalogue = {name: ToolSpec(parameters=schema) for name, schema in (tools or {}).items()}
    return Case(id=case_id, input=task, tools=catalogue, expected=Expected(arguments=arguments))


def run(*calls: tuple[str, dict[str, Any]] | ToolCall | Message, case_id: str = "c1") -> Trajectory:
    """A trajectory of the given (tool, args) calls, ToolCalls or messages, in order."""
    steps = [
        c if isinstance(c, ToolCall | Message) else ToolCall(tool=c[0], args=c[1]) for c in calls
    ]
    return Trajectory(case_id=case_id, steps=steps)


class FakeJudge:
    """Answers every request with a fixed verdict and remembers the requests."""

    def __init__(self, verdict: str = "pass", reason: str = "fake") -> None:
        self.verdict = verdict
        self.reason = reason
        self.requests: list[JudgeRequest] = []

    def judge(self, request: JudgeRequest) -> Verdict:
        """Record the request and return the fixed verdict."""
        self.requests.append(request)
        return Verdict(verdict=self.verdict, reason=self.reason)  # type: ignore[arg-type]


class ForbiddenJudge:
    """A judge that must not be called."""

    def judge(self, request: JudgeRequest) -> Verdict:
        """Fail the test."""
        raise AssertionError(f"judge called: {request.inputs}")


def grade(c: Case, r: Trajectory, judge: Any = None) -> CheckResult:
    """Grade with the arguments check."""
    return ArgumentsCheck().grade(c, r, GradeContext(judge=judge))


def names(result: CheckResult) -> list[str]:
    """The failure names of a result, in order."""
    return [f.name for f in result.failures]


#: Bounds on integers and numbers, one required: the schema-checker tests' shared case (the
#: fast checker's and the one-pass checker's).
NUMBERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "n": {"type": "integer", "minimum": 0, "maximum": 10},
        "x": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1.5},
        "big": {"type": "integer", "minimum": -(10**20)},
    },
    "required": ["n"],
}
