"""A judge engine with some dimensions withheld: their requests are answered `unscored`.

A judge asked to decide outcomes (`judge_alternates`, `judge_quality`) must carry a calibration
record over its kappa floor (docs/judges.md). One that does not is not let decide, and does
not stop the run either: every request of its dimension is answered `unscored` with the reason
"awaiting adjudication" and no model call, so the items it would have decided stay undecided,
are shown as such and are listed by `toolgrade adjudicate`. Only `[judge] require_calibration =
true` refuses such a run instead (composition/judges.py).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Mapping
from typing import Any

from toolgrade.models import JudgeDimension, JudgeRequest, Verdict
from toolgrade.models.judge_usage import RunJudge, UsageByDimension
from toolgrade.models.status import AWAITING


def awaiting_reason(dimension: JudgeDimension, model: str) -> str:
    """`awaiting adjudication (the alternate_route judge ... is not calibrated over its floor)`."""
    return (f"{AWAITING} (the {dimension} judge {model} is not calibrated over its kappa floor, "
            "so it does not decide)")


class WithholdingJudge:
    """Wraps a judge engine; `withheld` maps each dimension not let decide to its reason.

    Everything but `judge` and `usage` is the engine's (model_for, close, ...).
    """

    def __init__(self, engine: RunJudge, withheld: Mapping[JudgeDimension, str]) -> None:
        self._engine = engine
        self.withheld = dict(withheld)
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()

    def judge(self, request: JudgeRequest) -> Verdict:
        """The engine's verdict, or `unscored` with no model call for a withheld dimension."""
        reason = self.withheld.get(request.dimension)
        if reason is None:
            verdict: Verdict = self._engine.judge(request)
            return verdict
        with self._lock:
            self._counts[request.dimension] += 1
        return Verdict.unscored(reason, model=self._engine.model_for(request.dimension))

    def usage(self) -> UsageByDimension:
        """The engine's usage, with each withheld request counted as a request left
        unscored and under `withheld`."""
        usage = {dim: block.copy() for dim, block in self._engine.usage().items()}
        with self._lock:
            counts = dict(self._counts)
        for dim in self.withheld:
            block = usage.setdefault(dim, {})
            n = counts.get(dim, 0)
            block["requests"] = block.get("requests", 0) + n
            block["unscored"] = block.get("unscored", 0) + n
            block["withheld"] = n
        return usage

    def model_for(self, dimension: JudgeDimension) -> str:
        """The engine's model for `dimension`."""
        return self._engine.model_for(dimension)

    def template_hash_for(self, dimension: JudgeDimension) -> str:
        """The engine's template hash for `dimension`."""
        return self._engine.template_hash_for(dimension)

    def close(self) -> None:
        """Close the engine's cache."""
        self._engine.close()

    def __getattr__(self, name: str) -> Any:
        # Anything else the wrapped engine offers (e.g. `memoises`) is the engine's own.
        return getattr(self._engine, name)
