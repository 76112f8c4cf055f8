"""What a run was asked to do and what the suite expected, for its run view.

A run view shows the agent's steps; triaging a `missing_tool` or an `order_violation` also
needs the task the agent was given and the route(s) the case accepts. Both come from the case
(`Case.input`, `Case.expected`), so every run format shows them, `steps` runs included (their
transcript holds no user message). Every value is already a one-line display string.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from toolgrade.models import Case
from toolgrade.models.case import (
    ArgumentExpectation,
    OrderingExpectation,
    RecoveryExpectation,
    SelectionExpectation,
)
from toolgrade.reporting.digest import printable

#: Longest task message or expectation shown, in characters.
REFERENCE_CHARS = 1200
#: The comparators (docs/comparators.md) written as `field op value` (the rest are shown as JSON).
_OPS = {"exact": "=", "casefold": "≈ (case-insensitive)", "regex": "matches",
        "date": "same date as", "semantic": "means", "one_of": "one of"}


@dataclass(frozen=True)
class Reference:
    """The task input (role, text) and the expectations (label, text) of a run's case."""

    task: tuple[tuple[str, str], ...]
    expected: tuple[tuple[str, str], ...]


def _line(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False,
                                                           default=str)
    text = printable(text)
    return text if len(text) <= REFERENCE_CHARS else text[: REFERENCE_CHARS - 1] + "…"


def _route(tools: list[str]) -> str:
    return ", ".join(tools) if tools else "(no tool)"


def _selection(sel: SelectionExpectation) -> list[tuple[str, str]]:
    if sel.no_tool:
        return [("route", "no tool: the right answer calls none")]
    out = [("route", _route(sel.tools))]
    out += [("alternative route", _route(alt)) for alt in sel.alternatives]
    if sel.forbidden:
        out.append(("forbidden", ", ".join(sel.forbidden)))
    free = [*sel.allowed, *(["every read-only tool"] if sel.allow_reads else []),
            *(["failed calls"] if sel.allow_failed else [])]
    if free:
        out.append(("free calls", ", ".join(free)))
    if sel.judge_alternates:
        out.append(("other routes", "decided by the alternate_route judge"))
    return out


def _comparator(value: Any) -> str:
    """`= "A123"`, `≈ 25.0 ± 0.01`, `means "the item arrived damaged"`, else JSON."""
    if isinstance(value, dict) and len(value) >= 1:
        if "approx" in value:
            tol = f" ± {value['tol']}" if "tol" in value else \
                f" ± {value['rel']} (relative)" if "rel" in value else ""
            return f"≈ {_line(value['approx'])}{tol}"
        if value.get("any") is True:
            return "any value"
        if value.get("absent") is True:
            return "(left out)"
        op = next((k for k in _OPS if k in value), None)
        if op is not None:
            return f"{_OPS[op]} {_line(value[op])}"
    return f"= {_line(value)}"


def _arguments(args: list[ArgumentExpectation]) -> list[tuple[str, str]]:
    out = []
    for call in args:
        fields = "; ".join(f"{name} {_comparator(v)}" for name, v in call.args.items())
        out.append((f"arguments of {call.tool}", fields or "(any)"))
    return out


def _ordering(order: OrderingExpectation) -> list[tuple[str, str]]:
    out = [(f"group @{name}", " | ".join(tools)) for name, tools in order.groups.items()]
    if order.before:
        out.append(("before", "; ".join(f"{a} → {b}" for a, b in order.before)))
    if order.max_calls:
        out.append(("max calls", ", ".join(f"{t} ≤ {n}" for t, n in order.max_calls.items())))
    if order.mode:
        out.append((f"sequence ({order.mode})", " → ".join(order.sequence or [])))
    return out


def _recovery(rec: RecoveryExpectation) -> list[tuple[str, str]]:
    out = [("fault", f"{f.kind} on {f.tool} call {f.nth}") for f in rec.faults]
    if rec.faults:
        out.append(("max retries", str(rec.max_retries)))
    out += [(f"fallback for {tool}", ", ".join(alts)) for tool, alts in rec.fallbacks.items()]
    if rec.escalate_with:
        out.append(("escalate with", rec.escalate_with))
    return out


def _outcome(case: Case) -> list[tuple[str, str]]:
    out = []
    for assertion in case.expected.state or []:
        shown = assertion.model_dump(exclude_none=True, exclude_defaults=True)
        out.append(("state", _line(shown)))
    if case.expected.answer and case.expected.answer.mentions:
        out.append(("answer mentions", "; ".join(case.expected.answer.mentions)))
    return out


def case_reference(case: Case) -> Reference:
    """The task and the expectations of `case`, in report order (selection first)."""
    exp = case.expected
    expected = [*(_selection(exp.selection) if exp.selection else []),
                *(_arguments(exp.arguments) if exp.arguments else []),
                *(_ordering(exp.ordering) if exp.ordering else []),
                *(_recovery(exp.recovery) if exp.recovery else []), *_outcome(case)]
    task = tuple((printable(str(m.get("role"))), _line(m.get("content")))
                 for m in case.input_messages())
    return Reference(task=task, expected=tuple((printable(k), printable(v))
                                               for k, v in expected))
