"""The arguments check: did the agent fill each call correctly? (docs/contract.md.)

Pairing. For each tool named in `expected.arguments`, the agent's calls to that tool are paired
with the reference calls of that tool by the assignment that maximises total field agreement
(`matching.optimal_pairs`), never by position or greedily. Agreement is computed without the
judge: a `semantic` field no shortcut decides counts 0.5. The partial agreement of a wrong
nested object or list only breaks ties between assignments that agree on as many fields. The
judge is asked only for the fields of the final pairs.

Two kinds of failure are kept apart:

- *invalid*: the call breaks its tool's JSON Schema (`missing_required`, `type_mismatch`,
  `out_of_range`, `hallucinated_param`, `unparseable_arguments`). Every call of the run with a
  catalogue entry is validated, paired or not; `figures.invalid` counts them.
- *wrong*: valid, but not what the reference asks for (`wrong_value`, `missing_expected_arg`).
  A reference call left unpaired reports `missing_expected_arg` for each field that omission
  does not satisfy.

Figures: `calls` (one entry per agent call and per unpaired reference call: tool, step,
ref_index, exact, valid, field_accuracy, fields, and `extra_fields` on a paired call that sent
fields the reference does not name), `field_accuracy` (mean over paired calls),
`invalid`, `wrong` (paired, valid calls with a wrong or missing field), `unscored_fields`,
`schema_errors` and `ungrounded` (values that came from nowhere, grounding.py: reported
on every run, with a reference or not; they fail the check as `ungrounded_value` when the case
has `grounding`, which also makes the check applicable to a case without reference calls).
A field the judge could not decide is `unscored`: never a match, left out of
accuracy denominators, listed apart.

Score: mean field accuracy over the reference calls, an unpaired one counting 0. Passed: every
paired call is valid and exact (all fields match) and no reference call is unpaired.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any

from toolgrade.checks.arguments.comparators import (
    Comparator,
    Fields,
    InOrder,
    JudgeAnswer,
    OneOf,
    Semantic,
    Unordered,
    jsonable,
    parse_args,
)
from toolgrade.checks.arguments.figures import ArgumentsAccumulator
from toolgrade.checks.arguments.grounding import Ungrounded, ungrounded_values
from toolgrade.checks.arguments.pairing import AskJudge, FieldResult, compare, optimal_pairs
from toolgrade.checks.arguments.schema import Validity, validate_call
from toolgrade.checks.arguments.settled import judge_free_results
from toolgrade.checks.base import GradeContext
from toolgrade.checks.memo import IdentityMemo
from toolgrade.checks.run_calls import calls_of
from toolgrade.models import (
    ArgumentExpectation,
    Case,
    CheckName,
    CheckResult,
    Failure,
    JudgePort,
    JudgeRequest,
    ToolCall,
    Trajectory,
)
from toolgrade.models.figures import (
    ArgumentsFigures,
    CallEntry,
    FieldStatus,
    UnscoredField,
)

Spec = dict[str, Comparator]
FieldResults = dict[str, FieldResult]


@dataclass
class _Grading:
    """What grading one trajectory accumulates before it becomes a `CheckResult`.

    `accuracies` (the field accuracy of each paired call that has one, in call order),
    `invalid`, `wrong` and `schema_errors` are counted as the calls are graded, so the
    figures need no second pass over the calls.
    """

    failures: list[Failure] = field(default_factory=list)
    calls: list[CallEntry] = field(default_factory=list)
    unscored: list[UnscoredField] = field(default_factory=list)
    ref_accuracy: list[float | None] = field(default_factory=list)
    accuracies: list[float] = field(default_factory=list)
    invalid: int = 0
    wrong: int = 0
    schema_errors: dict[str, str] = field(default_factory=dict)
    passed: bool = True


class ArgumentsCheck:
    """Grades the arguments of the calls whose tool matched `expected.arguments`."""

    name: CheckName = "arguments"

    def grade(self, case: Case, run: Trajectory, ctx: GradeContext) -> CheckResult:
        """Validate every call, pair calls with the reference and compare their fields."""
        refs = case.expected.arguments
        ungrounded = ungrounded_values(case, run)
        if refs is None:
            return self._grounding_only(case, ungrounded)
        plan = _plan(refs)
        calls = calls_of(run)
        settled: dict[tuple[int, int], FieldResults] = {}
        pairs = _pair(plan, calls, settled)
        paired_refs = {call_index: k for k, call_index in pairs.items()}
        out = _Grading()
        for n, (step, call) in enumerate(calls):
            validity = validate_call(call, step, case.tools.get(call.tool))
            ref_index = paired_refs.get(n)
            if validity.valid is not True:  # a valid call has no failure and no schema error
                _record_validity(out, validity, call, ref_index)
            if ref_index is None:
                out.calls.append(_extra_call(call, step, validity))
                continue
            results = settled.get((ref_index, n))
            if results is None:
                ask = _asker(case, call.tool, ctx.judge)
                results = field_results(plan.specs[ref_index], call.args, ask)
            _grade_pair(out, ref_index, results, step, call, validity)
        for k, ref in enumerate(refs):
            if k not in pairs:
                _grade_unpaired(out, k, ref, plan.specs[k])
        if case.grounding is not None and ungrounded:
            out.failures.extend(u.failure() for u in ungrounded)
            out.passed = False
        return self._result(out, ungrounded)

    def _grounding_only(self, case: Case, ungrounded: list[Ungrounded]) -> CheckResult:
        """No reference calls: not applicable, unless the case asks for grounding; the
        `ungrounded` figure is reported either way."""
        figures: ArgumentsFigures = {"ungrounded": [u.to_json() for u in ungrounded]}
        if case.grounding is None:
            return CheckResult(check=self.name, applicable=False, figures=figures)
        return CheckResult(
            check=self.name,
            applicable=True,
            score=0.0 if ungrounded else 1.0,
            passed=not ungrounded,
            failures=[u.failure() for u in ungrounded],
            figures=figures,
        )

    def _result(self, out: _Grading, ungrounded: list[Ungrounded]) -> CheckResult:
        scored_refs = [a for a in out.ref_accuracy if a is not None]
        score = fmean(scored_refs) if scored_refs else (1.0 if not out.ref_accuracy else None)
        figures: ArgumentsFigures = {
            # Already in order: agent calls by step (as listed), then unpaired reference calls
            # by index (as appended).
            "calls": out.calls,
            "field_accuracy": fmean(out.accuracies) if out.accuracies else None,
            "invalid": out.invalid,
            "wrong": out.wrong,
            "unscored_fields": out.unscored,
            "schema_errors": [{"tool": t, "error": e} for t, e in out.schema_errors.items()],
            "ungrounded": [u.to_json() for u in ungrounded],
        }
        return CheckResult(
            check=self.name,
            applicable=True,
            score=score,
            passed=out.passed,
            failures=out.failures,
            figures=figures,
        )

    def accumulator(self) -> ArgumentsAccumulator:
        """A fresh suite accumulator for `summary.checks.arguments`."""
        return ArgumentsAccumulator()


def pair_calls(
    refs: list[ArgumentExpectation],
    specs: list[Spec],
    calls: list[ToolCall],
    settled: dict[tuple[int, int], FieldResults] | None = None,
) -> dict[int, int]:
    """Reference index -> index into `calls`, by maximum total field agreement per tool.

    `settled`, when given, receives the field results computed while pairing, keyed by
    (reference index, call index), for references no judge could change (no `semantic`
    field): grading a pair then reuses them instead of comparing the same fields again.
    """
    plan = _Plan.of(refs, specs)
    return _pair(plan, list(enumerate(calls)), settled)


@dataclass(frozen=True)
class _ToolRefs:
    """The reference calls of one tool: their indices, and the scale of a wrong field's
    partial agreement for them (summed over any assignment, it stays under 1e-3)."""

    tool: str
    ref_ids: list[int]
    partial_weight: float


@dataclass(frozen=True)
class _Plan:
    """What pairing and grading derive from a case's reference calls alone: their parsed
    specs, whether a judge could change each one's results, and the references per tool in
    the order the tools first appear."""

    refs: list[ArgumentExpectation]
    specs: list[Spec]
    judged: list[bool]
    tools: list[_ToolRefs]

    @classmethod
    def of(cls, refs: list[ArgumentExpectation], specs: list[Spec]) -> _Plan:
        """The plan of `refs`, parsed as `specs`."""
        tools = []
        for tool in dict.fromkeys(ref.tool for ref in refs):
            ref_ids = [k for k, ref in enumerate(refs) if ref.tool == tool]
            weight = _PARTIAL_WEIGHT / (1 + sum(len(specs[k]) for k in ref_ids))
            tools.append(_ToolRefs(tool, ref_ids, weight))
        return cls(list(refs), specs, [_judged(spec) for spec in specs], tools)

    def holds(self, refs: list[ArgumentExpectation]) -> bool:
        """Whether this plan is still that of `refs` (the same reference call objects)."""
        return len(refs) == len(self.refs) and all(map(operator.is_, refs, self.refs))


#: Plans per reference-call list: a case is graded once per run and its references never change.
_PLANS: IdentityMemo[list[ArgumentExpectation], _Plan] = IdentityMemo()


def _plan(refs: list[ArgumentExpectation]) -> _Plan:
    """The plan of a case's reference calls, made once per list (again if it was changed)."""
    plan = _PLANS(refs, _new_plan)
    return plan if plan.holds(refs) else _new_plan(refs)


def _new_plan(refs: list[ArgumentExpectation]) -> _Plan:
    return _Plan.of(refs, [_parsed(ref) for ref in refs])


def _pair(
    plan: _Plan,
    calls: list[tuple[int, ToolCall]],
    settled: dict[tuple[int, int], FieldResults] | None,
) -> dict[int, int]:
    """`pair_calls` over a plan and a run's (step, call) list."""
    by_tool: dict[str, list[int]] = {t.tool: [] for t in plan.tools}
    for n, (_, call) in enumerate(calls):
        ids = by_tool.get(call.tool)
        if ids is not None:
            ids.append(n)
    pairs: dict[int, int] = {}
    for refs in plan.tools:
        call_ids = by_tool[refs.tool]

        def agreement(
            i: int, j: int, ref_ids: list[int] = refs.ref_ids, call_ids: list[int] = call_ids,
            weight: float = refs.partial_weight,
        ) -> float:
            k, n = ref_ids[i], call_ids[j]
            spec, args = plan.specs[k], calls[n][1].args
            results = judge_free_results(spec, args, lambda: field_results(spec, args, None))
            if settled is not None and not plan.judged[k]:
                settled[k, n] = results
            return _pairing_value(results, weight)

        for i, j in optimal_pairs(len(refs.ref_ids), len(call_ids), agreement):
            pairs[refs.ref_ids[i]] = call_ids[j]
    return pairs


def field_results(spec: Spec, args: Mapping[str, Any], ask: AskJudge | None) -> FieldResults:
    """Each reference field compared with the call's arguments (`ask` None: no judge)."""
    return {k: compare(c, k in args, args.get(k), k, ask) for k, c in spec.items()}


def call_agreement(spec: Spec, args: Mapping[str, Any]) -> float:
    """Summed field similarity of a call's arguments to a reference call, without the judge."""
    return _summed(field_results(spec, args, None))


def _summed(results: FieldResults) -> float:
    return sum(r.similarity for r in results.values())


#: Scale of a wrong field's partial agreement in pairing (see `_pairing_value`).
_PARTIAL_WEIGHT = 1e-3


def _pairing_value(results: FieldResults, partial_weight: float) -> float:
    """A pair's value for the assignment: agreeing fields first, partial credit second.

    A matching field counts 1 and an undecided one its similarity (0.5 for `semantic`), as the
    score would. A wrong field's partial similarity (a nested object or list that is partly
    right) is scaled by `partial_weight`, so it only breaks ties: summed over two wrong objects
    it must not outweigh one field that matches, or an exactly right call gets paired with the
    wrong reference and reported wrong.
    """
    agreed = partial = 0.0
    for r in results.values():
        if r.status in ("wrong", "missing"):
            partial += r.similarity
        else:
            agreed += r.similarity
    return agreed + partial_weight * partial


#: Parsed reference calls, per reference call object: a case is graded once per run, and its
#: comparators never change.
_PARSED: IdentityMemo[ArgumentExpectation, Spec] = IdentityMemo()


def _parsed(ref: ArgumentExpectation) -> Spec:
    """`parse_args(ref.args)`, parsed once per reference call object."""
    return _PARSED(ref, lambda r: parse_args(r.args))


#: `_needs_judge` per parsed reference call: the specs are kept per reference call (`_PARSED`),
#: so this is asked once per case, not once per run.
_JUDGED: IdentityMemo[Spec, bool] = IdentityMemo()


def _judged(spec: Spec) -> bool:
    """`_needs_judge(spec)`, once per spec object."""
    return _JUDGED(spec, _needs_judge)


def _needs_judge(spec: Spec) -> bool:
    """Whether any field of `spec` holds a `semantic` comparator (the judge may be asked)."""
    return any(_has_semantic(c) for c in spec.values())


def _has_semantic(cmp: Comparator) -> bool:
    if isinstance(cmp, Semantic):
        return True
    if isinstance(cmp, OneOf | InOrder | Unordered):
        children = cmp.options if isinstance(cmp, OneOf) else cmp.items
        return any(_has_semantic(c) for c in children)
    if isinstance(cmp, Fields):
        return any(_has_semantic(c) for c in cmp.fields.values())
    return False


def _asker(case: Case, tool: str, judge: JudgePort | None) -> AskJudge:
    """The argument judge for one tool's semantic fields; unscored when no judge is configured."""

    def ask(cmp: Semantic, value: Any, path: str) -> tuple[JudgeAnswer, str]:
        if judge is None:
            return "unscored", "no judge configured"
        inputs = {
            "task": case.input,
            "tool": tool,
            "field": path,
            "expected": cmp.text,
            "actual": jsonable(value),
            "rubric": cmp.rubric,
        }
        verdict = judge.judge(JudgeRequest(dimension="argument_equivalence", inputs=inputs))
        return verdict.verdict, verdict.reason

    return ask


def _grade_pair(
    out: _Grading,
    ref_index: int,
    results: FieldResults,
    step: int,
    call: ToolCall,
    validity: Validity,
) -> None:
    """Record one paired call's compared fields: its figures and failures.

    One pass over the fields finds its `field_accuracy`, whether it is exact and whether a
    field is wrong or missing (a paired call counted in `wrong` when valid).
    """
    statuses: dict[str, FieldStatus] = {}
    matched = scored = 0
    wrong = False
    for name, result in results.items():
        status = statuses[name] = result.status
        if result.findings:
            _record_findings(out, result, call.tool, step, ref_index)
        if status != "unscored":
            scored += 1
            matched += status == "match"
            wrong = wrong or status != "match"  # wrong or missing
    accuracy = (matched / scored if scored else None) if statuses else 1.0
    exact = matched == len(statuses)
    out.ref_accuracy.append(accuracy)
    if accuracy is not None:
        out.accuracies.append(accuracy)
    out.wrong += validity.valid is not False and wrong
    out.passed &= exact and validity.valid is not False
    entry: CallEntry = {
        "tool": call.tool,
        "step": step,
        "ref_index": ref_index,
        "exact": exact,
        "valid": validity.valid,
        "field_accuracy": accuracy,
        "fields": statuses,
    }
    # Sent but not in the reference (hallucinated or merely extra): they lower field precision.
    # Listed only when there are some, so a call without any keeps its former shape.
    if not call.args.keys() <= results.keys():
        entry["extra_fields"] = sorted(k for k in call.args if k not in results)
    out.calls.append(entry)


def _record_findings(
    out: _Grading, result: FieldResult, tool: str, step: int, ref_index: int
) -> None:
    for f in result.findings:
        if f.kind == "unscored":
            out.unscored.append({"tool": tool, "step": step, "field": f.path, "reason": f.reason})
            continue
        name = "wrong_value" if f.kind == "wrong" else "missing_expected_arg"
        evidence = {"tool": tool, "field": f.path, "expected": f.expected, "ref_index": ref_index}
        if f.kind == "wrong":
            evidence["actual"] = f.actual
        evidence["reason"] = f.reason
        out.failures.append(
            Failure(name=name, step=step, message=f"{tool}.{f.path}: {f.reason}", evidence=evidence)
        )


def _grade_unpaired(out: _Grading, ref_index: int, ref: ArgumentExpectation, spec: Spec) -> None:
    """A reference call no agent call was left to pair with: accuracy 0, fields missing."""
    reason = "no call of this tool left to pair with"
    needed: list[str | None] = [
        k for k, c in spec.items() if compare(c, False, None, k, None).status != "match"
    ]
    for name in needed or [None]:
        expected = jsonable(ref.args[name]) if name is not None else {}
        message = f"{ref.tool}.{name}: {reason}" if name else f"{ref.tool}: {reason}"
        evidence = {"tool": ref.tool, "field": name, "expected": expected, "ref_index": ref_index}
        out.failures.append(
            Failure(
                name="missing_expected_arg",
                step=None,
                message=message,
                evidence={**evidence, "reason": reason},
            )
        )
    out.ref_accuracy.append(0.0)
    out.passed = False
    out.calls.append(
        {
            "tool": ref.tool,
            "step": None,
            "ref_index": ref_index,
            "exact": False,
            "valid": None,
            "field_accuracy": 0.0,
            "fields": dict.fromkeys(spec, "missing"),
        }
    )


def _extra_call(call: ToolCall, step: int, validity: Validity) -> CallEntry:
    """An agent call not paired with a reference call: validated only."""
    return {
        "tool": call.tool,
        "step": step,
        "ref_index": None,
        "exact": None,
        "valid": validity.valid,
        "field_accuracy": None,
        "fields": {},
    }


def _record_validity(
    out: _Grading, validity: Validity, call: ToolCall, ref_index: int | None
) -> None:
    """Count one call's validity and keep its schema failures, each tagged with the reference
    call it was paired with (None: extra)."""
    if validity.valid is False:
        out.invalid += 1
    if validity.schema_error is not None:
        out.schema_errors.setdefault(call.tool, validity.schema_error)
    for f in validity.failures:
        evidence = {**f.evidence, "ref_index": ref_index}
        out.failures.append(Failure(name=f.name, step=f.step, message=f.message, evidence=evidence))


def field_accuracy(statuses: list[FieldStatus]) -> float | None:
    """Matches over scored fields (unscored left out); 1.0 with no field, None if all unscored."""
    if not statuses:
        return 1.0
    scored = [s for s in statuses if s != "unscored"]
    return sum(s == "match" for s in scored) / len(scored) if scored else None
