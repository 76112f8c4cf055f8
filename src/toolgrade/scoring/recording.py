"""A judge wrapper that records, per trajectory, which verdicts the checks asked for.

People go first: a judge item (any dimension but alternate_route, whose decisions are per case
and route, `checks.adjudication`) that a person decided with `toolgrade adjudicate` is answered
from the decision, and the judge is not asked (DESIGN section 5). An item left `unscored` is
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
    # `cached` (required) comes last in the written line: set below, like the others.
    entry = cast(JudgeLogEntry, {"verdict": verdict.verdict, "reason": verdict.reason})
    if verdict.label is not None:
        entry["label"] = verdict.label
    if verdict.p_pass is not None:
        entry["p_pass"] = verdict.p_pass
    if verdict.model is not None:
        entry["model"] = verdict.model
    if verdict.error is not None:
        entry["error"] = verdict.error
    if verdict.raw is not None:
        entry["raw"] = verdict.raw
    _escalation_fields(entry, verdict)
    entry["cached"] = verdict.cached
    return entry


def _escalation_fields(entry: JudgeLogEntry, verdict: Verdict) -> None:
    """The escalation and decision fields of `_RECORDED`, where set."""
    if verdict.escalated is not None:
        entry["escalated"] = verdict.escalated
    if verdict.escalated_from is not None:
        entry["escalated_from"] = verdict.escalated_from
    if verdict.decided_by is not None:
        entry["decided_by"] = verdict.decided_by
