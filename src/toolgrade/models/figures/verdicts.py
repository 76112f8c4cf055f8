"""The judge verdicts and the decisions the checks record among their figures.

`VerdictRecord` is a verdict as results record it (`models.judging.verdict_json`, or the
recovery judges' form without the unset fields); `DecisionFigures` are the keys a deciding
check (selection, recovery) adds when a judge or a person decides (checks/adjudication.py).
"""

from typing import Literal, NotRequired

from typing_extensions import TypedDict

from toolgrade.vocabulary import FailureName

#: A verdict's outcome (`models.judging.Verdict.verdict`).
VerdictName = Literal["pass", "fail", "unscored"]


class VerdictRecord(TypedDict):
    """One judge verdict: always `verdict` and `reason`; the rest as the verdict set them."""

    verdict: VerdictName
    reason: str
    label: NotRequired[str | None]
    p_pass: NotRequired[float | None]
    model: NotRequired[str | None]
    template_hash: NotRequired[str | None]
    cached: NotRequired[bool]
    raw: NotRequired[str | None]
    error: NotRequired[str | None]
    escalated: NotRequired[bool | None]
    escalated_from: NotRequired[str | None]
    decided_by: NotRequired[Literal["human"] | None]
    answers: NotRequired[dict[str, float] | None]
    checklist_hash: NotRequired[str | None]


class Unadjudicated(TypedDict):
    """A deciding check's result as the deterministic code left it, before any decision."""

    score: float | None
    passed: bool | None


class DecisionFigures(TypedDict, total=False):
    """What a deciding check records of a judge's or a person's decision."""

    adjudicated_route: list[str]
    judge_route: VerdictRecord
    adjudicated: VerdictName
    adjudicated_by: Literal["judge", "human"]
    adjudication_reason: str
    adjudication_blocked_by: list[FailureName]
    unadjudicated: Unadjudicated
