"""The types of the per-run figures every check writes, and of one results line.

A check's figures are a JSON object (`CheckResult.figures`, written beside applicable, score,
passed and failures in `results.jsonl`); the TypedDicts here name every key of the four checks'
figures with its type, nested shapes included. The checks build them (`-> SelectionFigures`),
and every reader outside the producing check reads them through `figures_of`, which checks the
result's check name and returns its figures typed, so mypy checks each key read. `record`
types a whole results line for the reports. A new figure: add the key to its check's TypedDict
(and to `models.result_line`: tests/models/test_figures.py fails until both agree).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, Protocol, overload

from toolgrade.models.figures.arguments import (
    ArgumentsFigures,
    CallEntry,
    FieldStatus,
    SchemaError,
    UngroundedValue,
    UnscoredField,
)
from toolgrade.models.figures.failures import FailureRecord
from toolgrade.models.figures.ordering import OrderingFigures, SequenceFigures
from toolgrade.models.figures.record import (
    AggregateRecord,
    ArgumentsRecord,
    BlockView,
    CheckRecord,
    ChecksRecord,
    JudgeLogEntry,
    OrderingRecord,
    RecoveryRecord,
    ResultRecord,
    SelectionRecord,
    Status,
    as_record,
    block_of,
    block_view,
    check_blocks,
    kept_keys,
)
from toolgrade.models.figures.recovery import (
    FaultOutcome,
    MentionRecord,
    RecoveryFigures,
    RecoveryVerdict,
    Stage,
    StateRecord,
)
from toolgrade.models.figures.selection import (
    SelectionFigures,
    SelectionRates,
    Substitution,
    ToolCounts,
)
from toolgrade.models.figures.verdicts import (
    DecisionFigures,
    Unadjudicated,
    VerdictName,
    VerdictRecord,
)


class CheckResult(Protocol):
    """What `figures_of` reads of a `models.results.CheckResult` (named so here to keep this
    package below `models.results`, which imports it)."""

    @property
    def check(self) -> str:
        """The check that wrote the figures."""
        ...

    @property
    def figures(self) -> Mapping[str, object]:
        """The check's figures."""
        ...

#: Any one check's figures.
AnyFigures = SelectionFigures | ArgumentsFigures | OrderingFigures | RecoveryFigures


@overload
def figures_of(result: CheckResult, check: Literal["selection"]) -> SelectionFigures: ...
@overload
def figures_of(result: CheckResult, check: Literal["arguments"]) -> ArgumentsFigures: ...
@overload
def figures_of(result: CheckResult, check: Literal["ordering"]) -> OrderingFigures: ...
@overload
def figures_of(result: CheckResult, check: Literal["recovery"]) -> RecoveryFigures: ...
def figures_of(result: CheckResult, check: str) -> Mapping[str, object]:
    """`result`'s figures typed as `check`'s; a result of another check is refused (ValueError),
    so a reader cannot see one check's figures through another's type."""
    if result.check != check:
        raise ValueError(f"figures of {result.check!r} read as {check!r}'s")
    return result.figures


def decision_of(result: CheckResult) -> DecisionFigures:
    """The decision keys of a deciding check's result (selection or recovery; another check's
    result has none: an empty view)."""
    if result.check == "selection":
        return figures_of(result, "selection")
    if result.check == "recovery":
        return figures_of(result, "recovery")
    return {}


__all__ = [
    "AggregateRecord",
    "AnyFigures",
    "ArgumentsFigures",
    "ArgumentsRecord",
    "BlockView",
    "CallEntry",
    "CheckRecord",
    "ChecksRecord",
    "DecisionFigures",
    "FailureRecord",
    "FaultOutcome",
    "FieldStatus",
    "JudgeLogEntry",
    "MentionRecord",
    "OrderingFigures",
    "OrderingRecord",
    "RecoveryFigures",
    "RecoveryRecord",
    "RecoveryVerdict",
    "ResultRecord",
    "SchemaError",
    "SelectionFigures",
    "SelectionRates",
    "SelectionRecord",
    "SequenceFigures",
    "Stage",
    "StateRecord",
    "Status",
    "Substitution",
    "ToolCounts",
    "Unadjudicated",
    "UngroundedValue",
    "UnscoredField",
    "VerdictName",
    "VerdictRecord",
    "as_record",
    "block_of",
    "block_view",
    "check_blocks",
    "decision_of",
    "figures_of",
    "kept_keys",
]
