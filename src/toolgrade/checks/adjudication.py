"""Judges and people that decide: the adjudication step of selection and recovery (docs/judges.md).

Selection, with `judge_alternates: true`, after route choice: a run that matches no listed
route is decided by a person's recorded decision on (case, route) when there is one, else by the
`alternate_route` judge. Only a `pass` (an accepted route) changes the outcome; `fail` and
`unscored` keep the check failed. Hard fails are never overridden, by judge or person.

Recovery, with `judge_quality: true`: a `recovery_quality` `fail` adds a `poor_recovery`
failure at the faulted step; a `pass` never overrides a deterministic failure.

Whenever the outcome changes, the check's deterministic score and pass stay in
`figures.unadjudicated`, so the summary can give pass rates with and without adjudication.
"""

from __future__ import annotations

from collections.abc import Iterable

from toolgrade.checks.base import GradeContext
from toolgrade.jsonio.values import JsonObject
from toolgrade.models import Case, Failure, JudgeDimension, JudgeRequest, SelectionExpectation
from toolgrade.models.figures import DecisionFigures, RecoveryVerdict, VerdictName, VerdictRecord
from toolgrade.models.judging import verdict_json

#: Selection failures no verdict or decision overrides.
NEVER_OVERRIDDEN = frozenset({"forbidden_tool", "unauthorized_side_effect", "unknown_tool"})


def deciding_dimensions(cases: Iterable[Case]) -> dict[JudgeDimension, list[str]]:
    """The judge dimensions the suite asks to decide, each with the ids of the cases asking."""
    found: dict[JudgeDimension, list[str]] = {}
    for case in cases:
        selection, recovery = case.expected.selection, case.expected.recovery
        if selection is not None and selection.judge_alternates:
            found.setdefault("alternate_route", []).append(case.id)
        if recovery is not None and recovery.judge_quality:
            found.setdefault("recovery_quality", []).append(case.id)
    return found


def judge_route(
    case: Case, routes: list[list[str]], called: list[str], ctx: GradeContext
) -> VerdictRecord:
    """Ask the alternate_route judge about an unmatched run; its verdict as plain data."""
    if ctx.judge is None:
        return {"verdict": "unscored", "reason": "no judge configured"}
    request = JudgeRequest(dimension="alternate_route", inputs=route_inputs(case, routes, called))
    return verdict_json(ctx.judge.judge(request))


def listed_routes(spec: SelectionExpectation) -> list[list[str]]:
    """The routes a selection lists, as the judge is shown them (none: one empty route)."""
    return [[]] if spec.no_tool else [list(spec.tools), *map(list, spec.alternatives)]


def route_inputs(case: Case, routes: list[list[str]], called: list[str]) -> JsonObject:
    """The alternate_route judge's inputs for a run of `case` that called `called`."""
    return {
        "task": case.input,
        "expected_routes": routes,
        "actual_route": called,
        "tool_descriptions": {
            name: _described(spec.description, spec.side_effect)
            for name, spec in case.tools.items()
        },
    }


def _described(description: str, side_effect: bool) -> str:
    """The description the judge sees: a catalogue's side-effect flag is said in words, since
    whether a step changes anything is what decides most routes."""
    if side_effect and "side effect" not in description.lower():
        return f"{description} (side effect)".strip()
    return description


def decide_route(
    case: Case,
    routes: list[list[str]],
    called: list[str],
    failures: list[Failure],
    ctx: GradeContext,
    taken: list[str] | None = None,
) -> DecisionFigures:
    """The figures of one unmatched run's adjudication.

    `adjudicated` (pass, fail or unscored), `adjudicated_by` (human or judge),
    `adjudication_reason` and `adjudicated_route` (the sorted tool names of `taken`, the calls
    that count against the routes, default `called`: the key of a person's decision); on a
    hard fail only the judge's advisory verdict and `adjudication_blocked_by` (the hard-fail
    names). The judge sees every call, free ones included: they are part of what the agent did.
    """
    taken = called if taken is None else taken
    blocking = sorted({f.name for f in failures if f.name in NEVER_OVERRIDDEN})
    if blocking:
        # Asked as before judges decided, so the verdict stays visible; it decides nothing.
        return {"judge_route": judge_route(case, routes, called, ctx),
                "adjudication_blocked_by": blocking}
    route = sorted(taken)
    human = ctx.decisions.get(case.id, taken)
    if human is not None:
        reason = human.reason or f"{human.decision}ed by {human.by or 'a person'}"
        return {"adjudicated_route": route, "adjudicated": human.verdict,
                "adjudicated_by": "human", "adjudication_reason": reason}
    verdict = judge_route(case, routes, called, ctx)
    return {"adjudicated_route": route, "judge_route": verdict, "adjudicated": verdict["verdict"],
            "adjudicated_by": "judge", "adjudication_reason": verdict.get("reason", "")}


def quality_failures(records: list[RecoveryVerdict]) -> list[Failure]:
    """`poor_recovery` at each faulted step whose recovery_quality verdict is `fail`."""
    return [
        Failure(
            name="poor_recovery",
            step=r["step"],
            message=r["reason"] or "the recovery_quality judge said fail",
            evidence={"tool": r["tool"], "nth": r["nth"], "judge": "recovery_quality"},
        )
        for r in records
        if r["verdict"] == "fail"
    ]


def quality_outcome(records: list[RecoveryVerdict] | None) -> DecisionFigures:
    """Recovery's adjudication figures: `fail` if any verdict failed, else `unscored` if any
    was unscored (the deterministic outcome stands), else `pass`."""
    if records is None:
        return {"adjudicated": "unscored", "adjudicated_by": "judge",
                "adjudication_reason": "no judge configured"}
    verdicts = [r["verdict"] for r in records]
    outcome: VerdictName = (
        "fail" if "fail" in verdicts else "unscored" if "unscored" in verdicts else "pass")
    reasons = [r["reason"] for r in records if r["verdict"] == outcome]
    return {"adjudicated": outcome, "adjudicated_by": "judge",
            "adjudication_reason": "; ".join(x for x in reasons if x)}
