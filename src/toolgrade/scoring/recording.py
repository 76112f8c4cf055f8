"""A judge wrapper that records, per trajectory, which verdicts the checks asked for."""

from __future__ import annotations

from typing import Any

from toolgrade.models import JudgePort, JudgeRequest, Verdict


class RecordingJudge:
    """Passes requests to the real judge and keeps a compact log for `results.jsonl`."""

    def __init__(self, inner: JudgePort) -> None:
        self._inner = inner
        self.log: dict[str, list[dict[str, Any]]] = {}

    def judge(self, request: JudgeRequest) -> Verdict:
        """Ask the inner judge and record the verdict under its dimension."""
        verdict = self._inner.judge(request)
        entry: dict[str, Any] = {"verdict": verdict.verdict, "reason": verdict.reason}
        for key in ("label", "p_pass", "model", "error", "raw"):
            value = getattr(verdict, key)
            if value is not None:
                entry[key] = value
        entry["cached"] = verdict.cached
        self.log.setdefault(request.dimension, []).append(entry)
        return verdict
