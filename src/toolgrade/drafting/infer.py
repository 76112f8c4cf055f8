"""What a case expects, inferred from its recorded runs (docs/draft.md).

Every inference returns the value and a review note saying from how many runs it came: the
draft is a starting point a person checks, line by line.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolgrade.drafting.catalogue import DraftTool
from toolgrade.drafting.values import draft_value
from toolgrade.models import Trajectory
from toolgrade.models.trajectory import Message, ToolCall

#: Distinct routes listed as alternatives; beyond this the route is what every run called,
#: and the tools some runs called are free (`allowed`).
MAX_ROUTES = 3
#: State assertions drafted per case, at most.
MAX_STATE = 12


@dataclass(frozen=True)
class Line:
    """An inferred value and its review note."""

    value: Any
    review: str


@dataclass
class DraftCall:
    """One expected call: its tool, which call of that tool, and each argument."""

    tool: str
    nth: int
    review: str
    args: dict[str, Line] = field(default_factory=dict)


@dataclass
class DraftCase:
    """A drafted case: each expectation with its review note."""

    id: str
    runs: int
    left_out: int
    input: Line
    selection: dict[str, Line] = field(default_factory=dict)
    arguments: list[DraftCall] = field(default_factory=list)
    before: list[Line] = field(default_factory=list)
    groups: Line | None = None
    budgets: Line | None = None
    faults: Line | None = None
    state: list[Line] = field(default_factory=list)


def _of(k: int, n: int) -> str:
    """`k of n runs`, `both runs`, `all n runs` or `the 1 run`, for review notes."""
    if n == 1:
        return "the 1 run"
    if k == n:
        return "both runs" if n == 2 else f"all {n} runs"
    return f"{k} of {n} runs"


#: Plain-text results that read as a failure (a JSON result never does): the tool's words.
_FAILURE_TEXT = re.compile(r"\b(?:error|exception|timed out|timeout|unavailable|failed|"
                           r"refused|[45]\d\d)\b", re.IGNORECASE)
#: Longest plain-text result still read for failure words (longer text is content).
_FAILURE_TEXT_CHARS = 200


def fault_kind(call: ToolCall) -> str | None:
    """How the call failed, if it did: its recorded fault or error status, else an empty
    result (`""`) or a short plain-text result in a failure's words; None when it did not."""
    result = call.result
    if result is None:
        return None
    if result.fault is not None:
        return result.fault
    if result.status == "error":
        return "timeout" if "timed out" in str(result.content).lower() else "error"
    content = result.content
    if content == "":
        return "empty"
    if not isinstance(content, str) or len(content) > _FAILURE_TEXT_CHARS:
        return None
    try:
        json.loads(content)
        return None
    except ValueError:
        pass
    found = _FAILURE_TEXT.search(content)
    if found is None:
        return None
    return "timeout" if "time" in found.group(0).lower() else "error"


def done_calls(run: Trajectory) -> list[ToolCall]:
    """The run's calls that did not fail (a failed call changed nothing)."""
    return [call for _, call in run.calls if fault_kind(call) is None]


def task_input(runs: Sequence[Trajectory]) -> Line:
    """The task: the first run's messages before its first call, up to the last user
    message (one user message: its text)."""
    for run in runs:
        before: list[Message] = []
        for step in run.steps:
            if isinstance(step, ToolCall):
                break
            if step.role in ("user", "assistant") and step.content:
                before.append(step)
        while before and before[-1].role != "user":  # the reply that ends a run with no call
            before.pop()
        if any(m.role == "user" for m in before):
            if len(before) == 1:
                return Line(before[0].content, f"the first user message, from run trial "
                                               f"{run.trial}")
            return Line([{"role": m.role, "content": m.content} for m in before],
                        f"the conversation before the first call, from run trial {run.trial}")
    return Line(None, "no user message in the runs: write the task here")


def _route_of(run: Trajectory, tools: Mapping[str, DraftTool], free_reads: bool) -> tuple[str, ...]:
    names = [c.tool for c in done_calls(run)]
    if free_reads:
        names = [n for n in names if tools[n].side_effect]
    return tuple(sorted(names))


def _intersection(routes: Sequence[tuple[str, ...]]) -> Counter[str]:
    common = Counter(routes[0])
    for route in routes[1:]:
        common &= Counter(route)
    return common


def stopped_short(runs: Sequence[Trajectory], tools: Mapping[str, DraftTool]
                  ) -> list[Trajectory]:
    """Runs that did part of what another run did and left out a write it made: attempts that
    gave up (an outage, a refusal), not another way to do the task."""
    routes = [Counter(c.tool for c in done_calls(run)) for run in runs]
    short: list[Trajectory] = []
    for run, route in zip(runs, routes, strict=True):
        for other in routes:
            missing = other - route
            if route <= other and any(tools[t].side_effect for t in missing):
                short.append(run)
                break
    return short


def draft_selection(runs: Sequence[Trajectory], tools: Mapping[str, DraftTool],
                    free_reads: bool) -> dict[str, Line]:
    """The route(s): one all runs share; up to MAX_ROUTES distinct ones as alternatives;
    beyond that what all runs called, with the rest free."""
    n = len(runs)
    if all(not run.calls for run in runs):
        return {"no_tool": Line(True, f"{_of(n, n)} called no tool")}
    routes = [_route_of(run, tools, free_reads) for run in runs]
    counts = Counter(routes)
    distinct = sorted(counts, key=lambda r: (-counts[r], routes.index(r)))
    lines: dict[str, Line] = {}
    if len(distinct) <= MAX_ROUTES:
        lines["tools"] = Line(list(distinct[0]), f"the calls of {_of(counts[distinct[0]], n)}")
        if len(distinct) > 1:
            lines["alternatives"] = Line([list(r) for r in distinct[1:]], "the calls of "
                                         + ", ".join(_of(counts[r], n) for r in distinct[1:]))
    else:
        common = _intersection(routes)
        varying = sorted({t for r in routes for t in r} - {t for t in common if all(
            Counter(r)[t] == common[t] for r in routes)})
        lines["tools"] = Line(sorted(common.elements()), f"the calls {_of(n, n)} made")
        lines["allowed"] = Line(varying, f"called by only some of the {n} runs, or a "
                                         "varying number of times")
    if free_reads:
        lines["allow_reads"] = Line(True, "--free-reads: calls of read-only tools are free")
    failed = sum(any(fault_kind(c) is not None for _, c in run.calls) for run in runs)
    if failed:
        lines["allow_failed"] = Line(True, f"{_of(failed, n)} had calls that failed")
    return lines


def draft_arguments(runs: Sequence[Trajectory], tools: Mapping[str, DraftTool],
                    free_reads: bool) -> list[DraftCall]:
    """One expected call per call every run made (a call only some runs made is not on every
    accepted route), its arguments those all of them passed."""
    if not runs:
        return []
    common = _intersection([tuple(c.tool for c in done_calls(run)) for run in runs])
    calls: list[DraftCall] = []
    for tool, count in sorted(common.items()):
        if free_reads and not tools[tool].side_effect:
            continue
        for nth in range(1, count + 1):
            made = [call for call in (_nth_call(run, tool, nth) for run in runs)
                    if call is not None and call.raw_arguments is None]
            if made:
                calls.append(_draft_call(tool, nth, made, len(runs), tools[tool]))
    return calls


def _nth_call(run: Trajectory, tool: str, nth: int) -> ToolCall | None:
    of_tool = [call for call in done_calls(run) if call.tool == tool]
    return of_tool[nth - 1] if len(of_tool) >= nth else None


def _draft_call(tool: str, nth: int, made: Sequence[ToolCall], n: int,
                spec: DraftTool) -> DraftCall:
    call = DraftCall(tool, nth, f"call {nth} of {tool} in {_of(len(made), n)}")
    keys = [k for k in made[0].args if all(k in c.args for c in made)]
    for key in keys:
        drafted = draft_value([c.args[key] for c in made], spec.enum_of(key))
        distinct = len({repr(c.args[key]) for c in made})
        agree = "the same in" if distinct == 1 else f"{distinct} values across"
        call.args[key] = Line(drafted.value, f"{drafted.kind}, {agree} {_of(len(made), len(made))}")
    return call


def draft_faults(runs: Sequence[Trajectory]) -> Line | None:
    """Calls that failed in every run: the faults the case's environment injects."""
    per_run: list[set[tuple[str, int, str]]] = []
    for run in runs:
        nth: Counter[str] = Counter()
        failed: set[tuple[str, int, str]] = set()
        for _, call in run.calls:
            nth[call.tool] += 1
            kind = fault_kind(call)
            if kind is not None:
                failed.add((call.tool, nth[call.tool], kind))
        per_run.append(failed)
    common = set.intersection(*per_run) if per_run else set()
    if not common:
        return None
    faults = [{"tool": t, "nth": k, "kind": kind} for t, k, kind in sorted(common)]
    return Line(faults, f"these calls failed in {_of(len(runs), len(runs))}")


def _state_leaves(state: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(state, dict) and state:
        for key, value in state.items():
            if "." not in str(key):
                yield from _state_leaves(value, f"{path}.{key}" if path else str(key))
    elif path:
        yield path, state


def draft_state(runs: Sequence[Trajectory]) -> list[Line]:
    """`path equals value` for each final-state leaf every run ended with."""
    states = [run.final_state for run in runs]
    if not states or any(s is None for s in states):
        return []
    first = dict(_state_leaves(states[0]))
    for state in states[1:]:
        other = dict(_state_leaves(state))
        first = {p: v for p, v in first.items() if p in other and other[p] == v}
    return [Line({"path": p, "equals": v}, f"the final state of {_of(len(runs), len(runs))}")
            for p, v in sorted(first.items())[:MAX_STATE]]
