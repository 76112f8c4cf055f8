"""Grading outputs: failures, check results, the per-trajectory record (DESIGN sections 3-4, 7)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

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

    def to_json(self) -> dict[str, Any]:
        """The output form: `{name, step, message, ...evidence}`."""
        return {"name": self.name, "step": self.step, "message": self.message, **self.evidence}


class CheckResult(BaseModel):
    """What one check says about one trajectory.

    `figures` holds the check's own numbers (e.g. tp/fp/fn for selection); they are written
    beside applicable/score/passed/failures in `results.jsonl`.
    """

    model_config = ConfigDict(frozen=True)

    check: CheckName
    applicable: bool
    score: float | None = None
    passed: bool | None = None
    failures: list[Failure] = Field(default_factory=list)
    figures: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def not_applicable(cls, check: CheckName) -> CheckResult:
        """A check with no reference: reported as not applicable, never as a pass."""
        return cls(check=check, applicable=False)

    def to_json(self) -> dict[str, Any]:
        """The output form used in `results.jsonl`, with the check's `status` (pass, fail,
        unscored, n/a or error; see `models.status`)."""
        out = {
            "applicable": self.applicable,
            "score": self.score,
            "passed": self.passed,
            "failures": [f.to_json() for f in self.failures],
            **self.figures,
        }
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


class TrajectoryResult(BaseModel):
    """One line of `results.jsonl`: one case and trial."""

    model_config = ConfigDict(frozen=True)

    case_id: str
    trial: int
    agent: str | None
    checks: dict[CheckName, CheckResult]
    aggregate: Aggregate
    judges: dict[str, Any] = Field(default_factory=dict)
    error: str | None = Field(default=None, description="A check that crashed, as data.")
    n_calls: int = 0

    def to_json(self) -> dict[str, Any]:
        """The output form of one `results.jsonl` line (`aggregate.status` beside `passed`)."""
        checks = {name: r.to_json() for name, r in self.checks.items()}
        out: dict[str, Any] = {
            "case_id": self.case_id,
            "trial": self.trial,
            "agent": self.agent,
            "checks": checks,
            "aggregate": {**self.aggregate.model_dump(),
                          "status": aggregate_status(checks, self.aggregate.passed)},
            "judges": self.judges,
            "n_calls": self.n_calls,
        }
        if self.error is not None:
            out["error"] = self.error
        return out
