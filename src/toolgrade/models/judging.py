"""The judge port: how a check asks an LLM judge for a verdict without knowing who answers.

Checks receive an object satisfying `JudgePort` (or None when judging is off); only
`toolgrade.judging` implements it, so no check ever imports litellm.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, cast

from pydantic import BaseModel, ConfigDict, Field

from toolgrade.models.figures.verdicts import VerdictRecord
from toolgrade.vocabulary import JUDGE_DIMENSIONS as JUDGE_DIMENSIONS
from toolgrade.vocabulary import JudgeDimension as JudgeDimension

#: The template variables each dimension's request carries (the contract between the checks that
#: ask and the templates in `judge_prompts/`). Values are plain JSON data.
JUDGE_INPUTS: dict[JudgeDimension, tuple[str, ...]] = {
    # expected/actual are the reference and agent values of one argument field.
    "argument_equivalence": ("task", "tool", "field", "expected", "actual", "rubric"),
    # routes are lists of tool names; tool_descriptions maps name -> description.
    "alternate_route": ("task", "expected_routes", "actual_route", "tool_descriptions"),
    # fault: {tool, nth, kind, content}; stage: the deterministic stage; transcript: the steps
    # after the fault as [{step, tool?, args?, status?, content?, role?}].
    "recovery_quality": ("task", "fault", "stage", "transcript"),
    # tool_results: [{step, tool, status, content}]; final_answer: the agent's last reply;
    # findings: what the deterministic checks saw go wrong (unrecovered faults, state mismatches).
    "result_interpretation": ("task", "tool_results", "final_answer", "findings"),
}


class JudgeRequest(BaseModel):
    """One question for one judge dimension; `inputs` are the template's variables."""

    model_config = ConfigDict(frozen=True)

    dimension: JudgeDimension
    inputs: dict[str, Any]
    item_id: str | None = Field(
        default=None, description="The labelled item this request judges (`calibrate`): it is "
        "never shown as one of its own nearest examples.")


class Verdict(BaseModel):
    """A judge's answer. `unscored` means no usable verdict: never counted as a pass."""

    model_config = ConfigDict(frozen=True)

    verdict: Literal["pass", "fail", "unscored"]
    reason: str = ""
    label: str | None = None
    p_pass: float | None = Field(default=None, description="P(pass) in log-probability mode.")
    model: str | None = None
    template_hash: str | None = None
    cached: bool = False
    raw: str | None = Field(default=None, description="The raw reply when it did not parse.")
    error: str | None = None
    # Set only where they apply (None is left out of results), so other verdicts keep their form.
    escalated: bool | None = Field(
        default=None, description="True when the escalation judge (`model`) gave the verdict.")
    escalated_from: str | None = Field(
        default=None, description="The first judge and why it did not decide: `MODEL: reason`.")
    decided_by: Literal["human"] | None = Field(
        default=None, description="`human` when a person's recorded decision gave the verdict.")
    answers: dict[str, float] | None = Field(
        default=None,
        description="Checklist mode: P(yes) of each question the model answered (`q_<id>`).")
    checklist_hash: str | None = Field(
        default=None, description="Checklist mode: the hash of the checklist file asked.")

    @property
    def scored(self) -> bool:
        """True when the verdict is pass or fail."""
        return self.verdict != "unscored"

    @classmethod
    def unscored(cls, reason: str, **kw: Any) -> Verdict:
        """An unscored verdict carrying why."""
        return cls(verdict="unscored", reason=reason, **kw)


#: Verdict fields left out of a verdict's JSON when unset (they were added after its form was).
ONLY_WHEN_SET: frozenset[str] = frozenset(
    {"escalated", "escalated_from", "decided_by", "answers", "checklist_hash"})


def verdict_json(verdict: Verdict) -> VerdictRecord:
    """The verdict as results record it: every field, bar the unset `ONLY_WHEN_SET` ones."""
    data = verdict.model_dump(mode="json")
    kept = {k: v for k, v in data.items() if v is not None or k not in ONLY_WHEN_SET}
    return cast(VerdictRecord, kept)  # the model's fields are the record's keys (a test)


class JudgePort(Protocol):
    """What a check may call to get a judgement."""

    def judge(self, request: JudgeRequest) -> Verdict:
        """Return the verdict for one request (never raises for model failures)."""
        ...
