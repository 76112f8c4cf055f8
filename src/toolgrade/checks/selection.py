"""The selection check: did the agent reach for the right tools? (docs/contract.md.)

Counting. Tool names are compared as multisets: a reference that lists `search` twice against
an agent that calls it five times is 2 TP and 3 FP, never collapsed. The run is scored against
each acceptable route (`tools`, then each of `alternatives`) and the best one is kept: a route
under which no side-effecting call is unauthorized first (a hard fail), then the highest F1, then
fewest unauthorized side effects, then the first listed. `figures.route` says which
(0 = `tools`, i = `alternatives[i-1]`). A `no_tool: true` case has one route, the empty one.

Free calls (`allowed`, `allow_reads`): calls of a free tool beyond what the chosen route expects
of it are neither TP nor FP nor `extra_tool`, and not in precision; they are counted apart in
`figures.free_calls` (and per tool in `figures.free_per_tool`), both present only on cases that
use the keys. A route may still list a free tool: those calls are required as usual. With
`allow_failed`, every call whose tool returned an error is free as well, and is left out of the
route's matching: a failed write changed nothing, so it neither satisfies nor exceeds the route.

Degenerate cases: precision is 1 when no call was made, recall is 1 when nothing was expected,
F1 = 2·TP / (2·TP + FP + FN) and 1 when both are empty. So a `no_tool` case scores 1 with no
call and 0 with any call.

Failures (one per instance, pointing at the agent's step where there is one):

- Every FN and FP is accounted for exactly once by `missing_tool` (no step), `extra_tool`, or
  `substitution` (one FN and one FP together): #extra_tool + #substitution = FP and
  #missing_tool + #substitution = FN. In a `no_tool` case each call is `unexpected_tool_use`
  instead of `extra_tool`.
- Substitutions: missed reference entries are paired with extra calls of tools the route
  does not list (a surplus repeat of an expected tool is an extra, not a swap) at the nearest
  position, by an optimal assignment (scipy's Hungarian method) on |position distance|,
  pairing min(FN, such extras) of them. A call's position is its ordinal among the run's
  tool calls; a missed reference entry's position is its index in the route mapped
  proportionally onto those ordinals (index i of m sits at i·(n-1)/(m-1)). Within one tool
  the order decides which entries are surplus: the calls after the first k of a tool listed
  k times are the extras, and the last listed entries of an under-called tool are missed.
- Flags added beside the above, on the call's step: `forbidden_tool` (any call of a forbidden
  tool), `unauthorized_side_effect` (an extra call, beyond what the chosen route expects, of
  a tool whose `side_effect` is true) and `unknown_tool` (a tool absent from a non-empty
  catalogue).

Score: F1 against the chosen route, 0 on a hard fail (`forbidden_tool`,
`unauthorized_side_effect`). Passed: F1 is 1, no hard fail and no `unknown_tool`.

Adjudication (after route choice, `checks/adjudication.py`): with `judge_alternates: true` and
F1 < 1, a person's recorded decision on the route, else the `alternate_route` judge
(`figures.judge_route`), decides. The route decided on (`figures.adjudicated_route`, the key of
a person's decision) leaves out the free calls beyond the chosen route, as the counting does:
an extra free lookup neither makes another route nor needs deciding again. An accepted route
passes with score 1, `figures.f1` as measured, `figures.adjudicated` and the deterministic
failures moved to
`figures.overridden_failures`; a rejected, failed or unscored one stays failed. Hard fails
(`forbidden_tool`, `unauthorized_side_effect`, `unknown_tool`) are never overridden.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict

from toolgrade.checks.adjudication import decide_route, listed_routes
from toolgrade.checks.base import GradeContext, pass_rate
from toolgrade.checks.memo import IdentityMemo
from toolgrade.checks.run_calls import calls_of
from toolgrade.checks.selection_figures import (
    NONE,
    Alignment,
    Counts,
    align,
    best_of,
    confusion_cells,
    counted_calls,
    free_calls,
    pair_substitutions,
    per_tool_rows,
    route_taken,
)
from toolgrade.models import (
    Case,
    CheckName,
    CheckResult,
    Failure,
    FailureName,
    SelectionExpectation,
    ToolCall,
    Trajectory,
    TrajectoryResult,
)
from toolgrade.models.figures import SelectionFigures, SelectionRates, Substitution, figures_of
from toolgrade.vocabulary import UNPARSED_TOOL

HARD_FAILS = frozenset({"forbidden_tool", "unauthorized_side_effect"})


@dataclass(frozen=True)
class _Plan:
    """What a case determines about its selection grading, derived once per case object."""

    spec: SelectionExpectation
    #: The listed routes (`listed_routes`), each route's multiset and its set of tool names.
    routes: list[list[str]]
    expected: list[Counter[str]]
    listed: list[frozenset[str]]
    free: frozenset[str]
    #: The mutating tools not made free: they only break ties between routes, so they are
    #: left empty with a single route.
    unguarded: frozenset[str]
    forbidden: frozenset[str]
    #: The catalogue's tool names, and those of its tools with side effects.
    catalogue: frozenset[str]
    side_effect: frozenset[str]


def _plan_of(case: Case) -> _Plan:
    """The case's `_Plan` (its selection expectation must be set)."""
    spec = case.expected.selection
    assert spec is not None
    routes = listed_routes(spec)
    free = case.free_tools()
    mutating = case.side_effect_tools() if len(routes) > 1 else set()
    return _Plan(
        spec=spec,
        routes=routes,
        expected=[Counter(route) for route in routes],
        listed=[frozenset(route) for route in routes],
        free=free,
        unguarded=frozenset(mutating - free),
        forbidden=frozenset(spec.forbidden),
        catalogue=frozenset(case.tools),
        side_effect=frozenset(case.side_effect_tools()),
    )


#: Each graded case's `_Plan`, by identity (a case is frozen and graded once per run).
_PLANS: IdentityMemo[Case, _Plan] = IdentityMemo()


class SelectionCheck:
    """Grades which tools a run called against the case's `expected.selection`."""

    name: CheckName = "selection"

    def grade(self, case: Case, run: Trajectory, ctx: GradeContext) -> CheckResult:
        """Score the run's multiset of tool names against the best-matching route."""
        spec = case.expected.selection
        if spec is None:
            return CheckResult.not_applicable(self.name)
        plan = _PLANS(case, _plan_of)
        # With `allow_failed`, a call whose tool returned an error is free: it changed nothing,
        # so it neither matches the route nor counts as extra (flags still see it).
        every_call = calls_of(run)
        calls = [(i, c) for i, c in every_call if not c.failed] if spec.allow_failed else every_call
        called = [call.tool for _, call in calls]
        actual = Counter(called)
        index, counts = best_of(plan.expected, actual, plan.unguarded, plan.free)
        route, expected = plan.routes[index], plan.expected[index]
        builder = _FailureBuilder(plan, index, called, calls)
        failures = builder.build(align(route, called, expected), every_call)
        hard_fail = any(f.name in HARD_FAILS for f in failures)
        unknown = any(f.name == "unknown_tool" for f in failures)
        figures: SelectionFigures = {
            "tp": counts.tp,
            "fp": counts.fp,
            "fn": counts.fn,
            "precision": counts.precision,
            "recall": counts.recall,
            "f1": counts.f1,
            "route": index,
            "per_tool": per_tool_rows(expected, counted_calls(expected, actual, plan.free)),
            "side_effect_extras": builder.side_effect_extras,
            "substitutions": builder.substitutions,
        }
        if spec.allowed or spec.allow_reads or spec.allow_failed:
            # Only cases that ask for free calls carry these figures: other outputs are unchanged.
            per_free = Counter(free_calls(expected, actual, plan.free)) + _failed(every_call, spec)
            figures["free_calls"] = sum(per_free.values())
            figures["free_per_tool"] = dict(sorted(per_free.items()))
        score = 0.0 if hard_fail else counts.f1
        passed = counts.fp == 0 and counts.fn == 0 and not hard_fail and not unknown
        if spec.judge_alternates and counts.f1 < 1:
            taken = route_taken(route, called, plan.free)
            routes = [list(r) for r in plan.routes]  # the judge's own copies of the plan's
            figures = {**figures, **decide_route(case, routes, called, failures, ctx, taken)}
            if figures.get("adjudicated") == "pass":
                # The route is accepted as if listed; what the listed routes measured stays.
                figures["unadjudicated"] = {"score": score, "passed": passed}
                figures["overridden_failures"] = [f.to_json() for f in failures]
                score, passed, failures = 1.0, True, []
        return CheckResult(
            check=self.name,
            applicable=True,
            score=score,
            passed=passed,
            failures=failures,
            figures=figures,
        )

    def accumulator(self) -> SelectionAccumulator:
        """A fresh accumulator for `summary.checks.selection`."""
        return SelectionAccumulator()


def _failed(calls: list[tuple[int, ToolCall]], spec: SelectionExpectation) -> Counter[str]:
    """The failed calls left out of the counting per tool (`allow_failed`; else none)."""
    return Counter(c.tool for _, c in calls if c.failed) if spec.allow_failed else Counter()


class _FailureBuilder:
    """Turns one run's alignment against its chosen route into named failures."""

    def __init__(
        self, plan: _Plan, route: int, called: list[str], calls: list[tuple[int, ToolCall]]
    ) -> None:
        """`route`: the chosen route's index; `called` and `calls`: the counted calls' tools
        and (step, call) pairs, in run order."""
        self.plan, self.spec = plan, plan.spec
        self.route, self.listed = plan.routes[route], plan.listed[route]
        self.called, self.calls, self.free = called, calls, plan.free
        self.failures: list[Failure] = []
        self.substitutions: list[Substitution] = []
        self.side_effect_extras: list[str] = []

    def build(self, alignment: Alignment, calls: list[tuple[int, ToolCall]]) -> list[Failure]:
        """All failures, ordered by step (failures with no step, i.e. omissions, last).
        `calls` are every call of the run, for the flags that hold whether counted or not."""
        if self.free:
            # A free call beyond the route is no extra: it is neither a failure nor a
            # candidate substitute for a missed tool.
            kept = [k for k in alignment.extras if self.called[k] not in self.free]
            alignment = Alignment(missed=alignment.missed, extras=kept)
        pairs = self._pairs(alignment)
        paired_missed = set(pairs.values())
        for j, (ref_index, _) in enumerate(alignment.missed):
            if j not in paired_missed:
                tool = self.route[ref_index]
                self._add(
                    "missing_tool",
                    None,
                    f"expected {tool}, never called",
                    tool=tool,
                    reference_index=ref_index,
                )
        for e, ordinal in enumerate(alignment.extras):
            missed = alignment.missed[pairs[e]][0] if e in pairs else None
            self._extra(ordinal, missed)
        if self._may_flag(calls):
            for step, call in calls:
                self._flags(step, call.tool)
        if len(self.failures) < 2:
            return self.failures
        return sorted(self.failures, key=lambda f: (f.step is None, f.step or 0))

    def _pairs(self, alignment: Alignment) -> dict[int, int]:
        """Substitutions as {index into extras: index into missed}; none without both."""
        if not alignment.missed or not alignment.extras:
            return {}
        found = pair_substitutions(alignment, self.route, self.called, self.listed)
        return {e: m for m, e in found}

    def _may_flag(self, calls: list[tuple[int, ToolCall]]) -> bool:
        """Whether some call is of a forbidden or an uncatalogued tool: only then can `_flags`
        add anything, so a run without any skips the per-call pass."""
        tools = {call.tool for _, call in calls}
        unknown = bool(self.plan.catalogue) and not tools <= self.plan.catalogue
        return unknown or not self.plan.forbidden.isdisjoint(tools)

    def _extra(self, ordinal: int, missed_ref: int | None) -> None:
        """Account for one extra call: substitution, unexpected use or plain extra."""
        tool, step = self.called[ordinal], self.calls[ordinal][0]
        if missed_ref is not None:
            expected = self.route[missed_ref]
            self.substitutions.append({"expected": expected, "actual": tool})
            self._add(
                "substitution",
                step,
                f"expected {expected}, called {tool}",
                expected=expected,
                actual=tool,
                reference_index=missed_ref,
            )
        elif self.spec.no_tool:
            self._add("unexpected_tool_use", step, f"no tool was needed, called {tool}", tool=tool)
        else:
            why = "more often than the route expects" if tool in self.listed else "not expected"
            self._add("extra_tool", step, f"{tool} called: {why}", tool=tool)
        if tool in self.plan.side_effect:
            self.side_effect_extras.append(tool)
            self._add(
                "unauthorized_side_effect",
                step,
                f"{tool} has side effects and no accepted route calls it here",
                tool=tool,
            )

    def _flags(self, step: int, tool: str) -> None:
        """Flags that hold for any call, matched, free or not: forbidden and unknown tools."""
        if tool in self.plan.forbidden:
            self._add("forbidden_tool", step, f"{tool} is forbidden in this case", tool=tool)
        if self.plan.catalogue and tool not in self.plan.catalogue and tool != UNPARSED_TOOL:
            self._add("unknown_tool", step, f"{tool} is not in the tool catalogue", tool=tool)

    def _add(self, name: FailureName, step: int | None, message: str, **evidence: Any) -> None:
        self.failures.append(Failure(name=name, step=step, message=message, evidence=evidence))


class ConfusionRow(TypedDict):
    """One confusion cell: how often `expected` was answered by `actual` (`none`: not at all)."""

    expected: str
    actual: str
    count: int


class SelectionBlock(TypedDict):
    """`summary.checks.selection` (`free_calls` only when some graded case uses free calls)."""

    precision: float | None
    recall: float | None
    f1: float | None
    pass_rate: float | None
    applicable: int
    tp: int
    fp: int
    fn: int
    per_tool: dict[str, SelectionRates]
    confusion: list[ConfusionRow]
    side_effect_extras: dict[str, int]
    free_calls: NotRequired[dict[str, int]]


class SelectionAccumulator:
    """Folds selection results into `summary.checks.selection`.

    Memory is bounded by the number of distinct tool names (per-tool counters and confusion
    cells), never by the number of runs.
    """

    def __init__(self) -> None:
        self.applicable = 0
        self.passed = 0
        self.tp = self.fp = self.fn = 0
        self.per_tool: dict[str, Counter[str]] = {}
        self.confusion: Counter[tuple[str, str]] = Counter()
        self.side_effect_extras: Counter[str] = Counter()
        #: Free calls per tool; None until a case that uses free calls is graded.
        self.free_calls: Counter[str] | None = None

    def add(self, case: Case, run: Trajectory, record: TrajectoryResult) -> None:
        """Take one graded trajectory; ignored when selection was not applicable."""
        result = record.checks.get("selection")
        if result is None or not result.applicable:
            return
        fig = figures_of(result, "selection")
        self.applicable += 1
        self.passed += bool(result.passed)
        self.tp += fig.get("tp", 0)
        self.fp += fig.get("fp", 0)
        self.fn += fig.get("fn", 0)
        per_tool = fig.get("per_tool", {})
        for name, row in per_tool.items():
            totals = self.per_tool.get(name)
            if totals is None:
                totals = self.per_tool[name] = Counter()
            # Plain additions: Counter.update, and a Counter built per row, cost more than
            # grading selection itself.
            totals["tp"] += row["tp"]
            totals["fp"] += row["fp"]
            totals["fn"] += row["fn"]
        for cell, count in confusion_cells(per_tool, fig.get("substitutions", [])).items():
            self.confusion[cell] += count
        for tool in fig.get("side_effect_extras", []):
            self.side_effect_extras[tool] += 1
        if "free_per_tool" in fig:
            self.free_calls = self.free_calls if self.free_calls is not None else Counter()
            self.free_calls.update(fig["free_per_tool"])

    def merge(self, other: SelectionAccumulator) -> None:
        """Add another's counts (the runs after these; see `checks.base.MergingAccumulator`)."""
        self.applicable += other.applicable
        self.passed += other.passed
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn
        for name, row in other.per_tool.items():
            self.per_tool.setdefault(name, Counter()).update(row)
        self.confusion.update(other.confusion)
        self.side_effect_extras.update(other.side_effect_extras)
        if other.free_calls is not None:
            self.free_calls = self.free_calls if self.free_calls is not None else Counter()
            self.free_calls.update(other.free_calls)

    def summary(self) -> SelectionBlock:
        """Micro P/R/F1, pass rate, per-tool table, confusion cells and side-effect extras;
        `free_calls` per tool when some graded case uses free calls."""
        pooled = Counts(self.tp, self.fp, self.fn) if self.applicable else None
        out: SelectionBlock = {
            "precision": pooled.precision if pooled is not None else None,
            "recall": pooled.recall if pooled is not None else None,
            "f1": pooled.f1 if pooled is not None else None,
            "pass_rate": pass_rate(self.passed, self.applicable),
            "applicable": self.applicable,
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "per_tool": {
                name: Counts(row["tp"], row["fp"], row["fn"]).figures()
                for name, row in sorted(self.per_tool.items())
            },
            "confusion": [
                {"expected": e, "actual": a, "count": n}
                for (e, a), n in sorted(self.confusion.items(), key=_cell_order)
            ],
            "side_effect_extras": dict(sorted(self.side_effect_extras.items())),
        }
        if self.free_calls is not None:
            out["free_calls"] = dict(sorted(self.free_calls.items()))
        return out


def _cell_order(item: tuple[tuple[str, str], int]) -> tuple[bool, str, bool, str]:
    """Sort confusion cells by expected then actual, with the `none` row and column last."""
    (expected, actual), _ = item
    return (expected == NONE, expected, actual == NONE, actual)
