"""The ordering check: load-bearing order constraints, sequence modes, loops and budgets.

Only the pairs a case names are asserted (`before: [[a, b]]`), so a correct run that orders its
independent calls differently still passes. Calls issued together in one parallel group are
unordered among themselves: a call of `a` in the same group as a call of `b` does not put `a`
before `b`; `a` must strictly precede `b`'s group. See docs/ordering.md for the user view.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from toolgrade.checks.base import GradeContext, PassRateAccumulator, PassRateBlock
from toolgrade.checks.call_identity import identity
from toolgrade.checks.efficiency import EfficiencyBlock, StepEfficiency
from toolgrade.checks.memo import IdentityMemo
from toolgrade.checks.recovery import faulted_in
from toolgrade.checks.run_calls import RunCalls, calls_of, index_of
from toolgrade.models import (
    ANSWER,
    Case,
    CheckName,
    CheckResult,
    Failure,
    OrderingExpectation,
    ToolCall,
    Trajectory,
    TrajectoryResult,
)
from toolgrade.models.figures import OrderingFigures


class _Event(NamedTuple):
    """A point in the run a constraint side can match: a tool call or the final answer.

    A named tuple, not a frozen dataclass: a run builds one per call, and a tuple is built in
    a third of the time."""

    step: int
    name: str
    group: int | str | None = None
    is_answer: bool = False


def _precedes(a: _Event, b: _Event) -> bool:
    """True when `a` happened strictly before `b` (not in the same parallel group)."""
    return a.step < b.step and (a.group is None or a.group != b.group)


def _matching(side: str, events: list[_Event], ordering: OrderingExpectation) -> list[_Event]:
    """The events a constraint side matches, in order: the final answer for `answer`, any tool
    of `@group`, or one tool name."""
    if side == ANSWER:
        return [e for e in events if e.is_answer]
    if side.startswith("@"):
        if side[1:] not in ordering.groups:
            raise ValueError(f"unknown ordering group {side!r}")
        tools = frozenset(ordering.groups[side[1:]])
        return [e for e in events if not e.is_answer and e.name in tools]
    return [e for e in events if not e.is_answer and e.name == side]


@dataclass(frozen=True)
class _Side:
    """One constraint side resolved once per case: the final answer, or a set of tool names."""

    answer: bool
    tools: frozenset[str]
    #: The error `_matching` raises for a side naming an unknown group, raised when matched.
    unknown: str | None = None


def _side_of(side: str, ordering: OrderingExpectation) -> _Side:
    """What `_matching` reads a side as: `answer`, `@group` or one tool name."""
    if side == ANSWER:
        return _Side(answer=True, tools=frozenset())
    if side.startswith("@"):
        if side[1:] not in ordering.groups:
            unknown = f"unknown ordering group {side!r}"
            return _Side(answer=False, tools=frozenset(), unknown=unknown)
        return _Side(answer=False, tools=frozenset(ordering.groups[side[1:]]))
    return _Side(answer=False, tools=frozenset({side}))


class _RunPoints:
    """The points of a run a constraint side can match, as positions: 0..n-1 are the run's
    calls (indices into `RunCalls.calls`), n its final answer. Calls are in step order and the
    answer follows the last call, so position order is run order, and a side's points are
    read from the run's index by tool without making an event of each call."""

    def __init__(self, index: RunCalls, final: tuple[int, str] | None) -> None:
        self.calls = index.calls
        self.by_tool = index.by_tool
        self.final = final
        self.answer = [len(self.calls)] if final is not None else []
        #: The points of each set of tools matched so far (a tool or a group's tools).
        self._found: dict[frozenset[str], list[int]] = {}

    def __bool__(self) -> bool:
        """Whether the run has any point (a call or a final answer)."""
        return bool(self.calls or self.answer)

    def matching(self, side: _Side) -> list[int]:
        """`_matching` for a resolved side: the same points, in run order (do not modify)."""
        if side.unknown is not None:
            raise ValueError(side.unknown)
        if side.answer:
            return self.answer
        found = self._found.get(side.tools)
        if found is None:
            lists = [self.by_tool[t] for t in side.tools if t in self.by_tool]
            found = lists[0] if len(lists) == 1 else sorted(p for ps in lists for p in ps)
            self._found[side.tools] = found
        return found

    def step(self, p: int) -> int:
        """The step index of point `p`."""
        return self.calls[p][0] if p < len(self.calls) else self._answer()[0]

    def name(self, p: int) -> str:
        """The tool of point `p`, or `answer`."""
        return self.calls[p][1].tool if p < len(self.calls) else ANSWER

    def preceded(self, b: int, a_points: list[int]) -> bool:
        """`_preceded` on points: whether some point of `a_points` precedes `b`, strictly
        and not in its parallel group (the answer is in none)."""
        group = self.calls[b][1].group if b < len(self.calls) else None
        for a in a_points:
            if a >= b:
                return False
            other = self.calls[a][1].group
            if other is None or other != group:
                return True
        return False

    def _answer(self) -> tuple[int, str]:
        assert self.final is not None  # only the answer's point lies past the calls
        return self.final


@dataclass(frozen=True)
class _Plan:
    """What a case determines about its ordering grading, derived once per case object."""

    ordering: OrderingExpectation
    before: list[tuple[tuple[str, str], _Side, _Side]]
    budgets: list[tuple[str, int, _Side]]
    #: The whole-sequence mode and the sequence it compares with (None: no mode, or nothing to
    #: compare with), each tool's positions in it, and its names sorted (its multiset).
    mode: str
    reference: list[str] | None
    slots: dict[str, list[int]]
    ordered: list[str]
    #: Whether a `before` pair names the final answer (the figure `final_answer_step`).
    names_answer: bool


def _plan_of(case: Case) -> _Plan:
    """The case's `_Plan` (its ordering expectation must be set)."""
    ordering = case.expected.ordering
    assert ordering is not None
    reference = _reference_sequence(case) if ordering.mode is not None else None
    return _Plan(
        ordering=ordering,
        before=[
            (pair, _side_of(pair[0], ordering), _side_of(pair[1], ordering))
            for pair in ordering.before
        ],
        budgets=[
            (side, limit, _side_of(side, ordering)) for side, limit in ordering.max_calls.items()
        ],
        mode=ordering.mode or "",
        reference=reference,
        slots=_slots(reference or []),
        ordered=sorted(reference or []),
        names_answer=any(ANSWER in pair for pair in ordering.before),
    )


#: Each graded case's `_Plan`, by identity (a case is frozen and graded once per run).
_PLANS: IdentityMemo[Case, _Plan] = IdentityMemo()


def validate_ordering(case: Case) -> list[str]:
    """Problems with the case's ordering reference, for the loader to report before grading."""
    ordering = case.expected.ordering
    if ordering is None:
        return []
    problems: list[str] = []
    for name, members in ordering.groups.items():
        if not members:
            problems.append(f"groups.{name}: a group needs at least one tool")
    for i, pair in enumerate(ordering.before):
        problems += [f"before[{i}]: {p}" for p in _side_problems(pair, ordering)]
    for tool, limit in ordering.max_calls.items():
        if limit < 0:
            problems.append(f"max_calls.{tool}: the limit must be 0 or more, got {limit}")
        if tool == ANSWER:
            problems.append(f"max_calls.{tool}: 'answer' is not a tool and has no budget")
        elif tool.startswith("@") and tool[1:] not in ordering.groups:
            problems.append(f"max_calls.{tool}: unknown group {tool!r}")
    if ordering.mode is not None and _reference_sequence(case) is None:
        problems.append(
            f"mode: {ordering.mode!r} needs `sequence` or expected.selection.tools to compare with"
        )
    return problems


def _side_problems(pair: tuple[str, str], ordering: OrderingExpectation) -> list[str]:
    """Unknown groups and self-referencing pairs in one `before` constraint."""
    problems = [
        f"unknown group {side!r} (known: {sorted(ordering.groups) or 'none'})"
        for side in pair
        if side.startswith("@") and side[1:] not in ordering.groups
    ]
    if pair[0] == pair[1]:
        problems.append(f"[{pair[0]}, {pair[1]}] can never hold: a side cannot precede itself")
    return problems


def check_before(
    pair: tuple[str, str], events: list[_Event], ordering: OrderingExpectation
) -> Failure | None:
    """One `before` pair: every event matching b must come after some event matching a.
    `events`: the run's, in run order."""
    a_events = _matching(pair[0], events, ordering)
    b_events = _matching(pair[1], events, ordering)
    return _before_failure(pair, a_events, b_events)


def _before_failure(
    pair: tuple[str, str], a_events: list[_Event], b_events: list[_Event]
) -> Failure | None:
    """`check_before` once each side's events are found (in run order, as `_matching`
    lists them)."""
    offending = [b for b in b_events if not _preceded(b, a_events)]
    if not offending:
        return None
    first = offending[0]
    steps = [b.step for b in offending]
    return _order_violation(pair, first.name, [a.step for a in a_events], steps)


def _before_at(
    pair: tuple[str, str], a_points: list[int], b_points: list[int], run: _RunPoints
) -> Failure | None:
    """`_before_failure` on the points of a run (`_RunPoints`)."""
    offending = [b for b in b_points if not run.preceded(b, a_points)]
    if not offending:
        return None
    steps = [run.step(b) for b in offending]
    return _order_violation(pair, run.name(offending[0]), [run.step(a) for a in a_points], steps)


def _order_violation(
    pair: tuple[str, str], b_tool: str, a_steps: list[int], offending: list[int]
) -> Failure:
    """The failure of a `before` pair: `offending` are the steps of b no a precedes."""
    where = f"at steps {a_steps}" if a_steps else "never"
    return Failure(
        name="order_violation",
        step=offending[0],
        message=f"{pair[0]} must come before {pair[1]}: step {offending[0]} ({b_tool}) "
        f"is not preceded by it ({pair[0]} occurs {where})",
        evidence={
            "constraint": list(pair),
            "b_step": offending[0],
            "b_tool": b_tool,
            "a_steps": a_steps,
            "offending_steps": offending,
        },
    )


def _preceded(b: _Event, a_events: list[_Event]) -> bool:
    """Whether some event of `a_events` (in run order) precedes `b`: only those before `b`'s
    step are looked at."""
    for a in a_events:
        if a.step >= b.step:
            return False
        if _precedes(a, b):
            return True
    return False


def _reference_sequence(case: Case) -> list[str] | None:
    """The sequence a mode compares with: `sequence`, else expected.selection.tools."""
    ordering = case.expected.ordering
    if ordering is not None and ordering.sequence is not None:
        return list(ordering.sequence)
    selection = case.expected.selection
    return list(selection.tools) if selection is not None else None


def aligned_names(calls: Sequence[ToolCall], reference: Sequence[str]) -> list[str]:
    """Tool names in call order, each parallel group's calls sorted to best follow `reference`.

    A group's calls were issued together, so their listed order means nothing. Each call takes
    the next unused position of its tool in the reference (calls outside groups take theirs
    too); within a group, calls are sorted by that position, with tools the reference does not
    hold (or holds fewer times) last, in their recorded order. When any order of the groups
    equals the reference, this one does.
    """
    tools = [c.tool for c in calls]
    return _in_order(tools, aligned_order(calls, reference))


def _in_order(tools: list[str], order: list[int] | None) -> list[str]:
    """The calls' `tools` in `order` (`aligned_order`); None: their own order (no group)."""
    return tools if order is None else [tools[i] for i in order]


def aligned_order(calls: Sequence[ToolCall], reference: Sequence[str]) -> list[int] | None:
    """The indices of `calls` in the order `aligned_names` lists them; None when no call is in
    a parallel group (the order is the calls' own)."""
    return _aligned_order([c.tool for c in calls], [c.group for c in calls], _slots(reference))


def _slots(reference: Sequence[str]) -> dict[str, list[int]]:
    """Each tool's positions in the reference, in order."""
    positions: dict[str, list[int]] = {}
    for pos, name in enumerate(reference):
        positions.setdefault(name, []).append(pos)
    return positions


def _aligned_order(
    tools: list[str], groups: list[int | str | None], positions: dict[str, list[int]]
) -> list[int] | None:
    """`aligned_order` from the calls' tools and groups, with the reference's `_slots` at
    hand (not modified). Blocks as `_blocks` forms them: consecutive calls sharing a group."""
    if groups.count(None) == len(groups):
        return None
    used: dict[str, int] = {}
    out: list[int] = []
    start, n = 0, len(tools)
    while start < n:
        end, group = start + 1, groups[start]
        while group is not None and end < n and groups[end] == group:
            end += 1
        if end - start == 1:  # a call alone keeps its place; it still claims its position
            name = tools[start]
            used[name] = used.get(name, 0) + 1
            out.append(start)
        else:
            keyed = [(_claim(positions, used, tools[i]), i) for i in range(start, end)]
            out += [i for _, i in sorted(keyed)]
        start = end
    return out


def _claim(positions: dict[str, list[int]], used: dict[str, int], name: str) -> float:
    """The next unused reference position of `name`, or infinity when none is left."""
    k = used.get(name, 0)
    used[name] = k + 1
    slots = positions.get(name)
    return slots[k] if slots is not None and k < len(slots) else math.inf


def _blocks(calls: Sequence[ToolCall]) -> list[list[int]]:
    """Indices of consecutive calls sharing a non-None group form one block; other calls stand
    alone."""
    blocks: list[list[int]] = []
    for i, c in enumerate(calls):
        if blocks and c.group is not None and calls[blocks[-1][0]].group == c.group:
            blocks[-1].append(i)
        else:
            blocks.append([i])
    return blocks


def lcs_length(x: Sequence[str], y: Sequence[str]) -> int:
    """Length of the longest common subsequence (dynamic programming, one row of memory).

    When `y` is a subsequence of `x` (a run that holds the reference in order, the usual
    case), that is its length, found in one pass without the table."""
    if _is_subsequence(y, x):
        return len(y)
    row = [0] * (len(y) + 1)
    for a in x:
        prev_diag = 0
        for j, b in enumerate(y, start=1):
            keep = row[j]
            row[j] = prev_diag + 1 if a == b else max(row[j], row[j - 1])
            prev_diag = keep
    return row[len(y)]


def _is_subsequence(short: Sequence[str], long: Sequence[str]) -> bool:
    """Whether `short` occurs in `long` in order (greedy matching decides it)."""
    it = iter(long)
    return all(any(a == b for b in it) for a in short)


@dataclass(frozen=True)
class ModeOutcome:
    """Whether the whole-sequence mode holds, its failure if not, and its figures."""

    held: bool
    failure: Failure | None
    #: The mode's own figures (`in_order`: the LCS rates), the first of the check's.
    figures: OrderingFigures


def check_mode(
    mode: str,
    run: Trajectory,
    reference: list[str],
    calls: list[tuple[int, ToolCall]] | None = None,
) -> ModeOutcome:
    """Compare the whole call sequence with the reference by `exact`, `in_order` or `any_order`.

    `calls`: `run.calls`, when the caller already has them."""
    calls = calls_of(run) if calls is None else calls
    return _mode_outcome(mode, calls, reference, _slots(reference), sorted(reference))


def _mode_outcome(
    mode: str,
    calls: list[tuple[int, ToolCall]],
    reference: list[str],
    slots: dict[str, list[int]],
    ordered: list[str],
) -> ModeOutcome:
    """`check_mode` with the reference's `_slots` and its names sorted (`ordered`) at hand."""
    tools = [c.tool for _, c in calls]
    if mode == "any_order" and sorted(tools) == ordered:
        # The same multiset (the sorted names are equal): the order, aligned or not, is not
        # compared, so it is not worked out.
        return ModeOutcome(True, None, {})
    order = _aligned_order(tools, [c.group for _, c in calls], slots)
    actual = _in_order(tools, order)
    # Evidence is what the check found, shown as is (a failure's free-form keys); the
    # reference is copied, as it is the case's own. Built only for a failure.
    found: dict[str, object] = {}
    figures: OrderingFigures = {}
    step: int | None = None
    if mode == "any_order":  # the multisets differ (see above): the evidence counts how
        held = False
        expected, called = Counter(reference), Counter(actual)
        found = {"missing": dict(expected - called), "extra": dict(called - expected)}
    elif mode == "exact":
        held = actual == reference
        diverge = None if held else _first_difference(actual, reference)
        if diverge is not None and diverge < len(calls):
            # The step of the call at that place in the compared (aligned) order.
            step = calls[diverge if order is None else order[diverge]][0]
    else:
        lcs = lcs_length(actual, reference)
        figures = {
            "lcs_precision": lcs / len(actual) if actual else 1.0,
            "lcs_recall": lcs / len(reference) if reference else 1.0,
        }
        found = {"lcs_precision": figures["lcs_precision"], "lcs_recall": figures["lcs_recall"]}
        # in_order asks that the reference appear in order; extra calls lower precision only.
        held = lcs == len(reference)
    if held:
        return ModeOutcome(True, None, figures)
    evidence = {"mode": mode, "expected": list(reference), "actual": actual, **found}
    message = f"the call sequence does not match the reference in {mode} mode"
    failure = Failure(name="order_violation", step=step, message=message, evidence=evidence)
    return ModeOutcome(False, failure, figures)


def _first_difference(actual: Sequence[str], reference: Sequence[str]) -> int | None:
    """Index of the first position where the sequences differ, None when they are equal."""
    for i, (a, r) in enumerate(zip(actual, reference, strict=False)):
        if a != r:
            return i
    return None if len(actual) == len(reference) else min(len(actual), len(reference))


def call_key(c: ToolCall) -> str:
    """A canonical identity of a call: tool and arguments (5 and 5.0 are the same argument)."""
    payload: Any = {"raw": c.raw_arguments} if c.raw_arguments is not None else _canon(c.args)
    return c.tool + "\x00" + _KEY_ENCODER.encode(payload)


#: What `json.dumps(payload, sort_keys=True, default=str)` builds on every call, built once.
_KEY_ENCODER = json.JSONEncoder(sort_keys=True, default=str)


def _canon(value: Any) -> Any:
    """Integral floats become ints so that equal numbers compare equal; bools stay bools."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {str(k): _canon(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_canon(v) for v in value]
    return value


def call_keys(calls: list[tuple[int, ToolCall]]) -> list[str]:
    """A key per call such that two calls' keys are equal exactly when their `call_key`s are.

    A `call_key` starts with the tool name, so a call whose tool occurs once in the run cannot
    equal any other: it gets a placeholder no real key can equal (a real key's JSON part starts
    with `{`), and its arguments are never serialised.
    """
    counts = Counter(c.tool for _, c in calls)
    return [call_key(c) if counts[c.tool] > 1 else f"\x00{n}" for n, (_, c) in enumerate(calls)]


def call_identities(calls: list[tuple[int, ToolCall]]) -> list[Hashable]:
    """`call_keys` without the JSON: equal exactly when they are, and what grading uses.

    Computed once per grade and shared by the repeat detectors. A repeated tool's calls get
    their hashable `identity` (a tuple); a call whose tool occurs once gets a placeholder
    string, which no tuple equals, and its arguments are never read.
    """
    counts = Counter(c.tool for _, c in calls)
    return _identities(calls, {tool for tool, n in counts.items() if n > 1})


def _identities(calls: list[tuple[int, ToolCall]], repeated: Collection[str]) -> list[Hashable]:
    """`call_identities`, with the tools called more than once (`repeated`) at hand."""
    return [identity(c) if c.tool in repeated else f"\x00{n}" for n, (_, c) in enumerate(calls)]


def find_loops(
    calls: list[tuple[int, ToolCall]],
    threshold: int,
    keys: list[Hashable] | None = None,
    faulted: Collection[int] = (),
) -> list[list[int]]:
    """Runs of `threshold` or more identical consecutive calls, as lists of their steps.

    A repeat that follows a failed identical call is a retry, graded by the recovery check
    against its retry ceiling, so it starts a new run instead of extending a loop. So does a
    repeat of a faulted call (`faulted`: positions into `calls`, see `recovery.
    faulted_positions`): an injected `empty` or `malformed` fault is recorded as ok, yet the
    recovery check counts the repeat as its retry. `keys`: the calls' `call_identities`, when the
    caller already has them.
    """
    keys = call_identities(calls) if keys is None else keys
    runs: list[list[int]] = []
    current: list[int] = []
    for n, (step, _) in enumerate(calls):
        if n and _repeats(calls[n - 1][1], n - 1 in faulted) and keys[n - 1] == keys[n]:
            current.append(step)
        else:
            if len(current) >= threshold:
                runs.append(current)
            current = [step]
    if len(current) >= threshold:
        runs.append(current)
    return runs


def _repeats(prev: ToolCall, faulted: bool) -> bool:
    """Whether an identical call after `prev` repeats it (rather than retrying a failure)."""
    return not prev.failed and not faulted


def loop_failures(
    calls: list[tuple[int, ToolCall]],
    threshold: int,
    keys: list[Hashable] | None = None,
    faulted: Collection[int] = (),
) -> tuple[list[Failure], set[int]]:
    """One `loop` failure per run of repeats, and the steps those runs cover."""
    tool_at = dict(calls)
    failures: list[Failure] = []
    covered: set[int] = set()
    for steps in find_loops(calls, threshold, keys, faulted):
        tool = tool_at[steps[0]].tool
        covered.update(steps)
        failures.append(
            Failure(
                name="loop",
                step=steps[0],
                message=f"{tool} called {len(steps)} times in a row with the same arguments",
                evidence={
                    "tool": tool,
                    "count": len(steps),
                    "first_step": steps[0],
                    "last_step": steps[-1],
                },
            )
        )
    return failures, covered


def redundant_failures(
    calls: list[tuple[int, ToolCall]],
    skip: set[int],
    keys: list[Hashable] | None = None,
    faulted: Collection[int] = (),
) -> list[Failure]:
    """`redundant_call`: a call identical to an earlier one that returned ok.

    The earlier call must strictly precede (not share the parallel group, whose results the
    agent had not seen). Steps inside a reported loop are skipped: the loop already says it.
    A faulted call (`faulted`, positions into `calls`) did not return ok, whatever its status.
    """
    keys = call_identities(calls) if keys is None else keys
    ok_at: dict[Hashable, _Event] = {}
    failures: list[Failure] = []
    for n, (step, c) in enumerate(calls):
        key = keys[n]
        earlier = ok_at.get(key)
        # The call's event is built only when there is an earlier one to compare it with.
        if (
            earlier is not None
            and step not in skip
            and _precedes(earlier, _Event(step, c.tool, c.group))
        ):
            failures.append(
                Failure(
                    name="redundant_call",
                    step=step,
                    message=f"{c.tool} repeats the call at step {earlier.step}, which returned ok",
                    evidence={"tool": c.tool, "previous_step": earlier.step},
                )
            )
        returned_ok = c.result is not None and c.result.status == "ok" and n not in faulted
        if earlier is None and returned_ok:
            ok_at[key] = _Event(step, c.tool, c.group)
    return failures


def budget_failure(
    side: str, limit: int, events: list[_Event], ordering: OrderingExpectation
) -> Failure | None:
    """`over_budget` when the calls of a tool (or `@group`) exceed `max_calls`."""
    # As before, an unknown group is only an error when there is an event to test against it.
    matches = _matching(side, events, ordering) if events else []
    if len(matches) <= limit:
        return None
    return _over_budget(side, limit, len(matches), matches[limit].step)


def _budget_at(side: str, limit: int, points: list[int], run: _RunPoints) -> Failure | None:
    """`budget_failure` on the points of a run (`_RunPoints`)."""
    if len(points) <= limit:
        return None
    return _over_budget(side, limit, len(points), run.step(points[limit]))


def _over_budget(side: str, limit: int, count: int, step: int) -> Failure:
    """`over_budget`: `count` calls of `side`, the first beyond `limit` at `step`."""
    return Failure(
        name="over_budget",
        step=step,
        message=f"{side} called {_times(count)}, more than its budget of {limit}",
        evidence={"tool": side, "count": count, "limit": limit},
    )


def _constraints(
    plan: _Plan, index: RunCalls, final: tuple[int, str] | None
) -> tuple[int, int, list[Failure], OrderingFigures]:
    """The `before` pairs, the sequence mode and the budgets, in that order: how many held,
    how many there were, the failures of the others and the mode's figures."""
    run = _RunPoints(index, final)
    outcomes: list[Failure | None] = []
    for pair, a_side, b_side in plan.before:
        a_points = run.matching(a_side)
        outcomes.append(_before_at(pair, a_points, run.matching(b_side), run))
    figures: OrderingFigures = {}
    if plan.reference is not None:
        mode = _mode_outcome(plan.mode, index.calls, plan.reference, plan.slots, plan.ordered)
        outcomes.append(mode.failure)
        figures = mode.figures
    for side, limit, resolved in plan.budgets:
        # As before, an unknown group is only an error when there is a point to test.
        outcomes.append(_budget_at(side, limit, run.matching(resolved) if run else [], run))
    failures = [f for f in outcomes if f is not None]
    return len(outcomes) - len(failures), len(outcomes), failures, figures


class OrderingCheck:
    """Were the calls sequenced validly, without loops or budget overruns?"""

    name: CheckName = "ordering"

    def grade(self, case: Case, run: Trajectory, ctx: GradeContext) -> CheckResult:
        """Grade the run's order constraints, sequence mode, repeats and budgets."""
        ordering = case.expected.ordering
        if ordering is None:
            return CheckResult.not_applicable(self.name)
        plan = _PLANS(case, _plan_of)
        index = index_of(run)
        final = run.final_answer()
        held, total, failures, figures = _constraints(plan, index, final)
        loops = self._repeats(case, index, ordering.loop_threshold, failures)
        if len(failures) > 1:
            failures.sort(key=lambda f: (f.step is None, f.step or 0))
        score = held / total if total else float(not loops)
        figures["constraints_total"] = total
        figures["constraints_held"] = held
        figures["n_calls"] = len(index.calls)
        if plan.names_answer:
            # Pairs with `answer` hold vacuously without one: the figure says which it was.
            figures["final_answer_step"] = final[0] if final is not None else None
        return CheckResult(
            check=self.name,
            applicable=True,
            score=score,
            passed=held == total and not loops,
            failures=failures,
            figures=figures,
        )

    @staticmethod
    def _repeats(case: Case, index: RunCalls, threshold: int, failures: list[Failure]) -> bool:
        """Add the run's `loop` and `redundant_call` failures; whether there was a loop.

        Both need two calls with the same identity, so a run that never calls a tool twice
        with the same arguments (the usual run) is done after one look at its keys."""
        repeated = {tool for tool, positions in index.by_tool.items() if len(positions) > 1}
        if not repeated:
            return False
        calls = index.calls
        keys = _identities(calls, repeated)
        if len(set(keys)) == len(keys):
            return False
        faulted = faulted_in(case.expected.recovery, index)
        loops, looped_steps = loop_failures(calls, threshold, keys, faulted)
        failures += loops + redundant_failures(calls, looped_steps, keys, faulted)
        return bool(loops)

    def accumulator(self) -> OrderingAccumulator:
        """Pass rate, failure counts and step efficiency per task type."""
        return OrderingAccumulator()


class OrderingBlock(PassRateBlock, EfficiencyBlock):
    """`summary.checks.ordering`."""

    failures: dict[str, int]


class OrderingAccumulator:
    """`summary.checks.ordering`: pass rate, failure counts and step efficiency."""

    def __init__(self) -> None:
        self._rate = PassRateAccumulator("ordering")
        self._efficiency = StepEfficiency()
        self._failures: Counter[str] = Counter()

    def add(self, case: Case, run: Trajectory, record: TrajectoryResult) -> None:
        """Fold one graded run in; efficiency pools every run, whatever ordering applies."""
        self._rate.add(case, run, record)
        self._efficiency.add(case, run, record)
        result = record.checks.get("ordering")
        if result is not None and result.applicable:
            self._failures.update(f.name for f in result.failures)

    def merge(self, other: OrderingAccumulator) -> None:
        """Add another's figures (the runs after these; see `checks.base.MergingAccumulator`)."""
        self._rate.merge(other._rate)
        self._efficiency.merge(other._efficiency)
        self._failures.update(other._failures)

    def summary(self) -> OrderingBlock:
        """`{pass_rate, applicable, efficiency, efficiency_n, failures}`."""
        return {
            **self._rate.summary(),
            **self._efficiency.summary(),
            "failures": dict(sorted(self._failures.items())),
        }


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"
