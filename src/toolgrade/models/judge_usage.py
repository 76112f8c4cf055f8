"""What a run's judge reports about itself: per-dimension usage, and the port that reports it.

`JudgeEngine.usage()` counts each dimension's requests and model calls; the wrappers around it
add to those figures (`WithholdingJudge`: `withheld`; `EscalatingJudge`: the escalation
engine's own figures under `escalation`), and `composition.judges.JudgeSetup.summary` adds what
the run knows (`status`, `calibration`, `items`) to make `summary.json` `judges.<dimension>`.
One TypedDict serves every stage, so mypy checks each key wherever it is read or written.
"""

from __future__ import annotations

from typing import Protocol, TypedDict

from toolgrade.models.calibration_data import CalibrationSummary
from toolgrade.models.judging import JudgeDimension, JudgePort


class JudgeUsage(TypedDict, total=False):
    """One dimension of one judge: its model, usage figures and, in the summary, its status.

    `JudgeEngine.usage()` writes `model` through `cost_usd`, always; the other keys are written
    only by the stage that knows them (see the module).
    """

    model: str | None
    #: Model calls made, retries and re-asks included.
    calls: int
    requests: int
    cache_hits: int
    memo_hits: int
    #: Answered by the injection screen or deterministic evidence, without the model.
    settled: int
    unscored: int
    errors: int
    tokens: int
    cost_usd: float
    #: Requests answered unscored because the dimension may not decide (`judging.escalation`).
    withheld: int
    #: Why the judge is off, or how it is limited ("off (settings)").
    status: str
    calibration: CalibrationSummary | None
    #: The escalation judge of this dimension: its usage, model, calibration and status.
    escalation: JudgeUsage
    #: Where the dimension's items went (`scoring.adjudication.JudgeItemTally`).
    items: dict[str, int]


#: Each dimension's usage, as a judge's `usage()` returns it.
UsageByDimension = dict[JudgeDimension, JudgeUsage]


class RunJudge(JudgePort, Protocol):
    """What a run asks of its judge beside verdicts: the judge engine and its wrappers
    (`WithholdingJudge`, `EscalatingJudge`) all offer it."""

    def usage(self) -> UsageByDimension:
        """Per-dimension usage figures."""
        ...

    def model_for(self, dimension: JudgeDimension) -> str:
        """The model judging `dimension` ("unconfigured" when none)."""
        ...

    def template_hash_for(self, dimension: JudgeDimension) -> str:
        """The hash of the prompt template `dimension` is judged with."""
        ...

    def close(self) -> None:
        """Release the verdict cache."""
        ...
