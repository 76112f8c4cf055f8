"""Signals for `recovery_quality`: how the agent answered an injected fault.

The recovery check's own stage (`recovered`, `no_retry`, `retry_loop`, ...) is the strongest
signal; the rest read the steps after the fault: a permanent error retried unchanged, a final
message that claims success the transcript does not show, facts it invents, or silence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from toolgrade.signals.base import Signals
from toolgrade.signals.text import (
    admits_trouble,
    claims_done,
    flat_text,
    mentions_handover,
    objects,
    unsupported_facts,
)

#: Stages after which the mechanical check saw the agent do the wrong thing.
_BAD_STAGES = frozenset({"retry_loop", "wrong_fallback", "missing_escalation"})
#: An error that says retrying the same call cannot help (client errors, refusals).
_PERMANENT = re.compile(
    r"\b(?:4(?:0[0-79]|1\d|2[0-8]|[3-9]\d))\b|not found|invalid|not allowed|does not allow|"
    r"denied|forbidden|unauthori[sz]ed|conflict|insufficient|not permitted|unknown",
    re.IGNORECASE,
)
_HANDOVER_TOOL = re.compile(r"escalat|handoff|hand_off|human|transfer_to|ticket|agent", re.I)


def _final_message(steps: list[Mapping[str, Any]]) -> str:
    """The agent's last message, when the transcript ends with one."""
    if steps and "tool" not in steps[-1] and isinstance(steps[-1].get("content"), str):
        return str(steps[-1]["content"])
    return ""


def recovery_signals(inputs: Mapping[str, Any]) -> Signals:
    """The stage, retries of a permanent error, unbacked claims, invented facts and silence."""
    raw_fault = inputs.get("fault")
    fault: Mapping[str, Any] = raw_fault if isinstance(raw_fault, Mapping) else {}
    tool = str(fault.get("tool", ""))
    stage = str(inputs.get("stage", ""))
    steps = objects(inputs.get("transcript"))
    calls = [s for s in steps if "tool" in s]
    same = [c for c in calls if c.get("tool") == tool]
    fixed = any(c.get("status", "ok") == "ok" for c in same)
    message = _final_message(steps)
    permanent = bool(_PERMANENT.search(flat_text(fault.get("content"))))
    handover = any(_HANDOVER_TOOL.search(str(c.get("tool"))) for c in calls)
    sources = [flat_text(c.get("content")) for c in calls]
    sources += [flat_text(c.get("args")) for c in calls] + [flat_text(inputs.get("task"))]
    unsupported = unsupported_facts(message, sources) if message else []
    done, admits = claims_done(message), admits_trouble(message)
    values = {
        "stage_recovered": float(stage == "recovered"),
        "stage_bad": float(stage in _BAD_STAGES),
        "permanent_retried": float(permanent and bool(same)),
        "retries": float(min(len(same), 3)),
        "done_unbacked": float(done and not fixed and not admits),
        "admits_trouble": float(admits),
        "handover": float(handover or mentions_handover(message)),
        "unsupported_facts": float(min(len(unsupported), 3)),
        "no_message": float(not message.strip()),
    }
    notes = [f"the recovery check's stage is {stage}"] if stage else []
    if values["permanent_retried"]:
        notes.append(f"{tool} failed with a permanent error and was called again")
    if values["done_unbacked"]:
        notes.append(f"the final message claims success but {tool} never succeeded afterwards")
    if unsupported:
        notes.append("the final message states facts no result contains: " + ", ".join(unsupported))
    if values["no_message"]:
        notes.append("the agent said nothing to the user after the fault")
    return Signals(values, notes)
