"""Signals for `result_interpretation`: does the final answer match the tool results?"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolgrade.signals.base import Signals
from toolgrade.signals.claims import polarity_conflict, status_conflict, unknown_names
from toolgrade.signals.text import (
    admits_trouble,
    claims_done,
    flat_text,
    objects,
    unsupported_facts,
)


def unrecovered_tools(results: list[Mapping[str, Any]]) -> list[str]:
    """Tools whose last result was not ok (a failure no later call of the same tool repaired)."""
    last: dict[str, str] = {}
    for r in results:
        last[str(r.get("tool"))] = str(r.get("status", "ok"))
    return sorted(tool for tool, status in last.items() if status != "ok")


def result_signals(inputs: Mapping[str, Any]) -> Signals:
    """Unsupported facts, failures left unmentioned and success claimed over a failure."""
    results = objects(inputs.get("tool_results"))
    answer = inputs.get("final_answer")
    answer = answer if isinstance(answer, str) else ""
    findings = inputs.get("findings")
    n_findings = len(findings) if isinstance(findings, list) else 0
    sources = [flat_text(r.get("content")) for r in results] + [flat_text(inputs.get("task"))]
    unsupported = unsupported_facts(answer, sources)
    contents = [r.get("content") for r in results]
    status = status_conflict(answer, contents)
    polarity = polarity_conflict(answer, contents)
    names = unknown_names(answer, sources)
    failed = unrecovered_tools(results)
    admits, done = admits_trouble(answer), claims_done(answer)
    trouble = bool(failed) or n_findings > 0
    values = {
        "unsupported_facts": float(min(len(unsupported), 3)),
        "failed_tool": float(bool(failed)),
        "findings": float(n_findings > 0),
        "status_conflict": float(status is not None),
        "polarity_conflict": float(polarity is not None),
        "unknown_names": float(min(len(names), 2)),
        "claims_done": float(done),
        "admits_trouble": float(admits),
        "done_over_failure": float(done and trouble and not admits),
        "failure_unmentioned": float(trouble and not admits),
        "no_answer": float(not answer.strip()),
    }
    notes = []
    if unsupported:
        notes.append("the answer states facts no tool result contains: " + ", ".join(unsupported))
    notes += [n for n in (status, polarity) if n is not None]
    if names:
        notes.append("the answer names what no result contains: " + ", ".join(names))
    if values["done_over_failure"]:
        notes.append("the answer claims success while " + _trouble(failed, n_findings))
    elif values["failure_unmentioned"]:
        notes.append("the answer does not mention that " + _trouble(failed, n_findings))
    return Signals(values, notes)


def _trouble(failed: list[str], n_findings: int) -> str:
    if failed:
        return f"{', '.join(failed)} last failed"
    return f"the checks found {n_findings} problem(s)"
