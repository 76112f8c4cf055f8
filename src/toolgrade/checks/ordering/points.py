"""Where a constraint side matches in a run: its calls as events, indexed by tool, and each
case's plan of sides, budgets and reference sequence, made once per case."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from toolgrade.checks.memo import IdentityMemo
from toolgrade.checks.ordering.sequence import reference_sequence, reference_slots
from toolgrade.checks.run_calls import RunCalls
from toolgrade.models import (
    ANSWER,
    Case,
    OrderingExpectation,
)


class Event(NamedTuple):
    """A point in the run a constraint side can match: a tool call or the final answer.

    A named tuple, not a frozen dataclass: a run builds one per call, and a tuple is built in
    a third of the time."""

    step: int
    name: str
    group: int | str | None = None
    is_answer: bool = False


def precedes(a: Event, b: Event) -> bool:
    """True when `a` happened strictly before `b` (not in the same parallel group)."""
    return a.step < b.step and (a.group is None or a.group != b.group)


def matching_events(side: str, events: list[Event], ordering: OrderingExpectation) -> list[Event]:
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
    #: The error `matching_events` raises for a side naming an unknown group, raised when matched.
    unknown: str | None = None


def _side_of(side: str, ordering: OrderingExpectation) -> _Side:
    """What `matching_events` reads a side as: `answer`, `@group` or one tool name."""
    if side == ANSWER:
        return _Side(answer=True, tools=frozenset())
    if side.startswith("@"):
        if side[1:] not in ordering.groups:
            unknown = f"unknown ordering group {side!r}"
            return _Side(answer=False, tools=frozenset(), unknown=unknown)
        return _Side(answer=False, tools=frozenset(ordering.groups[side[1:]]))
    return _Side(answer=False, tools=frozenset({side}))


class RunPoints:
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
        """`matching_events` for a resolved side: the same points, in run order (do not modify)."""
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
class Plan:
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


def _plan_of(case: Case) -> Plan:
    """The case's `Plan` (its ordering expectation must be set)."""
    ordering = case.expected.ordering
    assert ordering is not None
    reference = reference_sequence(case) if ordering.mode is not None else None
    return Plan(
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
        slots=reference_slots(reference or []),
        ordered=sorted(reference or []),
        names_answer=any(ANSWER in pair for pair in ordering.before),
    )


#: Each graded case's `Plan`, by identity (a case is frozen and graded once per run).
_PLANS: IdentityMemo[Case, Plan] = IdentityMemo()


def plan_for(case: Case) -> Plan:
    """The case's `Plan`, made once per case object (its ordering expectation must be set)."""
    return _PLANS(case, _plan_of)
