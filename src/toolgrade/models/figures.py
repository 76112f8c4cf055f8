"""Typed views of the per-run figures that code outside the producing check reads.

A check's figures are written as a JSON object (`CheckResult.figures`); these TypedDicts name,
in one place and with their types, the keys that other modules read. Through a view the values
are typed (a reader cannot treat `adjudicated_by` as a number) and indexing a key the view
lacks is a mypy error; `.get` of an unknown key is not (mypy allows it), so a renamed figure
must be renamed here too. `figures_as` views a figures mapping as one of them; the data is
unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypedDict, TypeVar, cast

View = TypeVar("View", "DecisionFigures", "ArgumentsFigures", "FieldFigures")


class Unadjudicated(TypedDict):
    """A deciding check's result as the deterministic code left it, before any decision."""

    score: float | None
    passed: bool | None


class RouteVerdict(TypedDict, total=False):
    """The alternate-route judge's verdict on the route the agent took."""

    verdict: str
    reason: str


class DecisionFigures(TypedDict, total=False):
    """What a deciding check (selection, recovery) records of a judge's or a person's
    decision (checks/adjudication.py)."""

    unadjudicated: Unadjudicated
    adjudicated: str
    adjudicated_by: Literal["judge", "human"]
    adjudication_reason: str
    adjudication_blocked_by: list[str]
    adjudicated_route: list[str]
    judge_route: RouteVerdict
    free_per_tool: dict[str, int]


class ArgumentsFigures(TypedDict, total=False):
    """The arguments check's figures read by the reports and the pytest plugin."""

    unscored_fields: list[dict[str, Any]]


class FieldFigures(TypedDict, total=False):
    """One argument field's suite figures (`checks.arguments.per_field`)."""

    accuracy: float | None
    n: int


def figures_as(view: type[View], figures: Mapping[str, Any]) -> View:
    """`figures` seen as `view` (a cast: the mapping itself is returned)."""
    return cast(View, figures)
