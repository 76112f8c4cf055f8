"""The typed shape of one `results.jsonl` line (docs/contract.md), for `toolgrade schema
--results` and for tools that read results files.

`TrajectoryResult.to_json` writes the line: a check's figures sit beside its applicable,
score, passed, failures and status. These models name every figure the four checks write,
with its type; a figure not listed (a custom check's, a future one) is allowed and kept.
A line read through `ResultLine.model_validate` keeps every value as written.

The same line as Python code reads it is `models.figures.ResultRecord` (TypedDicts): the
nested shapes here are those TypedDicts themselves, and tests/models/test_figures.py holds
each model's fields to its TypedDict's keys, so the two cannot drift apart.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from toolgrade.jsonio.values import JsonObject
from toolgrade.models.figures import (
    CallEntry,
    FaultOutcome,
    JudgeLogEntry,
    MentionRecord,
    RecoveryVerdict,
    SchemaError,
    StateRecord,
    Substitution,
    ToolCounts,
    Unadjudicated,
    UngroundedValue,
    UnscoredField,
    VerdictName,
    VerdictRecord,
)
from toolgrade.models.status import Status
from toolgrade.models.summary import Number
from toolgrade.vocabulary import CheckName, FailureName

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
    unscored_run: str | None = Field(
        None, description="Why the whole run was left ungraded (catalogue drift, docs/mcp.md)."
    )


class DecisionLine(CheckLine):
    """What a deciding check (selection, recovery) adds when a judge or a person decides."""

    adjudicated_route: list[str] | None = None
    judge_route: VerdictRecord | None = None
    adjudicated: VerdictName | None = None
    adjudicated_by: Literal["judge", "human"] | None = None
    adjudication_reason: str | None = None
    adjudication_blocked_by: list[FailureName] | None = None
    unadjudicated: Unadjudicated | None = None


class SelectionLine(DecisionLine):
    """Selection: multiset counts, per tool, substitutions, and any decision on the route."""

    tp: int | None = None
    fp: int | None = None
    fn: int | None = None
    precision: Number | None = None
    recall: Number | None = None
    f1: Number | None = None
    route: int | None = Field(None, description="The listed route the run was held to.")
    per_tool: dict[str, ToolCounts] | None = None
    side_effect_extras: list[str] | None = None
    substitutions: list[Substitution] | None = None
    free_calls: int | None = Field(
        None, description="Calls of free tools beyond the route (cases with free calls).")
    free_per_tool: dict[str, int] | None = None
    overridden_failures: list[FailureLine] | None = None


class ArgumentsLine(CheckLine):
    """Arguments: the paired calls, field accuracy, invalid apart from wrong."""

    calls: list[CallEntry] | None = None
    field_accuracy: Number | None = None
    invalid: int | None = None
    wrong: int | None = None
    unscored_fields: list[UnscoredField] | None = None
    schema_errors: list[SchemaError] | None = None
    ungrounded: list[UngroundedValue] | None = None


class OrderingLine(CheckLine):
    """Ordering: constraints held, calls made, where the final answer came."""

    lcs_precision: Number | None = Field(None, description="in_order mode only.")
    lcs_recall: Number | None = Field(None, description="in_order mode only.")
    constraints_total: int | None = None
    constraints_held: int | None = None
    n_calls: int | None = None
    final_answer_step: int | None = None


class RecoveryLine(DecisionLine):
    """Recovery: each injected fault's stage, the state assertions, the judges' verdicts."""

    faults: list[FaultOutcome] | None = None
    state: list[StateRecord] | None = None
    judges: Literal["off", "on"] | None = Field(None, description="Whether a judge was asked.")
    mentions: list[MentionRecord] | None = None
    judge_recovery: list[RecoveryVerdict] | None = None
    judge_interpretation: VerdictRecord | None = None


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
    unscored_checks: list[CheckName] | None = Field(
        None, description="The unscored checks that keep an `unscored` verdict open."
    )


class ResultLine(_Line):
    """One line of `results.jsonl`: one case, trial and agent."""

    case_id: str
    trial: int
    agent: str | None = None
    checks: ChecksLine
    aggregate: AggregateLine
    judges: dict[str, list[JudgeLogEntry]] = Field(default_factory=dict)
    n_calls: int = 0
    error: str | None = Field(None, description="A crash outside the checks, as data.")
    catalogue_drift: dict[str, list[str]] | None = Field(
        None, description="The tools added, removed and changed in the MCP catalogue the run "
        "saw against the suite's (docs/mcp.md); only where they differ."
    )


def results_schema() -> JsonObject:
    """The JSON Schema of one results.jsonl line."""
    document: JsonObject = ResultLine.model_json_schema()
    document["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    document["title"] = f"toolgrade results.jsonl line (shape version {RESULTS_SCHEMA_VERSION})"
    return document
