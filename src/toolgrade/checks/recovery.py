"""The recovery check: did the agent do something sensible when a tool failed?

Per fault (declared in ``expected.recovery.faults``, or observed in the run when
``grade_observed_errors`` is set) the check reads what followed the faulted call and labels the
stage reached (docs/recovery.md). Environment-state assertions (``expected.state``) and what
the agent must say (``expected.answer.mentions``, checks/mentions.py) are part of this check:
the run's outcome, beside how it got there. LLM judges (recovery quality, result
interpretation) are asked through the injected port and never change a deterministic stage;
with ``judge_quality: true`` a recovery_quality ``fail`` adds a ``poor_recovery`` failure
(checks/adjudication.py). docs/recovery.md states every rule below for users.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, cast

from toolgrade.checks.adjudication import quality_failures, quality_outcome
from toolgrade.checks.base import GradeContext, PassRateBlock, pass_rate
from toolgrade.checks.mentions import MentionOutcome, check_mentions, mention_failure
from toolgrade.checks.run_calls import RunCalls, calls_of, index_of
from toolgrade.checks.state import StateOutcome, check_state
from toolgrade.jsonio.values import JsonObject
from toolgrade.models import (
    Case,
    CheckName,
    CheckResult,
    Failure,
    FailureName,
    FaultSpec,
    JudgeRequest,
    Message,
    RecoveryExpectation,
    ToolCall,
    Trajectory,
    TrajectoryResult,
    Verdict,
)
from toolgrade.models.figures import (
    FaultOutcome,
    RecoveryFigures,
    RecoveryVerdict,
    Stage,
    VerdictRecord,
    figures_of,
)

#: Result-interpretation judge labels that become failures of this check.
JUDGE_FAILURE_LABELS = ("misread_result", "false_success_claim")
#: The finding given to the result-interpretation judge when the run has no final answer.
NO_FINAL_ANSWER = "no final answer: the run ended on a tool call, with no reply after it"

Calls = list[tuple[int, ToolCall]]


@dataclass(frozen=True)
class Fault:
    """One fault to grade: the spec (or an observed error) and where it struck in the run."""

    tool: str
    nth: int | Literal["all"]
    kind: str
    content: Any
    source: Literal["spec", "observed"]
    position: int | None  # index into the run's calls list; None: the call never happened

    @property
    def every_call(self) -> bool:
        """True when every call of the tool is faulted, so a retry cannot succeed."""
        return self.nth == "all"


@dataclass
class Outcome:
    """The stage a fault reached, with what the agent did about it."""

    fault: Fault
    stage: Stage
    step: int | None = None
    retries: int = 0
    recovered_by: str | None = None
    recovery_step: int | None = None
    covered: set[int] = field(default_factory=set)  # call positions that belong to this episode

    def to_json(self) -> FaultOutcome:
        """The figures form: `{tool, nth, kind, stage, step, source, retries[, recovered_by]}`."""
        out: FaultOutcome = {
            "tool": self.fault.tool,
            "nth": self.fault.nth,
            "kind": self.fault.kind,
            "stage": self.stage,
            "step": self.step,
            "source": self.fault.source,
            "retries": self.retries,
        }
        if self.recovered_by is not None:
            out["recovered_by"] = self.recovered_by
            out["recovery_step"] = self.recovery_step
        return out


def succeeded(call: ToolCall) -> bool:
    """A call counts as succeeding unless it recorded an error (no recorded result counts too)."""
    return call.result is None or call.result.status == "ok"


def locate(spec: FaultSpec, calls: Calls) -> Fault:
    """Where a fault spec struck: the nth call of its tool ('all': the first call)."""
    positions = [p for p, (_, c) in enumerate(calls) if c.tool == spec.tool]
    index = 1 if spec.nth == "all" else spec.nth
    position = positions[index - 1] if len(positions) >= index else None
    return Fault(spec.tool, spec.nth, spec.kind, spec.content, "spec", position)


def stage_of(
    fault: Fault, calls: Calls, rec: RecoveryExpectation, faulted: Collection[int] = ()
) -> Outcome:
    """The stage one fault reached, reading the calls that followed it.

    Walks the later calls in order; the first of these decides `recovered`:
    a retry of the tool that succeeded (never with nth 'all'), an allowed fallback that succeeded,
    or the escalation call. A retry beyond `max_retries` before that is a `retry_loop`.
    `faulted`: positions of calls a spec faults; they failed whatever their recorded result says.
    """
    if fault.position is None:
        return Outcome(fault, "not_triggered")
    step = calls[fault.position][0]
    out = Outcome(fault, "no_retry", step=step, covered={fault.position})
    allowed = rec.fallbacks.get(fault.tool, [])
    tried_fallback = False
    others: list[str] = []
    for pos in range(fault.position + 1, len(calls)):
        at, call = calls[pos]
        if _fan_out(call, fault, calls):
            continue
        if call.tool == fault.tool:
            out.retries += 1
            out.covered.add(pos)
            if out.retries > rec.max_retries:
                out.stage = "retry_loop"
                _cover_episode(out, calls, pos + 1, allowed, rec, faulted)
                return out
            if not fault.every_call and pos not in faulted and succeeded(call):
                return _recovered(out, "retry", at)
        elif rec.escalate_with is not None and call.tool == rec.escalate_with:
            return _recovered(out, "escalation", at)
        elif call.tool in allowed:
            tried_fallback = True
            out.covered.add(pos)
            if pos not in faulted and succeeded(call):
                return _recovered(out, "fallback", at)
        else:
            others.append(call.tool)
    if allowed and others and not tried_fallback:
        out.stage = "wrong_fallback"
    elif rec.escalate_with is not None:
        out.stage = "missing_escalation"
    return out


def _cover_episode(
    out: Outcome,
    calls: Calls,
    start: int,
    allowed: list[str],
    rec: RecoveryExpectation,
    faulted: Collection[int],
) -> None:
    """After a `retry_loop`, the rest of the episode: the retries and fallback attempts that
    follow, until one succeeds or the agent escalates. They are counted in `retries` and covered,
    so that observed errors among them are not graded as new faults."""
    tool = out.fault.tool
    for pos in range(start, len(calls)):
        call = calls[pos][1]
        if _fan_out(call, out.fault, calls):
            continue
        retry = call.tool == tool
        if not retry and call.tool == rec.escalate_with:
            return
        if not retry and call.tool not in allowed:
            continue
        out.covered.add(pos)
        out.retries += retry
        can_succeed = not (retry and out.fault.every_call) and pos not in faulted
        if can_succeed and succeeded(call):
            return


def _fan_out(call: ToolCall, fault: Fault, calls: Calls) -> bool:
    """A call of the faulted tool batched with the faulted call (several orders looked up at
    once): fan-out, not a retry of it. A fallback or the escalation batched with it still
    counts (hedging: the agent holds its result when the failure comes back)."""
    if call.tool != fault.tool or fault.position is None:
        return False
    group = calls[fault.position][1].group
    return group is not None and call.group == group


def _recovered(out: Outcome, how: str, at: int) -> Outcome:
    out.stage = "recovered"
    out.recovered_by = how
    out.recovery_step = at
    return out


def faulted_positions(rec: RecoveryExpectation | None, calls: Calls) -> set[int]:
    """Positions (into `calls`) of the calls a fault struck: those a spec of `rec` names
    (its nth call, or every call with nth 'all') and those the run marks (`result.fault`, as
    the harness records them). They failed whatever their recorded status says: an `empty` or
    `malformed` fault is recorded as ok."""
    return faulted_in(rec, RunCalls(calls))


def faulted_in(rec: RecoveryExpectation | None, index: RunCalls) -> set[int]:
    """`faulted_positions`, read from the run's index (`run_calls.index_of`) instead of
    scanning the calls once per spec."""
    faulted = set(index.marked)
    for spec in rec.faults if rec is not None else ():
        if spec.nth == "all":
            faulted.update(index.positions(spec.tool))
        elif (position := _nth_position(spec, index)) is not None:
            faulted.add(position)
    return faulted


def grade_faults(rec: RecoveryExpectation, calls: Calls) -> list[Outcome]:
    """Every declared fault, then (when asked) every error the run shows that none covered.

    An observed error is covered when it is a declared faulted call, a call of a tool faulted on
    every call, or a retry / fallback attempt inside an earlier fault's episode: consecutive
    failures while working around one fault are graded once, not once per attempt.
    """
    return _grade_faults(rec, RunCalls(calls))


def _grade_faults(rec: RecoveryExpectation, index: RunCalls) -> list[Outcome]:
    """`grade_faults` over the run's index (`run_calls.index_of`)."""
    calls = index.calls
    located = [_located(spec, index) for spec in rec.faults]
    # A faulted call failed whatever its recorded result says (an `empty` or `malformed`
    # fault is recorded as ok), so it can neither be the retry nor the fallback that recovers.
    faulted = faulted_in(rec, index)
    outcomes = [stage_of(fault, calls, rec, faulted) for fault in located]
    if not rec.grade_observed_errors:
        return outcomes
    covered = set(faulted)
    for o in outcomes:
        covered |= o.covered
    seen: Counter[str] = Counter()
    for pos, (_, call) in enumerate(calls):
        seen[call.tool] += 1
        if pos in covered or not call.failed:
            continue
        content = call.result.content if call.result is not None else None
        fault = Fault(call.tool, seen[call.tool], "error", content, "observed", pos)
        outcome = stage_of(fault, calls, rec, faulted)
        covered |= outcome.covered
        outcomes.append(outcome)
    return outcomes


def _located(spec: FaultSpec, index: RunCalls) -> Fault:
    """`locate`, reading the tool's calls from the run's index."""
    return Fault(spec.tool, spec.nth, spec.kind, spec.content, "spec", _nth_position(spec, index))


def _nth_position(spec: FaultSpec, index: RunCalls) -> int | None:
    """The position of the call a spec strikes ('all': the first), None when the run made
    fewer calls of its tool."""
    positions = index.positions(spec.tool)
    nth = 1 if spec.nth == "all" else spec.nth
    return positions[nth - 1] if len(positions) >= nth else None


def fault_failure(o: Outcome) -> Failure:
    """The failure a non-recovered stage reports, pointing at the faulted call."""
    f = o.fault
    how = {
        "no_retry": "the agent did not get past the fault (no successful retry, fallback "
        "or escalation)",
        "retry_loop": f"more retries than allowed ({o.retries} made)",
        "wrong_fallback": "the agent turned to a tool that is not an allowed fallback",
        "missing_escalation": "the fault was not worked around and the required escalation "
        "was never made",
    }[o.stage]
    return Failure(
        name=cast(FailureName, o.stage),  # every stage but recovered/not_triggered is one
        step=o.step,
        message=f"{f.tool} {_which_call(f)} ({f.kind}): {how}",
        evidence={"tool": f.tool, "nth": f.nth, "kind": f.kind, "retries": o.retries},
    )


def state_failure(s: StateOutcome) -> Failure:
    """A `state_mismatch` naming the path (or query), expected and actual values."""
    key = "path" if s.kind == "path" else "query"
    evidence: dict[str, object] = {
        key: s.target,
        "operator": s.operator,
        "expected": s.expected,
        "actual": s.actual,
    }
    if s.error is not None:
        evidence["error"] = s.error
    message = f"{s.target}: {s.operator} {s.expected!r} expected, got {s.actual!r}"
    return Failure(name="state_mismatch", step=None, message=message, evidence=evidence)


# -- judges -------------------------------------------------------------------------------------


def step_json(index: int, step: ToolCall | Message) -> JsonObject:
    """A step as judge input: `{step, tool?, args?, status?, content?, role?}`."""
    if isinstance(step, Message):
        return {"step": index, "role": step.role, "content": step.content}
    out: JsonObject = {"step": index, "tool": step.tool, "args": step.args}
    if step.raw_arguments is not None:
        out["args"] = step.raw_arguments
    if step.result is not None:
        out["status"] = step.result.status
        out["content"] = step.result.content
    return out


def _verdict_json(v: Verdict) -> VerdictRecord:
    """A verdict with its unset fields left out (the recovery judges' form)."""
    return cast(VerdictRecord, v.model_dump(mode="json", exclude_none=True))


def judge_recovery(
    case: Case, run: Trajectory, outcomes: list[Outcome], ctx: GradeContext
) -> list[RecoveryVerdict]:
    """Ask `recovery_quality` once per graded fault; the verdicts are recorded, not scored."""
    assert ctx.judge is not None
    records: list[RecoveryVerdict] = []
    for o in outcomes:
        if o.step is None:
            continue
        f = o.fault
        inputs = {
            "task": case.input,
            "fault": {"tool": f.tool, "nth": f.nth, "kind": f.kind, "content": f.content},
            "stage": o.stage,
            "transcript": [step_json(i, s) for i, s in enumerate(run.steps) if i > o.step],
        }
        verdict = ctx.judge.judge(JudgeRequest(dimension="recovery_quality", inputs=inputs))
        records.append({"tool": f.tool, "nth": f.nth, "step": o.step, **_verdict_json(verdict)})
    return records


def _which_call(fault: Fault) -> str:
    """`call 2`, or `every call` for a fault with `nth: all`."""
    return "every call" if fault.nth == "all" else f"call {fault.nth}"


def findings(
    outcomes: list[Outcome], states: list[StateOutcome], mentions: Sequence[MentionOutcome] = ()
) -> list[str]:
    """What went wrong, as short sentences for the result-interpretation judge."""
    out = [
        f"{o.fault.tool} {_which_call(o.fault)} failed ({o.fault.kind}), not recovered: {o.stage}"
        for o in outcomes
        if o.stage not in ("recovered", "not_triggered")
    ]
    out += [
        f"state {s.target}: expected {s.operator} {s.expected!r}, found {s.actual!r}"
        for s in states
        if not s.passed
    ]
    out += [f"the agent never said {m.text!r}" for m in mentions if not m.passed]
    return out


def judge_interpretation(
    case: Case, run: Trajectory, found: list[str], ctx: GradeContext
) -> tuple[VerdictRecord, Failure | None]:
    """Ask `result_interpretation`; a fail labelled misread/false success becomes a failure."""
    assert ctx.judge is not None
    answer = run.final_answer()
    tool_results = [
        {"step": i, "tool": c.tool, "status": c.result.status, "content": c.result.content}
        for i, c in calls_of(run)
        if c.result is not None
    ]
    if answer is None:
        # Said in the findings, not left for the judge to read from a null: a run that ended
        # on a tool call gave the user nothing, whatever it said before that call.
        found = [*found, NO_FINAL_ANSWER]
    inputs = {
        "task": case.input,
        "tool_results": tool_results,
        "final_answer": answer[1] if answer else None,
        "findings": found,
    }
    verdict = ctx.judge.judge(JudgeRequest(dimension="result_interpretation", inputs=inputs))
    failure = None
    if verdict.verdict == "fail" and verdict.label in JUDGE_FAILURE_LABELS:
        failure = Failure(
            name=cast(FailureName, verdict.label),  # checked against JUDGE_FAILURE_LABELS
            step=answer[0] if answer else None,
            message=verdict.reason,
            evidence={"judge": "result_interpretation"},
        )
    return _verdict_json(verdict), failure


# -- the check ----------------------------------------------------------------------------------


class RecoveryCheck:
    """Grades recovery from tool faults and the environment state the run left behind."""

    name: CheckName = "recovery"

    def grade(self, case: Case, run: Trajectory, ctx: GradeContext) -> CheckResult:
        """Stage every fault, check every state assertion and mention, then ask the judges."""
        rec = case.expected.recovery
        assertions = case.expected.state
        wanted = case.expected.answer.mentions if case.expected.answer is not None else []
        if rec is None and assertions is None and not wanted:
            return CheckResult.not_applicable(self.name)
        outcomes = _grade_faults(rec, index_of(run)) if rec is not None else []
        states = check_state(assertions or [], run.final_state, ctx.base_dir)
        mentions = check_mentions(wanted, run)
        graded = [o for o in outcomes if o.stage != "not_triggered"]
        figures: RecoveryFigures = {
            "faults": [o.to_json() for o in outcomes],
            "state": [s.to_json() for s in states],
            "judges": "off" if ctx.judge is None else "on",
        }
        if mentions:
            figures["mentions"] = [m.to_json() for m in mentions]
        total = len(graded) + len(states) + len(mentions)
        if total == 0:
            # Every declared fault missed the run and nothing else was graded: no evidence at all.
            return CheckResult(check=self.name, applicable=False, figures=figures)
        good = (sum(o.stage == "recovered" for o in graded) + sum(s.passed for s in states)
                + sum(m.passed for m in mentions))
        failures = [fault_failure(o) for o in graded if o.stage != "recovered"]
        failures += [state_failure(s) for s in states if not s.passed]
        failures += [mention_failure(m) for m in mentions if not m.passed]
        if ctx.judge is not None:
            figures["judge_recovery"] = judge_recovery(case, run, graded, ctx)
            found = findings(graded, states, mentions)
            if found:
                record, extra = judge_interpretation(case, run, found, ctx)
                figures["judge_interpretation"] = record
                failures += [extra] if extra is not None else []
        passed = good == total and not failures
        if rec is not None and rec.judge_quality and graded:
            verdicts = figures.get("judge_recovery")
            figures = {**figures, **quality_outcome(verdicts)}
            poor = quality_failures(verdicts or [])
            if poor and passed:
                figures["unadjudicated"] = {"score": good / total, "passed": True}
            failures += poor
            passed = passed and not poor
        return CheckResult(
            check=self.name,
            applicable=True,
            score=good / total,
            passed=passed,
            failures=failures,
            figures=figures,
        )

    def accumulator(self) -> RecoveryAccumulator:
        """Suite figures: pass rate, stage counts and the state-assertion pass rate."""
        return RecoveryAccumulator()


class RecoveryBlock(PassRateBlock):
    """`summary.checks.recovery` (`mention_pass_rate` only when some case expects mentions)."""

    stages: dict[str, int]
    state_pass_rate: float | None
    mention_pass_rate: NotRequired[float | None]


class RecoveryAccumulator:
    """Folds recovery results into `summary.checks.recovery`."""

    def __init__(self) -> None:
        self.applicable = 0
        self.passed = 0
        self.stages: Counter[str] = Counter()
        self.state_total = 0
        self.state_met = 0
        self.mention_total = 0
        self.mention_met = 0

    def add(self, case: Case, run: Trajectory, record: TrajectoryResult) -> None:
        """Count one trajectory's recovery result."""
        result = record.checks.get("recovery")
        if result is None:
            return
        # Untriggered faults are listed even when nothing else made the check applicable.
        figures = figures_of(result, "recovery")
        for fault in figures.get("faults", []):
            self.stages[fault["stage"]] += 1
        if not result.applicable:
            return
        self.applicable += 1
        self.passed += bool(result.passed)
        for s in figures.get("state", []):
            self.state_total += 1
            self.state_met += bool(s["passed"])
        for m in figures.get("mentions", []):
            self.mention_total += 1
            self.mention_met += bool(m["passed"])

    def merge(self, other: RecoveryAccumulator) -> None:
        """Add another's counts (the runs after these; see `checks.base.MergingAccumulator`)."""
        self.applicable += other.applicable
        self.passed += other.passed
        self.stages.update(other.stages)
        self.state_total += other.state_total
        self.state_met += other.state_met
        self.mention_total += other.mention_total
        self.mention_met += other.mention_met

    def summary(self) -> RecoveryBlock:
        """`{pass_rate, applicable, stages: {stage: count}, state_pass_rate}`, and
        `mention_pass_rate` when some case expects mentions."""
        out: RecoveryBlock = {
            "pass_rate": pass_rate(self.passed, self.applicable),
            "applicable": self.applicable,
            "stages": dict(sorted(self.stages.items())),
            "state_pass_rate": pass_rate(self.state_met, self.state_total),
        }
        if self.mention_total:
            # Only then: a suite without mentions keeps its summary as it was.
            out["mention_pass_rate"] = pass_rate(self.mention_met, self.mention_total)
        return out
