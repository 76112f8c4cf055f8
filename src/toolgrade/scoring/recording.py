"""A judge wrapper that records, per trajectory, which verdicts the checks asked for.

People go first: a judge item (any dimension but alternate_route, whose decisions are per case
and route, `checks.adjudication`) that a person decided with `toolgrade adjudicate` is answered
from the decision, and the judge is not asked (docs/judges.md). An item left `unscored` is
recorded with its id and the inputs the judge saw (as is one the escalation judge decided), so
`toolgrade adjudicate` can show it to a person and the decision can be exported as a labelled
calibration item.
"""

from __future__ import annotations

from typing import cast

from toolgrade.models import HumanDecisions, JudgePort, JudgeRequest, Verdict, item_id
from toolgrade.models.figures import JudgeLogEntry

#: Verdict fields copied into the record when set, in this order (`_entry`).
_RECORDED = ("label", "p_pass", "model", "error", "raw", "escalated", "escalated_from",
             "decided_by")


class RecordingJudge:
    """Passes requests to the real judge and keeps a compact log for `results.jsonl`."""

    def __init__(self, inner: JudgePort, decisions: HumanDecisions | None = None) -> None:
        self._inner = inner
        self._decisions = decisions or HumanDecisions()
        self.log: dict[str, list[JudgeLogEntry]] = {}

    def judge(self, request: JudgeRequest) -> Verdict:
        """A person's decision on the item, else the inner judge's verdict; recorded under its
        dimension."""
        item = None if request.dimension == "alternate_route" else \
            item_id(request.dimension, request.inputs)
        decided = self._decisions.item(item) if item is not None else None
        if decided is not None:
            who = decided.by or "a person"
            reason = f"{decided.decision} by {who}" + (f": {decided.reason}" if decided.reason
                                                       else "")
            verdict = Verdict(verdict=decided.verdict, reason=reason, label=decided.label,
                              decided_by="human")
        else:
            verdict = self._inner.judge(request)
        entry = _entry(verdict)
        undecided = not verdict.scored or bool(verdict.escalated)  # by the first judge
        if item is not None and (decided is not None or undecided):
            entry["item"] = item
        if item is not None and undecided:
            entry["inputs"] = request.inputs
        self.log.setdefault(request.dimension, []).append(entry)
        return verdict


def _entry(verdict: Verdict) -> JudgeLogEntry:
    """The log entry of a verdict: verdict, reason, the `_RECORDED` fields that are set (in
    that order), cached."""
    recorded = {key: value for key in _RECORDED if (value := getattr(verdict, key)) is not None}
    # One cast: tests/models/test_figures.py holds JudgeLogEntry's keys to `_RECORDED`.
    return cast(JudgeLogEntry, {"verdict": verdict.verdict, "reason": verdict.reason,
                                **recorded, "cached": verdict.cached})
