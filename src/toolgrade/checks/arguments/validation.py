"""Up-front vetting of the parts of a case that only the checks understand.

The loader calls these after a case has the right shape, so a bad comparator or an unknown
ordering group is reported as file:line: field before any grading starts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from toolgrade.models import Case, Expected, OrderingExpectation, SelectionExpectation

CaseProblems = list[tuple[str, str]]


def argument_spec_problems(case: Case) -> CaseProblems:
    """Comparator syntax of every expected argument."""
    return _args_problems(call.args for call in case.expected.arguments or [])


def raw_argument_spec_problems(data: Any) -> CaseProblems:
    """`argument_spec_problems` on a case's raw data, for a case whose shape is invalid: its
    comparator problems are reported in the same pass instead of after the shape is fixed."""
    expected = data.get("expected") if isinstance(data, dict) else None
    calls = expected.get("arguments") if isinstance(expected, dict) else None
    calls = calls if isinstance(calls, list) else []
    return _args_problems(call.get("args") if isinstance(call, dict) else None for call in calls)


def _args_problems(args_of_calls: Iterable[Any]) -> CaseProblems:
    """The comparator problems of each expected call's `args` (anything not a mapping: none)."""
    from toolgrade.checks.arguments.comparators import validate_arg_spec

    out: CaseProblems = []
    for i, args in enumerate(args_of_calls):
        for name, spec in args.items() if isinstance(args, Mapping) else ():
            out += [(f"expected.arguments[{i}].args.{name}", p) for p in validate_arg_spec(spec)]
    return out


def ordering_problems(case: Case) -> CaseProblems:
    """Group references and sides of the ordering constraints."""
    from toolgrade.checks.ordering import validate_ordering

    # Each problem starts with the ordering field it is about ("before[0]: ..."): make that
    # part of the field, so the loader can point at its line.
    out: CaseProblems = []
    for problem in validate_ordering(case):
        where, _, reason = problem.partition(": ")
        field = f"expected.ordering.{where}" if reason else "expected.ordering"
        out.append((field, reason or where))
    return out


def raw_ordering_problems(data: Any) -> CaseProblems:
    """`ordering_problems` on a case's raw data, for a case whose shape is invalid elsewhere:
    its ordering problems are reported in the same pass instead of after the shape is fixed.

    Vetted only when `expected.ordering` itself has a valid shape: its parts refer to each other
    (a `before` side names a group), so vetting a half-valid ordering would report problems
    that fixing its shape makes go away; its shape errors are reported meanwhile.
    """
    expected = data.get("expected") if isinstance(data, dict) else None
    if not isinstance(expected, dict) or expected.get("ordering") is None:
        return []
    try:
        ordering = OrderingExpectation.model_validate(expected["ordering"])
    except ValidationError:
        return []
    # The selection only tells whether a `mode` has a sequence to compare with. One that is
    # given but has shape errors of its own (reported meanwhile) counts as given, so no problem
    # is reported here that fixing it would remove.
    selection = expected.get("selection")
    try:
        given = None if selection is None else SelectionExpectation.model_validate(selection)
    except ValidationError:
        given = SelectionExpectation(tools=[])
    return ordering_problems(Case(id="raw", expected=Expected(ordering=ordering, selection=given)))


def catalogue_problems(case: Case) -> CaseProblems:
    """Tools the reference expects the agent to call that the case's tool catalogue lacks:
    a run that follows the reference would fail selection as `unknown_tool`. A case with no
    catalogue is not vetted (its runs are not checked against one either)."""
    if not case.tools:
        return []
    expected = case.expected
    named: list[tuple[str, str]] = []
    if expected.selection is not None:
        named += [(f"selection.tools[{i}]", t) for i, t in enumerate(expected.selection.tools)]
        named += [
            (f"selection.alternatives[{r}][{i}]", t)
            for r, route in enumerate(expected.selection.alternatives)
            for i, t in enumerate(route)
        ]
    named += [(f"arguments[{i}].tool", c.tool) for i, c in enumerate(expected.arguments or [])]
    if expected.recovery is not None:
        named += [
            (f"recovery.fallbacks.{tool}", t)
            for tool, fallbacks in expected.recovery.fallbacks.items()
            for t in fallbacks
        ]
        if expected.recovery.escalate_with is not None:
            named.append(("recovery.escalate_with", expected.recovery.escalate_with))
    return [
        (
            f"expected.{field}",
            f"{tool!r} is not in the tool catalogue, so a run that calls it "
            "fails as unknown_tool; add it to `tools` or fix the name",
        )
        for field, tool in named
        if tool not in case.tools
    ]


def case_validators() -> list[Callable[[Case], CaseProblems]]:
    """The validators the suite loader runs on every case."""
    return [argument_spec_problems, ordering_problems, catalogue_problems]
