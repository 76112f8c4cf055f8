"""The names of the judge dimensions, in a module that imports nothing.

`toolgrade.models` re-exports them; they live here so that the command line can list them in
its help without importing the pydantic models (a tenth of a second of start-up).
"""

from __future__ import annotations

from typing import Literal

JudgeDimension = Literal[
    "argument_equivalence", "alternate_route", "recovery_quality", "result_interpretation"
]
JUDGE_DIMENSIONS: tuple[JudgeDimension, ...] = (
    "argument_equivalence",
    "alternate_route",
    "recovery_quality",
    "result_interpretation",
)
