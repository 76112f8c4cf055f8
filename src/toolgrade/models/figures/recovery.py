"""The recovery check's per-run figures (checks/recovery.py, state.py, mentions.py), as one
results line holds them."""

from typing import Annotated, Literal, NotRequired

from pydantic import Field
from typing_extensions import TypedDict

from toolgrade.models.figures.verdicts import DecisionFigures, VerdictRecord

#: The stage a fault reached (docs/recovery.md).
Stage = Literal[
    "recovered", "no_retry", "retry_loop", "wrong_fallback", "missing_escalation", "not_triggered"
]


class FaultOutcome(TypedDict):
    """One fault (declared or observed) and the stage it reached; `recovered_by` and
    `recovery_step` only when it was recovered."""

    tool: str
    nth: int | Literal["all"]
    kind: str
    stage: Stage
    step: int | None
    source: Literal["spec", "observed"]
    retries: int
    recovered_by: NotRequired[str]
    recovery_step: NotRequired[int | None]


class StateRecord(TypedDict):
    """One state assertion: `path` (a dotted path) or `query` (SQLite), what was expected and
    found; `error` when it could not be evaluated. The values are JSON as read (a state file)
    or a database's cells."""

    path: NotRequired[str]
    query: NotRequired[str]
    operator: str
    passed: bool
    expected: object
    actual: object
    error: NotRequired[str]


class MentionRecord(TypedDict):
    """One required mention: whether the agent said it, and the step that first did."""

    mention: str
    passed: bool
    step: int | None


class RecoveryVerdict(VerdictRecord):
    """A recovery_quality verdict on one graded fault."""

    tool: str
    nth: int | Literal["all"]
    step: int


class RecoveryFigures(DecisionFigures, total=False):
    """`checks.recovery`'s figures, in the order they are written: `mentions` only on cases
    that expect some, the judges' verdicts only with a judge, the decision keys only with
    `judge_quality`; only `error` when the check crashed."""

    error: str
    faults: list[FaultOutcome]
    state: list[StateRecord]
    judges: Annotated[Literal["off", "on"], Field(description="Whether a judge was asked.")]
    mentions: list[MentionRecord]
    judge_recovery: list[RecoveryVerdict]
    judge_interpretation: VerdictRecord
