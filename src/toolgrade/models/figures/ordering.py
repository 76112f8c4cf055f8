"""The ordering check's per-run figures (checks/ordering/), as one results line holds them."""

from typing import Annotated

from pydantic import Field
from typing_extensions import TypedDict


class SequenceFigures(TypedDict, total=False):
    """The `in_order` mode's longest-common-subsequence rates (absent in other modes)."""

    lcs_precision: Annotated[float, Field(description="in_order mode only.")]
    lcs_recall: Annotated[float, Field(description="in_order mode only.")]


class OrderingFigures(SequenceFigures, total=False):
    """`checks.ordering`'s figures, in the order they are written; `final_answer_step` only on
    cases with an `answer` constraint, only `error` when the check crashed."""

    error: str
    constraints_total: int
    constraints_held: int
    n_calls: int
    final_answer_step: int | None
