"""The typed shape of one `results.jsonl` line (docs/contract.md), for `toolgrade schema
--results` and for tools that read results files.

`TrajectoryResult.to_json` writes the line: a check's figures sit beside its applicable,
score, passed, failures and status. A check's block here is built from its figures TypedDict
in `models.figures` (`block_model`): a figure is declared once, there, with its type (and its
description, as `Annotated[..., Field(description=...)]`); the block reads it back optional,
an int kept where a float was declared. A figure not declared (a custom check's) is allowed
and kept. A line read through `ResultLine.model_validate` keeps every value as written.
`results_schema(blocks)` takes the blocks of every registered check (`checks.registry`).
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from typing import Annotated, Any, Literal, NotRequired, Required, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.fields import FieldInfo
from typing_extensions import get_type_hints

from toolgrade.jsonio.values import JsonObject
from toolgrade.models.figures import (
    ArgumentsFigures,
    DecisionFigures,
    FailureRecord,
    JudgeLogEntry,
    OrderingFigures,
    RecoveryFigures,
    SelectionFigures,
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


def _as_written(hint: Any) -> Any:
    """A figure's type as a line reads it back: a float may have been written as an int
    (`Number`), a failure carries its evidence keys (`FailureLine`); containers and unions
    are rebuilt around their members."""
    if hint is float:
        return Number
    if hint is FailureRecord:
        return FailureLine
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, types.UnionType):
        return Union[tuple(_as_written(a) for a in args)]  # noqa: UP007 (built at run time)
    if origin in (list, dict):
        return origin[tuple(_as_written(a) for a in args)]
    return hint


def _field(hint: Any) -> tuple[Any, Any]:
    """A figure's field: its type as written or None (every figure may be absent), with the
    `Field` its TypedDict annotated it with (a description), default None."""
    if get_origin(hint) in (NotRequired, Required):
        hint = get_args(hint)[0]
    if get_origin(hint) is Annotated:
        hint, *extras = get_args(hint)
        infos = [x for x in extras if isinstance(x, FieldInfo)]
        return _as_written(hint) | None, Field(None, description=infos[0].description)
    return _as_written(hint) | None, None


def block_model(name: str, figures: Any, base: type[CheckLine] = CheckLine) -> type[CheckLine]:
    """The pydantic model of a check's block: `base`'s fields plus one optional field per key
    of the check's `figures` TypedDict, in its order, described by the TypedDict's docstring.
    The TypedDict is the one place a figure is declared (docs/architecture.md)."""
    hints = get_type_hints(figures, include_extras=True)
    fields: dict[str, Any] = {
        key: _field(hint) for key, hint in hints.items() if key not in base.model_fields}
    doc: str | None = _DOCS.get(name) or figures.__doc__
    return create_model(name, __base__=base, __doc__=doc, __module__=__name__, **fields)


#: The blocks' descriptions in the schema (a figures TypedDict's docstring speaks of Python).
_DOCS = {
    "DecisionLine": "What a deciding check (selection, recovery) adds when a judge or a person "
                    "decides.",
    "SelectionLine": "Selection: multiset counts, per tool, substitutions, and any decision on "
                     "the route.",
    "ArgumentsLine": "Arguments: the paired calls, field accuracy, invalid apart from wrong.",
    "OrderingLine": "Ordering: constraints held, calls made, where the final answer came.",
    "RecoveryLine": "Recovery: each injected fault's stage, the state assertions, the judges' "
                    "verdicts.",
}

DecisionLine = block_model("DecisionLine", DecisionFigures)
SelectionLine = block_model("SelectionLine", SelectionFigures, DecisionLine)
ArgumentsLine = block_model("ArgumentsLine", ArgumentsFigures)
OrderingLine = block_model("OrderingLine", OrderingFigures)
RecoveryLine = block_model("RecoveryLine", RecoveryFigures, DecisionLine)
#: The shipped checks' blocks, in report order (`checks.registry` holds every check's).
SHIPPED_BLOCKS: dict[str, type[CheckLine]] = {
    "selection": SelectionLine, "arguments": ArgumentsLine, "ordering": OrderingLine,
    "recovery": RecoveryLine,
}


def checks_model(blocks: Mapping[str, type[CheckLine]]) -> type[_Line]:
    """The run's check blocks by check name (a check not run has no block)."""
    fields: dict[str, Any] = {name: (block | None, None) for name, block in blocks.items()}
    return create_model("ChecksLine", __base__=_Line, __doc__=checks_model.__doc__,
                        __module__=__name__, **fields)


ChecksLine = checks_model(SHIPPED_BLOCKS)


class AggregateLine(_Line):
    """The case-level verdict by the case's scoring mode."""

    mode: Literal["binary", "weighted", "hybrid"]
    score: Number | None = None
    passed: bool
    status: Status | None = None
    unscored_checks: list[CheckName] | None = Field(
        None, description="The unscored checks that keep an `unscored` verdict open."
    )


def result_line_model(blocks: Mapping[str, type[CheckLine]] = SHIPPED_BLOCKS
                      ) -> type[_Line]:
    """One line of `results.jsonl`: one case, trial and agent, with these checks' blocks."""
    return create_model(
        "ResultLine", __base__=_Line, __doc__="One line of `results.jsonl`: one case, trial and "
        "agent.", __module__=__name__,
        case_id=(str, ...), trial=(int, ...), agent=(str | None, None),
        checks=(checks_model(blocks), ...), aggregate=(AggregateLine, ...),
        judges=(dict[str, list[JudgeLogEntry]], Field(default_factory=dict)),
        n_calls=(int, 0),
        error=(str | None, Field(None, description="A crash outside the checks, as data.")),
        catalogue_drift=(dict[str, list[str]] | None, Field(
            None, description="The tools added, removed and changed in the MCP catalogue the "
            "run saw against the suite's (docs/mcp.md); only where they differ.")),
    )


ResultLine = result_line_model()


def results_schema(blocks: Mapping[str, type[CheckLine]] = SHIPPED_BLOCKS) -> JsonObject:
    """The JSON Schema of one results.jsonl line with these checks' blocks (`toolgrade schema
    --results` passes the registry's)."""
    document: JsonObject = result_line_model(blocks).model_json_schema()
    document["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    document["title"] = f"toolgrade results.jsonl line (shape version {RESULTS_SCHEMA_VERSION})"
    return document
