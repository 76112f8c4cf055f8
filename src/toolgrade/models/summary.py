"""The typed shape of `summary.json` (docs/contract.md): what the runner builds and writes, and
what reports, gates, the pytest plugin and the CLI read.

The runner folds its figures, validates them into a `RunSummary` once, and writes that model:
`summary.json` is `RunSummary.to_json_text()`. Each block keeps the key order its producer gave
it (`SummaryBlock`), so validating and writing changes no byte; figures a block does not model field
by field (a custom check's block, a future figure) are kept as they are (`extra="allow"`).
Numbers are `int | float` where a producer may write either: pydantic would turn an int written
into a float field into a float, and `1` would be written back as `1.0`.
"""

from __future__ import annotations

from typing import Annotated, Any, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_serializer,
    model_validator,
)
from pydantic_core import PydanticCustomError

from toolgrade.jsonio import out as json_out
from toolgrade.models.judge_usage import UsageByDimension
from toolgrade.models.status import describe_count
from toolgrade.vocabulary import FailureName, JudgeDimension

#: The version of the summary's shape; raised when a field changes meaning or goes away.
SUMMARY_SCHEMA_VERSION = 1

def _number(value: Any, handler: ValidatorFunctionWrapHandler) -> int | float:
    """An int or a float, kept as it is (never a bool, never a numeric string)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PydanticCustomError("number_type", "Input should be a valid number")
    return value


#: A figure a producer may write as an int or a float (kept as written: a float field would
#: turn an int into a float, and `1` would be written back as `1.0`).
Number = Annotated[int | float, WrapValidator(_number)]


class SummaryBlock(BaseModel):
    """A block whose modelled fields are typed, whose other figures are kept as written, and
    which is written back in the key order it was read in (declared order when built in code)."""

    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True)

    _order: tuple[str, ...] = PrivateAttr(default=())

    @model_validator(mode="wrap")
    @classmethod
    def _remember_order(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Self:
        block: Self = handler(data)
        if isinstance(data, dict):
            block._order = tuple(data)
        return block

    @model_serializer(mode="wrap")
    def _in_order(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out: dict[str, Any] = handler(self)
        if not self._order:
            return out
        rank = {key: i for i, key in enumerate(self._order)}
        return dict(sorted(out.items(), key=lambda item: rank.get(item[0], len(rank))))


class KindRate(SummaryBlock):
    """One hard-case kind's share of passing runs (`per_kind`)."""

    n: int
    pass_rate: Number | None = None


class ToolFigures(SummaryBlock):
    """Selection counts and rates for one tool."""

    tp: int
    fp: int
    fn: int
    precision: Number | None = None
    recall: Number | None = None
    f1: Number | None = None


class ConfusionCell(SummaryBlock):
    """How often an expected tool was answered by a given actual tool (`none`: not at all)."""

    expected: str
    actual: str
    count: int


class CheckSummary(SummaryBlock):
    """What every check's block holds: its pass rate over the runs it applied to.

    (Written in each producer's key order, not this declaration's: see `SummaryBlock`.)"""

    pass_rate: Number | None = None
    applicable: int = 0


class SelectionSummary(CheckSummary):
    """Multiset precision/recall over tool names, pooled and per tool."""

    precision: Number | None = None
    recall: Number | None = None
    f1: Number | None = None
    tp: int = 0
    fp: int = 0
    fn: int = 0
    per_tool: dict[str, ToolFigures] = Field(default_factory=dict)
    confusion: list[ConfusionCell] = Field(default_factory=list)
    side_effect_extras: dict[str, int] = Field(default_factory=dict)
    free_calls: dict[str, int] | None = None
    per_kind: dict[str, KindRate] = Field(default_factory=dict)

    @property
    def no_tool_expected(self) -> bool:
        """Whether no graded case expected any tool call (every selection case is `no_tool`):
        precision and F1 then mean nothing and the reports say "no tool expected" instead."""
        return bool(self.applicable) and self.tp == 0 and self.fn == 0


class FieldSummary(SummaryBlock):
    """One argument field's figures over the suite (`per_field["tool.field"]`)."""

    n: int = 0
    accuracy: Number | None = None
    precision: Number | None = None
    recall: Number | None = None
    f1: Number | None = None


class GivenSelection(SummaryBlock):
    """The arguments figures over runs whose tools were right (selection passed)."""

    n: int = 0
    pass_rate: Number | None = None
    exact_rate: Number | None = None
    field_accuracy: Number | None = None


class Ungrounded(SummaryBlock):
    """Argument values found nowhere in the run's inputs or earlier results."""

    values: int = 0
    runs: int = 0


class ArgumentsSummary(CheckSummary):
    """Exact calls, field accuracy, and invalid kept apart from wrong."""

    exact_rate: Number | None = None
    field_accuracy: Number | None = None
    invalid: int = 0
    wrong: int = 0
    unscored: int = 0
    per_field: dict[str, FieldSummary] = Field(default_factory=dict)
    field_precision: Number | None = None
    field_recall: Number | None = None
    field_f1: Number | None = None
    given_selection: GivenSelection | None = None
    ungrounded: Ungrounded | None = None
    per_kind: dict[str, KindRate] = Field(default_factory=dict)


class OrderingSummary(CheckSummary):
    """Constraint pass rate, step efficiency per task type (None: no efficient run), and the
    ordering failures by name."""

    efficiency: dict[str, Number | None] = Field(default_factory=dict)
    efficiency_n: dict[str, int] = Field(default_factory=dict)
    failures: dict[str, int] = Field(default_factory=dict)


class RecoverySummary(CheckSummary):
    """Fault recovery stages, state assertions, mentions and pass^k."""

    stages: dict[str, int] = Field(default_factory=dict)
    state_pass_rate: Number | None = None
    mention_pass_rate: Number | None = None
    pass_at_k: dict[str, Number] = Field(default_factory=dict)
    pass_hat_k: dict[str, Number] = Field(default_factory=dict)


class ChecksSummary(SummaryBlock):
    """The checks' suite figures (a custom check's block is kept as an extra), and the suite's
    hard-case coverage. A check left out of the run (`grade(checks=...)`) has no block."""

    selection: SelectionSummary | None = None
    arguments: ArgumentsSummary | None = None
    ordering: OrderingSummary | None = None
    recovery: RecoverySummary | None = None
    coverage: dict[str, int] = Field(default_factory=dict)

    def of(self, check: str) -> CheckSummary | None:
        """The block of a check by name (None when it did not run): one of the four typed
        fields, or a registered check's block, kept as an extra, read as a `CheckSummary`."""
        if check in type(self).model_fields and check != "coverage":
            block: object = getattr(self, check)
        else:
            block = (self.model_extra or {}).get(check)
        if isinstance(block, dict):
            return CheckSummary.model_validate(block)
        return block if isinstance(block, CheckSummary) else None


class AggregateSummary(SummaryBlock):
    """The aggregate verdict across runs."""

    pass_rate: Number | None = None
    mean_score: Number | None = None


class AgentCheck(SummaryBlock):
    """One check's pass rate over one agent's runs."""

    pass_rate: Number | None = None
    given_selection: GivenSelection | None = None


class AgentSummary(SummaryBlock):
    """One agent's share of the runs."""

    trajectories: int
    pass_rate: Number | None = None
    mean_score: Number | None = None
    checks: dict[str, AgentCheck] = Field(default_factory=dict)


class CaseReliability(SummaryBlock):
    """One case's trials: n runs, c passed, and pass@k / pass^k for k up to n."""

    n: int
    c: int
    pass_at_k: dict[str, Number] = Field(default_factory=dict)
    pass_hat_k: dict[str, Number] = Field(default_factory=dict)


class JudgeCounts(SummaryBlock):
    """A judge's decisions on one deciding check's routes."""

    pass_: int = Field(0, alias="pass")
    fail: int = 0
    unscored: int = 0


class PeopleCounts(SummaryBlock):
    """People's decisions on one deciding check's routes."""

    pass_: int = Field(0, alias="pass")
    fail: int = 0


class AdjudicatedCheck(SummaryBlock):
    """How a deciding check's runs were decided and its pass rate with and without them."""

    adjudicated: int = 0
    judge: JudgeCounts = Field(default_factory=JudgeCounts)
    human: PeopleCounts = Field(default_factory=PeopleCounts)
    blocked_by_hard_fail: int = 0
    pass_rate: Number | None = None
    pass_rate_without: Number | None = None


class AdjudicatedAggregate(SummaryBlock):
    """The aggregate pass rate with and without decided routes."""

    pass_rate: Number | None = None
    pass_rate_without: Number | None = None


class AdjudicationSummary(SummaryBlock):
    """Present when a judge or a person decided a route."""

    selection: AdjudicatedCheck | None = None
    recovery: AdjudicatedCheck | None = None
    aggregate: AdjudicatedAggregate | None = None


class UnscoredGroup(SummaryBlock):
    """Unscored items of one kind for one reason."""

    kind: str
    reason: str
    items: int


class UnscoredCheck(SummaryBlock):
    """One check's undecided items: how many runs, items, and why."""

    runs: int = 0
    items: int = 0
    reasons: dict[str, int] = Field(default_factory=dict)
    by: list[UnscoredGroup] = Field(default_factory=list)

    def text(self, judges_off: bool = False) -> str | None:
        """`25 runs · 30 free-text fields need a judge: ...`, or None when no item was left.
        `judges_off`: judging was switched off on purpose (`--no-judge`), so no hint to
        configure a judge is given."""
        if not self.items:
            return None
        why = "; ".join(describe_count(g.kind, g.reason, g.items, hinted=not judges_off)
                        for g in self.by)
        head = f"{self.runs} run{'' if self.runs == 1 else 's'}"
        return f"{head} · {why}" if why else head


class UnscoredSummary(SummaryBlock):
    """Present when something was left undecided: runs and, per check, the items and reasons."""

    runs: int = 0
    checks: dict[str, UnscoredCheck] = Field(default_factory=dict)

    def text(self) -> str | None:
        """`14 runs unscored: not passed only because ...`, or None when no check left any."""
        if not self.checks:
            return None
        return (f"{self.runs} run{'' if self.runs == 1 else 's'} unscored: not passed only "
                "because items were left undecided (never counted as passes)")


class OtlpSummary(SummaryBlock):
    """What an OTLP export held and which spans were kept out of the runs."""

    files: int = 0
    traces: int = 0
    spans: int = 0
    tool_calls: int = 0
    other_traces: int = 0
    left_out: dict[str, int] = Field(default_factory=dict)


class McpCatalogueRef(SummaryBlock):
    """The catalogue a `tools_from` suite took its tools from."""

    file: str
    hash: str
    tools: int


class McpCoverage(SummaryBlock):
    """The share of the catalogue's tools the cases expect and the runs called."""

    expected: int
    expected_share: Number | None = None
    called: int
    called_share: Number | None = None
    never_expected: list[str] = Field(default_factory=list)
    never_called: list[str] = Field(default_factory=list)
    calls: dict[str, int] = Field(default_factory=dict)


class McpDrift(SummaryBlock):
    """Runs that saw another catalogue than the suite's, and per tool how (added, removed,
    changed: runs)."""

    on_drift: str
    runs: int
    recorded: int
    with_drift: int
    tools: dict[str, dict[str, int]] = Field(default_factory=dict)


class McpSummary(SummaryBlock):
    """Present for a suite that takes its tools from an MCP catalogue (docs/mcp.md)."""

    catalogue: McpCatalogueRef
    coverage: McpCoverage
    drift: McpDrift


class JudgeSummary(SummaryBlock):
    """One judge dimension as the run used it: model, usage, status, calibration and items
    (no usage figures when the judge was off)."""

    model: str | None = None
    calls: int | None = None
    requests: int | None = None
    cache_hits: int | None = None
    memo_hits: int | None = None
    settled: int | None = None
    unscored: int | None = None
    errors: int | None = None
    tokens: int | None = None
    cost_usd: Number | None = None
    status: str | None = None
    calibration: dict[str, Any] | None = None
    items: dict[str, int] | None = None


class GateResult(SummaryBlock):
    """One gate of `[gates]` and whether the run met it."""

    check: str
    metric: str
    value: Number | None
    threshold: Number
    passed: bool

    def _shown(self, value: float) -> str:
        """4 significant digits, more when a failed figure would read as its minimum (0.89996
        is not shown as 0.9 beside a minimum of 0.9)."""
        digits = 4
        while (
            not self.passed
            and digits < 17
            and f"{value:.{digits}g}" == f"{self.threshold:.{max(digits, 6)}g}"
        ):
            digits += 1
        return f"{value:.{digits}g}"

    def message(self) -> str:
        """One line naming the check, the figure, its value and the threshold."""
        shown = "n/a (nothing applicable)" if self.value is None else self._shown(self.value)
        verdict = "ok" if self.passed else "FAILED"
        line = f"gate {verdict}: {self.check}.{self.metric} = {shown}, minimum {self.threshold:g}"
        extra = self.model_extra or {}
        if extra.get("status") == "unscored":  # scoring.gates: held only if unscored runs pass
            runs, best = extra.get("unscored_runs"), extra.get("at_most")
            line += (f" (unscored: {runs} undecided run(s) could bring it to "
                     f"{self._shown(float(best or 0))}; decide them to settle it)")
        return line


class RunSummary(SummaryBlock):
    """`summary.json`: the suite-level figures of one `toolgrade run`.

    `schema_version` is written by every run since version 1 (a summary without it, read by
    `toolgrade report`, is taken as version 1 and written back without it)."""

    schema_version: int = SUMMARY_SCHEMA_VERSION
    cases: int
    trajectories: int
    checks: ChecksSummary
    failures: dict[FailureName, int] = Field(default_factory=dict)
    aggregate: AggregateSummary
    agents: dict[str, AgentSummary] = Field(default_factory=dict)
    reliability: dict[str, CaseReliability] = Field(default_factory=dict)
    errors: int = 0
    adjudication: AdjudicationSummary | None = None
    unscored: UnscoredSummary | None = None
    cases_without_runs: list[str] = Field(default_factory=list)
    otlp: OtlpSummary | None = None
    mcp: McpSummary | None = None
    judges: dict[JudgeDimension, JudgeSummary] = Field(default_factory=dict)
    suite: str | None = None
    suite_sha256: str | None = Field(
        None, description="The suite's sha256 as graded (`toolgrade compare` reads it).")
    gates: list[GateResult] = Field(default_factory=list)

    def check_unscored_text(self, check: str) -> str | None:
        """What of `check` was unscored and why, or None (also for a summary from before
        `summary.unscored`)."""
        block = self.unscored.checks.get(check) if self.unscored is not None else None
        return block.text(judges_off=self.judges_switched_off()) if block is not None else None

    def judges_switched_off(self) -> bool:
        """Whether judging was switched off on purpose for this run (`--no-judge`)."""
        return any((j.status or "").startswith("off (--no-judge)") for j in self.judges.values())

    def runs_unscored_text(self) -> str | None:
        """How many runs were unscored, or None."""
        return self.unscored.text() if self.unscored is not None else None

    def with_run_context(self, *, judges: UsageByDimension, suite: str,
                         suite_sha256: str | None = None) -> RunSummary:
        """This summary with what only the command knows: the judges' usage and calibration,
        the suite's path (where `toolgrade adjudicate` finds the suite) and its sha256."""
        update: dict[str, Any] = {
            "judges": {name: JudgeSummary.model_validate(block) for name, block in judges.items()},
            "suite": suite,
        }
        if suite_sha256 is not None:
            update["suite_sha256"] = suite_sha256
        return self.model_copy(update=update)

    def with_gates(self, gates: list[GateResult]) -> RunSummary:
        """This summary with the outcomes of the `[gates]` it was held to (written always)."""
        return self.model_copy(update={"gates": list(gates)})

    def to_data(self) -> dict[str, Any]:
        """The JSON-ready form, exactly what `summary.json` holds."""
        data: dict[str, Any] = self.model_dump(mode="json", exclude_unset=True, by_alias=True)
        return data

    def to_json_text(self) -> str:
        """The text of `summary.json`."""
        return json_out.dumps(self.to_data(), indent=2, ensure_ascii=False) + "\n"
