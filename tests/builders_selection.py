"""Small builders for selection-check tests: cases, runs, graded records and a fake judge."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from toolgrade.checks.base import GradeContext
from toolgrade.checks.selection import SelectionCheck
from toolgrade.models import (
    Aggregate,
    Case,
    CheckResult,
    Expected,
    JudgeRequest,
    Message,
    SelectionExpectation,
    Step,
    ToolCall,
    ToolSpec,
    Trajectory,
    TrajectoryResult,
    Verdict,
)


def sel_case(
    tools: Sequence[str] = (),
    *,
    alternatives: Sequence[Sequence[str]] = (),
    forbidden: Sequence[str] = (),
    no_tool: bool = False,
    judge_alternates: bool = False,
    catalogue: Iterable[str] | None = None,
    side_effect: Iterable[str] = (),
    case_id: str = "c1",
    allowed: Sequence[str] = (),
    allow_reads: bool = False,
    allow_failed: bool = False,
) -> Case:
    """A case with a selection expectation.

    The catalogue defaults to every tool named in the expectation plus the side-effect tools;
    pass `catalogue=[]` for an empty one.
    """
    mutating = set(side_effect)
    if catalogue is None:
        names = {*tools, *forbidden, *mutating, *allowed}
        for route in alternatives:
            names.update(route)
    else:
        names = set(catalogue)
    return Case(
        id=case_id,
        input="refund my broken order",
        tools={
            n: ToolSpec(description=f"the {n} tool", side_effect=n in mutating)
            for n in sorted(names)
        },
        expected=Expected(
            selection=SelectionExpectation(
                tools=list(tools),
                alternatives=[list(r) for r in alternatives],
                forbidden=list(forbidden),
                no_tool=no_tool,
                judge_alternates=judge_alternates,
                allowed=list(allowed),
                allow_reads=allow_reads,
                allow_failed=allow_failed,
            )
        ),
    )


def run_of(names: Sequence[str], *, chatter: bool = False, case_id: str = "c1") -> Trajectory:
    """A run calling `names` in order; with `chatter`, an assistant message precedes each call."""
    steps: list[Step] = []
    for name in names:
        if chatter:
            steps.append(Message(role="assistant", content="thinking"))
        steps.append(ToolCall(tool=name, args={}))
    return Trajectory(case_id=case_id, steps=steps)


def grade(case: Case, names: Sequence[str], judge: FakeJudge | None = None) -> CheckResult:
    """Grade a run of `names` against `case` with the selection check."""
    return SelectionCheck().grade(case, run_of(names, case_id=case.id), GradeContext(judge=judge))


def record(result: CheckResult, case_id: str = "c1") -> TrajectoryResult:
    """Wrap a selection result in the per-trajectory record an accumulator receives."""
    return TrajectoryResult(
        case_id=case_id,
        trial=0,
        agent=None,
        checks={"selection": result},
        aggregate=Aggregate(mode="binary", score=result.score, passed=bool(result.passed)),
    )


def failure_names(result: CheckResult) -> list[str]:
    """The failure names of a result, in order."""
    return [f.name for f in result.failures]


class FakeJudge:
    """A JudgePort that answers every request with one fixed verdict and remembers requests."""

    def __init__(self, verdict: Verdict) -> None:
        self.verdict = verdict
        self.requests: list[JudgeRequest] = []

    def judge(self, request: JudgeRequest) -> Verdict:
        """Record the request and return the fixed verdict."""
        self.requests.append(request)
        return self.verdict
