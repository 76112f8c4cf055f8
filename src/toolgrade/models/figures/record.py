"""One `results.jsonl` line as Python reads it: TypedDicts of the record, check blocks included.

`models.results.TrajectoryResult.to_json` builds a `ResultRecord`; the reports read the lines
back as one (`as_record`). A check block is what every check writes (`CheckRecord`) with the
check's figures beside (`SelectionRecord` = `CheckRecord` + `SelectionFigures`, ...).
`models.result_line` is the same line as pydantic models (its JSON Schema); a test ties the two.
"""

from collections.abc import Collection, Mapping
from typing import Literal, NotRequired, TypeVar, cast

from typing_extensions import TypedDict

from toolgrade.models.figures.arguments import ArgumentsFigures, UnscoredField
from toolgrade.models.figures.failures import FailureRecord
from toolgrade.models.figures.ordering import OrderingFigures
from toolgrade.models.figures.recovery import FaultOutcome, RecoveryFigures, RecoveryVerdict
from toolgrade.models.figures.selection import SelectionFigures
from toolgrade.models.figures.verdicts import DecisionFigures, VerdictName
from toolgrade.vocabulary import CheckName

#: A check's or a run's state (`models.status`, which derives it; defined here, below it).
Status = Literal["pass", "fail", "unscored", "n/a", "error"]


class CheckRecord(TypedDict, total=False):
    """What every check writes for a run (`status` is absent from lines written before it
    existed; `error`, among the figures, when the check crashed; `unscored_run` when the
    whole run was left ungraded, as for catalogue drift)."""

    applicable: bool
    score: float | None
    passed: bool | None
    failures: list[FailureRecord]
    status: Status
    error: str
    unscored_run: str


class SelectionRecord(CheckRecord, SelectionFigures, total=False):
    """The selection block of a results line."""


class ArgumentsRecord(CheckRecord, ArgumentsFigures, total=False):
    """The arguments block of a results line."""


class OrderingRecord(CheckRecord, OrderingFigures, total=False):
    """The ordering block of a results line."""


class RecoveryRecord(CheckRecord, RecoveryFigures, total=False):
    """The recovery block of a results line."""


class BlockView(CheckRecord, DecisionFigures, total=False):
    """A block of any check, seen with the figures code reads without knowing the check
    (`models.status`, the reports): the undecided argument fields and a deciding check's
    decision. Only the checks that write them have them (`block_view`)."""

    unscored_fields: list[UnscoredField]
    faults: list[FaultOutcome]
    judge_recovery: list[RecoveryVerdict]


class ChecksRecord(TypedDict, total=False):
    """A line's check blocks by check name (a check not run has no block)."""

    selection: SelectionRecord
    arguments: ArgumentsRecord
    ordering: OrderingRecord
    recovery: RecoveryRecord


class AggregateRecord(TypedDict):
    """The case-level verdict by the case's scoring mode."""

    mode: Literal["binary", "weighted", "hybrid"]
    score: float | None
    passed: bool
    status: NotRequired[Status]
    #: The unscored checks that keep an `unscored` verdict open (only then).
    unscored_checks: NotRequired[list[CheckName]]


class JudgeLogEntry(TypedDict):
    """One judge call of the run (scoring/grading.py): the verdict, its set fields,
    `cached`; `item` (and `inputs`, when undecided) for items people may decide."""

    verdict: VerdictName
    reason: str
    label: NotRequired[str]
    p_pass: NotRequired[float]
    model: NotRequired[str]
    error: NotRequired[str]
    raw: NotRequired[str]
    escalated: NotRequired[bool]
    escalated_from: NotRequired[str]
    decided_by: NotRequired[Literal["human"]]
    cached: bool
    item: NotRequired[str]
    inputs: NotRequired[dict[str, object]]


class ResultRecord(TypedDict):
    """One line of `results.jsonl`: one case, trial and agent."""

    case_id: str
    trial: int
    agent: str | None
    checks: ChecksRecord
    aggregate: AggregateRecord
    judges: dict[str, list[JudgeLogEntry]]
    n_calls: int
    error: NotRequired[str]
    catalogue_drift: NotRequired[dict[str, list[str]]]


def block_view(block: CheckRecord) -> BlockView:
    """`block` with the figures any check's block may hold (a view: the block itself)."""
    return cast(BlockView, block)


Block = TypeVar("Block", bound=CheckRecord)


def kept_keys(block: Block, keys: Collection[str]) -> Block:
    """`block` with only `keys` (a projection, in `keys`' order: every key of a block may be
    absent, so it is still a block of its check)."""
    fields: Mapping[str, object] = block
    return cast(Block, {k: fields[k] for k in keys if k in fields})


def block_of(record: ResultRecord, check: CheckName) -> BlockView:
    """The record's block of `check` (as `block_view`); empty when it has none."""
    block = check_blocks(record.get("checks") or {}).get(check)
    return block_view(block) if isinstance(block, dict) else {}


def check_blocks(checks: ChecksRecord | Mapping[CheckName, CheckRecord]
                 ) -> Mapping[CheckName, CheckRecord]:
    """A line's check blocks by name, each as what every check writes (they all are)."""
    return cast(Mapping[CheckName, CheckRecord], checks)


def as_record(data: object) -> ResultRecord:
    """A parsed results line seen as a `ResultRecord` (a cast: read its values with the types
    the record names; a line from another version may lack keys, so readers `.get` them)."""
    return cast(ResultRecord, data)
