"""Every figure a gate may name is a typed field of the summary model (`models.summary`):
renaming a figure in the model without its gate, or the gate without the model, fails here."""

from __future__ import annotations

import types
from typing import Any, Union, get_args, get_origin

import pytest
from pydantic import BaseModel

from toolgrade.models.summary import AggregateSummary, ChecksSummary
from toolgrade.scoring.gates import known_figures


def _unwrap(annotation: Any) -> Any:
    """The model or container inside `X | None` and `Annotated[...]`."""
    while True:
        origin = get_origin(annotation)
        if origin in (Union, types.UnionType):
            args = [a for a in get_args(annotation) if a is not type(None)]
            models = [a for a in args if isinstance(a, type) and issubclass(a, BaseModel)]
            annotation = models[0] if models else args[0]
        elif getattr(annotation, "__metadata__", None) is not None:
            annotation = get_args(annotation)[0]
        else:
            return annotation


def _resolves(model: Any, parts: list[str]) -> bool:
    """Whether the dotted parts (`*`: any key of a mapping) name a typed field below `model`."""
    node = _unwrap(model)
    for part in parts:
        if get_origin(node) is dict:
            if part != "*":
                return False
            node = _unwrap(get_args(node)[1])
            continue
        if not (isinstance(node, type) and issubclass(node, BaseModel)):
            return False
        field = node.model_fields.get(part)
        if field is None:
            return False
        node = _unwrap(field.annotation)
    return True


GATES = [(block, figure) for block, figures in known_figures().items()
         for figure in sorted(figures)]


@pytest.mark.parametrize(("block", "figure"), GATES)
def test_every_gate_figure_is_a_field_of_the_summary_model(block: str, figure: str) -> None:
    if block == "aggregate":
        root, parts = AggregateSummary, figure.split(".")
    elif block == "coverage":
        root, parts = ChecksSummary, ["coverage", "*"]  # a count per hard-case kind
    else:
        root, parts = ChecksSummary, [block, *figure.split(".")]
    assert _resolves(root, parts), f"{block}.{figure} is not a typed summary field"


def test_a_misspelt_figure_would_not_resolve() -> None:
    assert not _resolves(ChecksSummary, ["selection", "f_one"])
    assert not _resolves(ChecksSummary, ["selection", "per_tool", "*", "accuracy"])
