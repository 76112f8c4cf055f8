"""The typed shape of one `results.jsonl` line (DESIGN section 7), for `toolgrade schema
--results` and for tools that read results files.

`TrajectoryResult.to_json` writes the line: a check's figures sit beside its applicable,
score, passed, failures and status. These models name every figure the four checks write,
with its type; a figure not listed (a custom check's, a future one) is allowed and kept.
A line read through `ResultLine.model_validate` keeps every value as written.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from toolgrade.models.status import Status
from toolgrade.models.summary import Number
from toolgrade.vocabulary import FailureName

#: The version of the results line's shape (raised with the summary's; see models.summary).
RESULTS_SCHEMA_VERSION = 1


class _Line(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class FailureLine(_Line):
    """One named failure: the step it points at, a message, and its evidence keys beside."""

    name: FailureName
    step: int | None = None
    message: str = ""


class CheckLine(_Line):
    """What every check writes for a run."""

    applicable: bool
    score: Number | None = None
    passed: bool | None = None
    failures: list[FailureLine] = Field(default_factory=list)
    status: Status | None = None
    error: str | None = Field(None, description="The check crashed: the error, as data.")


class SelectionLine(CheckLine):
    """Selection: multiset counts, per tool, substitutions, and any decision on the route."""

    tp: int | None = None
    fp: int | None = None
    fn: int | None = None
    precision: Number | None = None
    recall: Number | None = None
    f1: Number | None = None
    route: int | None = Field(None, description="The listed route the run was held to.")
    per_tool: dict[str, dict[str, int]] | None = None
    side_effect_extras: list[Any] | None = None
    substitutions: list[Any] | None = None
    adjudicated_route: list[str] | None = None
    judge_route: dict[str, Any] | None = None
    adjudicated: str | None = None
    adjudicated_by: Literal["judge", "human"] | None = None
    adjudication_reason: str | None = None
    adjudication_blocked_by: list[str] | None = None
    unadjudicated: dict[str, Any] | None = None
    overridden_failures: list[Any] | None = None


class ArgumentsLine(CheckLine):
    """Arguments: the paired calls, field accuracy, invalid apart from wrong."""

    calls: list[dict[str, Any]] | None = None
    field_accuracy: Number | None = None
    invalid: int | None = None
    wrong: int | None = None
    unscored_fields: list[dict[str, Any]] | None = None
    schema_errors: list[Any] | None = None
    ungrounded: list[Any] | None = None


class OrderingLine(CheckLine):
    """Ordering: constraints held, calls made, where the final answer came."""

    constraints_total: int | None = None
    constraints_held: int | None = None
    n_calls: int | None = None
    final_answer_step: int | None = None


class RecoveryLine(CheckLine):
    """Recovery: each injected fault's stage, the state assertions, the judges' verdicts."""

    faults: list[dict[str, Any]] | None = None
    state: list[dict[str, Any]] | None = None
    judges: Any = None


class ChecksLine(_Line):
    """The run's check blocks by check name (a check not run has no block)."""

    selection: SelectionLine | None = None
    arguments: ArgumentsLine | None = None
    ordering: OrderingLine | None = None
    recovery: RecoveryLine | None = None


class AggregateLine(_Line):
    """The case-level verdict by the case's scoring mode."""

    mode: Literal["binary", "weighted", "hybrid"]
    score: Number | None = None
    passed: bool
    status: Status | None = None


class ResultLine(_Line):
    """One line of `results.jsonl`: one case, trial and agent."""

    case_id: str
    trial: int
    agent: str | None = None
    checks: ChecksLine
    aggregate: AggregateLine
    judges: dict[str, Any] = Field(default_factory=dict)
    n_calls: int = 0
    error: str | None = Field(None, description="A crash outside the checks, as data.")


def results_schema() -> dict[str, Any]:
    """The JSON Schema of one results.jsonl line."""
    document = ResultLine.model_json_schema()
    document["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    document["title"] = f"toolgrade results.jsonl line (shape version {RESULTS_SCHEMA_VERSION})"
    return document
