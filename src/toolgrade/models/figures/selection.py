"""The selection check's per-run figures (checks/selection.py), as one results line holds them."""

from typing import Annotated

from pydantic import Field
from typing_extensions import TypedDict

from toolgrade.models.figures.failures import FailureRecord
from toolgrade.models.figures.verdicts import DecisionFigures


class ToolCounts(TypedDict):
    """One tool's multiset counts against the chosen route."""

    tp: int
    fp: int
    fn: int


class Substitution(TypedDict):
    """A missed reference tool paired with the foreign call made in its place."""

    expected: str
    actual: str


class SelectionRates(TypedDict):
    """Counts and the rates they give (`checks.selection_figures.Counts.figures`)."""

    tp: int
    fp: int
    fn: int
    precision: float
    recall: float
    f1: float


class SelectionFigures(DecisionFigures, total=False):
    """`checks.selection`'s figures, in the order they are written. Every key may be absent:
    a crashed check records only `error`; `free_*` only on cases with free calls; the decision
    keys only when a judge or person was asked."""

    error: str
    tp: int
    fp: int
    fn: int
    precision: float
    recall: float
    f1: float
    route: Annotated[int, Field(description="The listed route the run was held to.")]
    per_tool: dict[str, ToolCounts]
    side_effect_extras: list[str]
    substitutions: list[Substitution]
    free_calls: Annotated[int, Field(
        description="Calls of free tools beyond the route (cases with free calls).")]
    free_per_tool: dict[str, int]
    overridden_failures: list[FailureRecord]
