"""The `before` pairs and the `max_calls` budgets: each one held or a named failure, and the
suite-time validation of a case's ordering reference."""

from __future__ import annotations

from toolgrade.checks.ordering.points import Event, RunPoints, matching_events, precedes
from toolgrade.checks.ordering.sequence import reference_sequence
from toolgrade.models import (
    ANSWER,
    Case,
    Failure,
    OrderingExpectation,
)


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
    if ordering.mode is not None and reference_sequence(case) is None:
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
    pair: tuple[str, str], events: list[Event], ordering: OrderingExpectation
) -> Failure | None:
    """One `before` pair: every event matching b must come after some event matching a.
    `events`: the run's, in run order."""
    a_events = matching_events(pair[0], events, ordering)
    b_events = matching_events(pair[1], events, ordering)
    return _before_failure(pair, a_events, b_events)


def _before_failure(
    pair: tuple[str, str], a_events: list[Event], b_events: list[Event]
) -> Failure | None:
    """`check_before` once each side's events are found (in run order, as `matching_events`
    lists them)."""
    offending = [b for b in b_events if not _preceded(b, a_events)]
    if not offending:
        return None
    first = offending[0]
    steps = [b.step for b in offending]
    return _order_violation(pair, first.name, [a.step for a in a_events], steps)


def before_at(
    pair: tuple[str, str], a_points: list[int], b_points: list[int], run: RunPoints
) -> Failure | None:
    """`_before_failure` on the points of a run (`RunPoints`)."""
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


def _preceded(b: Event, a_events: list[Event]) -> bool:
    """Whether some event of `a_events` (in run order) precedes `b`: only those before `b`'s
    step are looked at."""
    for a in a_events:
        if a.step >= b.step:
            return False
        if precedes(a, b):
            return True
    return False


def budget_failure(
    side: str, limit: int, events: list[Event], ordering: OrderingExpectation
) -> Failure | None:
    """`over_budget` when the calls of a tool (or `@group`) exceed `max_calls`."""
    # As before, an unknown group is only an error when there is an event to test against it.
    matches = matching_events(side, events, ordering) if events else []
    if len(matches) <= limit:
        return None
    return _over_budget(side, limit, len(matches), matches[limit].step)


def budget_at(side: str, limit: int, points: list[int], run: RunPoints) -> Failure | None:
    """`budget_failure` on the points of a run (`RunPoints`)."""
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



def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"
