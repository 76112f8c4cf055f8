"""The typed shape of `summary.json` (DESIGN section 7): what reports, gates and tools read.

The runner still builds the summary as JSON-ready data; these models say what that data is,
so `toolgrade schema --summary` can print its JSON Schema, a test can hold every written
summary to it, and a reader can use typed fields instead of string keys. Figures not modelled
field by field yet (per-field accuracy, stages, reliability details) are kept as they are
(`extra="allow"`), so validating a summary never drops or changes a value.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from toolgrade.vocabulary import FailureName, JudgeDimension

#: The version of the summary's shape; raised when a field changes meaning or goes away.
SUMMARY_SCHEMA_VERSION = 1


class _Open(BaseModel):
    """A block whose modelled fields are typed and whose other figures are kept as written."""

    model_config = ConfigDict(extra="allow", frozen=True)


class ToolFigures(_Open):
    """Selection counts and rates for one tool."""

    tp: int
    fp: int
    fn: int
    precision: float | None = None
    recall: float | None = None
    f1: float | None = None


class CheckSummary(_Open):
    """What every check reports for the suite: how many runs it applied to and passed."""

    pass_rate: float | None = None
    applicable: int = 0


class SelectionSummary(CheckSummary):
    """Multiset precision/recall over tool names, pooled and per tool."""

    precision: float | None = None
    recall: float | None = None
    f1: float | None = None
    tp: int = 0
    fp: int = 0
    fn: int = 0
    per_tool: dict[str, ToolFigures] = Field(default_factory=dict)


class ArgumentsSummary(CheckSummary):
    """Exact calls, field accuracy, and invalid kept apart from wrong."""

    exact_rate: float | None = None
    field_accuracy: float | None = None
    invalid: int = 0
    wrong: int = 0
    unscored: int = 0


class OrderingSummary(CheckSummary):
    """Constraint pass rate and step efficiency per task type (None: no efficient run)."""

    efficiency: dict[str, float | None] = Field(default_factory=dict)
    efficiency_n: dict[str, int] = Field(default_factory=dict)


class RecoverySummary(CheckSummary):
    """Fault recovery, state assertions and pass^k."""

    stages: dict[str, int] = Field(default_factory=dict)
    state_pass_rate: float | None = None
    pass_at_k: dict[str, float] = Field(default_factory=dict)
    pass_hat_k: dict[str, float] = Field(default_factory=dict)


class ChecksSummary(_Open):
    """The four checks' suite figures, and the suite's hard-case coverage."""

    selection: SelectionSummary
    arguments: ArgumentsSummary
    ordering: OrderingSummary
    recovery: RecoverySummary
    coverage: dict[str, int] = Field(default_factory=dict)


class AggregateSummary(_Open):
    """The aggregate verdict across runs."""

    pass_rate: float | None = None
    mean_score: float | None = None


class JudgeSummary(_Open):
    """One judge dimension as the run used it."""

    model: str | None = None
    status: str | None = None
    calibration: dict[str, Any] | None = None


class GateResult(_Open):
    """One gate of `[gates]` and whether the run met it."""

    check: str
    metric: str
    value: float | None
    threshold: float
    passed: bool


class AgentSummary(_Open):
    """One agent's share of the runs."""

    trajectories: int
    pass_rate: float | None = None
    mean_score: float | None = None
    checks: dict[str, dict[str, Any]] = Field(default_factory=dict)


class RunSummary(_Open):
    """`summary.json`: the suite-level figures of one `toolgrade run`."""

    cases: int
    trajectories: int
    checks: ChecksSummary
    failures: dict[FailureName, int] = Field(default_factory=dict)
    aggregate: AggregateSummary
    agents: dict[str, AgentSummary] = Field(default_factory=dict)
    reliability: dict[str, dict[str, Any]] = Field(default_factory=dict)
    errors: int = 0
    adjudication: dict[str, Any] = Field(default_factory=dict)
    unscored: dict[str, Any] = Field(default_factory=dict)
    judges: dict[JudgeDimension, JudgeSummary] = Field(default_factory=dict)
    suite: str | None = None
    gates: list[GateResult] = Field(default_factory=list)
    cases_without_runs: list[str] = Field(default_factory=list)
