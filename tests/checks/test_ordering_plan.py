"""Ordering's per-case plan and per-run index give what the plain scans give.

A side resolved once per case and read from the run's index by tool matches the events
`matching_events` finds scanning the whole run; the repeat detectors' shortcut (no two calls share
an identity) reports what the detectors report; faults located through the index are the
faults `locate` finds.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.checks.ordering import (
    ModeOutcome,
    OrderingCheck,
    aligned_names,
    aligned_order,
    budget_failure,
    call_identities,
    check_before,
    check_mode,
    lcs_length,
    loop_failures,
    redundant_failures,
)
from toolgrade.checks.ordering.constraints import before_at, budget_at
from toolgrade.checks.ordering.points import Event, RunPoints, _side_of, matching_events
from toolgrade.checks.ordering.sequence import _first_difference
from toolgrade.checks.recovery import _located, faulted_in, locate
from toolgrade.checks.run_calls import RunCalls, index_of
from toolgrade.models import (
    ANSWER,
    Case,
    Expected,
    Failure,
    FaultSpec,
    Message,
    OrderingExpectation,
    RecoveryExpectation,
    ToolCall,
    ToolResult,
    Trajectory,
)

_GROUPS = {"reads": ["a", "c"], "one": ["b"], "none": []}


@st.composite
def calls(draw: st.DrawFn) -> list[tuple[int, ToolCall]]:
    """A few calls over few tools, groups, statuses and argument values: repeats are common."""
    out = []
    for step in range(draw(st.integers(min_value=0, max_value=8))):
        status = draw(st.sampled_from(["ok", "error", None]))
        result = None if status is None else ToolResult(
            status=status, fault=draw(st.sampled_from([None, None, "empty"])))
        out.append((step * 2, ToolCall(
            tool=draw(st.sampled_from(["a", "b", "c"])),
            args={"q": draw(st.sampled_from([1, 1.0, "1", True]))},
            group=draw(st.sampled_from([None, None, 1, 2])),
            result=result,
        )))
    return out


def _events(calls: list[tuple[int, ToolCall]], final: tuple[int, str] | None) -> list[Event]:
    """Every call an event, then the final answer: what `matching_events` scans."""
    events = [Event(i, c.tool, c.group) for i, c in calls]
    return events + ([Event(final[0], ANSWER, None, is_answer=True)] if final else [])


_SIDES = st.sampled_from(["a", "b", "d", ANSWER, "@reads", "@one", "@none"])


@settings(max_examples=300, deadline=None)
@given(calls(), st.booleans(), _SIDES)
def test_an_indexed_side_matches_what_the_scan_matches(
    run: list[tuple[int, ToolCall]], answered: bool, side: str
) -> None:
    ordering = OrderingExpectation(groups=_GROUPS)
    final = (len(run) * 2, "done") if answered else None
    points = RunPoints(RunCalls(run), final)
    found = points.matching(_side_of(side, ordering))
    events = matching_events(side, _events(run, final), ordering)
    assert [(points.step(p), points.name(p)) for p in found] == [(e.step, e.name) for e in events]
    assert bool(points) == bool(_events(run, final))


@settings(max_examples=400, deadline=None)
@given(calls(), st.booleans(), _SIDES, _SIDES, st.integers(0, 3))
def test_pairs_and_budgets_on_points_fail_as_on_events(
    run: list[tuple[int, ToolCall]], answered: bool, a: str, b: str, limit: int
) -> None:
    ordering = OrderingExpectation(groups=_GROUPS)
    final = (len(run) * 2, "done") if answered else None
    points, events = RunPoints(RunCalls(run), final), _events(run, final)
    a_points = points.matching(_side_of(a, ordering))
    b_points = points.matching(_side_of(b, ordering))
    assert before_at((a, b), a_points, b_points, points) == check_before((a, b), events, ordering)
    assert budget_at(b, limit, b_points, points) == budget_failure(b, limit, events, ordering)


@settings(max_examples=300, deadline=None)
@given(calls(), st.sampled_from([None, "a", "b"]), st.integers(2, 3))
def test_the_repeat_shortcut_reports_what_the_detectors_report(
    run: list[tuple[int, ToolCall]], faulted_tool: str | None, threshold: int
) -> None:
    rec = RecoveryExpectation(faults=[FaultSpec(tool=faulted_tool)]) if faulted_tool else None
    case = Case(id="c", expected=Expected(ordering=OrderingExpectation(), recovery=rec))
    index = RunCalls(run)
    keys = call_identities(run)
    faulted = faulted_in(rec, index)
    loops, looped = loop_failures(run, threshold, keys, faulted)
    plain = loops + redundant_failures(run, looped, keys, faulted)
    found: list[Any] = []
    assert OrderingCheck._repeats(case, index, threshold, found) == bool(loops)
    assert found == plain


@settings(max_examples=300, deadline=None)
@given(calls(), st.sampled_from(["a", "b", "d"]), st.sampled_from([1, 2, 3, "all"]))
def test_faults_located_through_the_index_are_the_ones_locate_finds(
    run: list[tuple[int, ToolCall]], tool: str, nth: int | str
) -> None:
    spec = FaultSpec(tool=tool, nth=nth)  # type: ignore[arg-type]
    index = RunCalls(run)
    assert _located(spec, index) == locate(spec, run)
    rec = RecoveryExpectation(faults=[spec])
    plain = {p for p, (_, c) in enumerate(run) if c.injected_fault}
    plain |= {p for p, (_, c) in enumerate(run) if c.tool == tool} if nth == "all" else set()
    position = locate(spec, run).position
    assert faulted_in(rec, index) == plain | ({position} if position is not None else set())


def test_the_index_is_built_afresh_for_a_run_changed_in_place() -> None:
    run = Trajectory(case_id="c", steps=[ToolCall(tool="a"), Message(role="user", content="x")])
    assert index_of(run).by_tool == {"a": [0]}
    run.steps.append(ToolCall(tool="a", result=ToolResult(status="ok", fault="empty")))
    assert index_of(run).by_tool == {"a": [0, 1]}
    assert index_of(run).marked == {1}
    assert index_of(run).positions("b") == []


def _plain_mode(mode: str, run: list[tuple[int, ToolCall]], reference: list[str]) -> Any:
    """The former `check_mode`, the oracle: evidence built first, every mode aligned."""
    bare = [c for _, c in run]
    order = aligned_order(bare, reference)
    actual = aligned_names(bare, reference)
    evidence: dict[str, object] = {"mode": mode, "expected": reference, "actual": actual}
    figures: dict[str, float] = {}
    step = None
    if mode == "any_order":
        missing, extra = Counter(reference) - Counter(actual), Counter(actual) - Counter(reference)
        evidence.update(missing=dict(missing), extra=dict(extra))
        held = not missing and not extra
    elif mode == "exact":
        held = actual == reference
        diverge = _first_difference(actual, reference)  # unchanged: not what is tested
        if diverge is not None and diverge < len(run):
            step = run[diverge if order is None else order[diverge]][0]
    else:
        lcs = lcs_length(actual, reference)
        figures = {"lcs_precision": lcs / len(actual) if actual else 1.0,
                   "lcs_recall": lcs / len(reference) if reference else 1.0}
        evidence.update(figures)
        held = lcs == len(reference)
    failure = None if held else Failure(
        name="order_violation", step=step, evidence=evidence,
        message=f"the call sequence does not match the reference in {mode} mode")
    return ModeOutcome(held, failure, figures)  # type: ignore[arg-type]


@settings(max_examples=400, deadline=None)
@given(calls(), st.lists(st.sampled_from(["a", "b", "c"]), max_size=5),
       st.sampled_from(["exact", "in_order", "any_order"]))
def test_the_mode_outcome_is_the_plain_one(
    run: list[tuple[int, ToolCall]], reference: list[str], mode: str
) -> None:
    got = check_mode(mode, Trajectory(case_id="c"), reference, run)
    assert got == _plain_mode(mode, run, reference)
    if got.failure is not None:  # the evidence keeps its key order (results.jsonl bytes)
        assert list(got.failure.evidence) == list(_plain_mode(mode, run, reference)
                                                  .failure.evidence)
