"""Verdicts settled before the model is asked: the injection screen, then decisive evidence.

Both are deterministic, cheap and never pass anything: they only fail what code can see is
wrong (content addressing the grader; an argument value whose date, amount, unit or number has
nothing in common with the reference). Everything else goes to the model.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from toolgrade.judging.evidence import settle_arguments
from toolgrade.judging.screen import find_injection
from toolgrade.models import JudgeDimension, Verdict

#: (dimension, inputs, mode) -> a verdict settled without the model, or None.
Settler = Callable[[JudgeDimension, Mapping[str, Any], str], Verdict | None]

#: The label a settled result_interpretation fail carries, so the recovery check reports it.
_RESULT_LABEL = "misread_result"


def settle(dimension: JudgeDimension, inputs: Mapping[str, Any], mode: str) -> Verdict | None:
    """A fail verdict decided without the model, or None when the model must be asked.

    In log-probability mode the verdict carries P(pass) = 0, so threshold fitting and
    calibration treat it like any other (certain) answer.
    """
    reason: str | None = None
    finding = find_injection(dimension, inputs)
    if finding is not None:
        reason = finding.reason()
    elif dimension == "argument_equivalence":
        settled = settle_arguments(inputs)
        reason = settled.reason if settled is not None else None
    if reason is None:
        return None
    return Verdict(
        verdict="fail",
        reason=reason,
        label=_RESULT_LABEL if dimension == "result_interpretation" else None,
        p_pass=0.0 if mode == "logprob" else None,
    )
