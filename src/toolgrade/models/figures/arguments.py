"""The arguments check's per-run figures (checks/arguments/), as one results line holds them."""

from typing import Literal, NotRequired

from typing_extensions import TypedDict

#: How one reference field compared (`checks.arguments.pairing.FieldResult.status`).
FieldStatus = Literal["match", "wrong", "missing", "unscored"]


class CallEntry(TypedDict):
    """One agent call (paired or extra) or one unpaired reference call (`step` None)."""

    tool: str
    step: int | None
    ref_index: int | None
    exact: bool | None
    valid: bool | None
    field_accuracy: float | None
    fields: dict[str, FieldStatus]
    extra_fields: NotRequired[list[str]]


class UnscoredField(TypedDict):
    """A field no judge decided: never a match, left out of accuracy."""

    tool: str
    step: int
    field: str
    reason: str


class SchemaError(TypedDict):
    """A tool whose JSON Schema could not be used."""

    tool: str
    error: str


class UngroundedValue(TypedDict):
    """An argument value that came from nowhere (checks/arguments/grounding.py)."""

    step: int
    tool: str
    field: str
    value: str | int | float
    kind: str


class ArgumentsFigures(TypedDict, total=False):
    """`checks.arguments`'s figures, in the order they are written. Only `ungrounded` on a run
    graded without reference calls; only `error` when the check crashed."""

    error: str
    calls: list[CallEntry]
    field_accuracy: float | None
    invalid: int
    wrong: int
    unscored_fields: list[UnscoredField]
    schema_errors: list[SchemaError]
    ungrounded: list[UngroundedValue]
