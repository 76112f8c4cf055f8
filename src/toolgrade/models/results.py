"""Grading outputs: failures, check results, the per-trajectory record (docs/contract.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from toolgrade.models.catalogue import ToolDrift
from toolgrade.models.check_names import RegisteredCheck
from toolgrade.models.figures.failures import FailureRecord
from toolgrade.models.figures.record import (
    CheckRecord,
    ChecksRecord,
    JudgeLogEntry,
    ResultRecord,
)
from toolgrade.models.status import Status, aggregate_status, check_status
from toolgrade.vocabulary import CheckName
from toolgrade.vocabulary import FailureName as FailureName


class Failure(BaseModel):
    """One named failure with the step it points at and its evidence."""

    model_config = ConfigDict(frozen=True)

    name: FailureName
    step: int | None = None
    message: str = ""
    evidence: dict[str, Any] = Field(default_factory=dict)

    def to_json(self) -> FailureRecord:
        """The output form: `{name, step, message, ...evidence}`."""
        out = {"name": self.name, "step": self.step, "message": self.message, **self.evidence}
        return cast(FailureRecord, out)  # the evidence keys beside the three named


class CheckResult(BaseModel):
    """What one check says about one trajectory.

    `figures` holds the check's own numbers (e.g. tp/fp/fn for selection); they are written
    beside applicable/score/passed/failures in `results.jsonl`. Their types are the check's
    TypedDict in `models.figures`: the checks build one, readers go through `figures_of`
    (a mapping of `object` here, so an untyped read does not type-check). A plain JSON object
    to pydantic, validated as before.
    """

    model_config = ConfigDict(frozen=True)

    check: RegisteredCheck
    applicable: bool
    score: float | None = None
    passed: bool | None = None
    failures: list[Failure] = Field(default_factory=list)
    figures: Mapping[str, object] = Field(default_factory=dict)

    @classmethod
    def not_applicable(cls, check: CheckName) -> CheckResult:
        """A check with no reference: reported as not applicable, never as a pass."""
        return cls(check=check, applicable=False)

    def to_json(self) -> CheckRecord:
        """The output form used in `results.jsonl`, with the check's `status` (pass, fail,
        unscored, n/a or error; see `models.status`)."""
        out = cast(CheckRecord, {  # the figures are the check's TypedDict
            "applicable": self.applicable,
            "score": self.score,
            "passed": self.passed,
            "failures": [f.to_json() for f in self.failures],
            **self.figures,
        })
        out["status"] = check_status(self.check, out)
        return out

    @property
    def status(self) -> Status:
        """pass, fail, unscored (only undecided items kept it from passing), n/a or error."""
        return check_status(self.check, self.to_json())


class Aggregate(BaseModel):
    """The case-level verdict by the case's scoring mode."""

    model_config = ConfigDict(frozen=True)

    mode: Literal["binary", "weighted", "hybrid"]
    score: float | None
    passed: bool
    #: Set when unscored checks took part in the verdict (`scoring.grading`); otherwise the
    #: status follows from `passed` and the checks' states (`models.status.aggregate_status`).
    status: Status | None = None
    #: The unscored checks that keep an `unscored` verdict open.
    unscored_checks: tuple[RegisteredCheck, ...] = ()


class TrajectoryResult(BaseModel):
    """One line of `results.jsonl`: one case and trial."""

    model_config = ConfigDict(frozen=True)

    case_id: str
    trial: int
    agent: str | None
    checks: dict[RegisteredCheck, CheckResult]
    aggregate: Aggregate
    #: The run's judge calls by dimension (`models.figures.JudgeLogEntry`; a plain JSON
    #: object to pydantic).
    judges: Mapping[str, object] = Field(default_factory=dict)
    error: str | None = Field(default=None, description="A check that crashed, as data.")
    n_calls: int = 0
    drift: ToolDrift | None = Field(
        default=None, description="How the MCP catalogue the run saw differs from the suite's."
    )

    def judge_log(self) -> dict[str, list[JudgeLogEntry]]:
        """`judges` typed: the run's judge calls by dimension (scoring/grading.py)."""
        return cast(dict[str, list[JudgeLogEntry]], self.judges)

    def to_json(self) -> ResultRecord:
        """The output form of one `results.jsonl` line (`aggregate.status` beside `passed`)."""
        checks = {name: r.to_json() for name, r in self.checks.items()}
        aggregate = self.aggregate
        out: ResultRecord = {
            "case_id": self.case_id,
            "trial": self.trial,
            "agent": self.agent,
            "checks": cast(ChecksRecord, checks),  # keyed by check name, each its record
            "aggregate": {"mode": aggregate.mode, "score": aggregate.score,
                          "passed": aggregate.passed,
                          "status": aggregate.status or aggregate_status(checks, aggregate.passed)},
            "judges": self.judge_log(),
            "n_calls": self.n_calls,
        }
        if aggregate.unscored_checks:
            out["aggregate"]["unscored_checks"] = list(aggregate.unscored_checks)
        if self.error is not None:
            out["error"] = self.error
        if self.drift:
            out["catalogue_drift"] = self.drift.model_dump()
        return out
