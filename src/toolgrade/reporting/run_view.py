"""One graded run as a transcript with its failures pinned to the steps they point at.

Built from a `results.jsonl` record and the run's normalised steps (`transcripts.jsonl`), in a
format-neutral form: the HTML report and `toolgrade show` lay out the same `RunView`, so the
two always show the same steps and the same failures. Every value is already a display string.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from toolgrade.models import Case, Message, ToolCall, Trajectory
from toolgrade.models.check_names import registered_names as check_names
from toolgrade.models.figures import (
    FailureRecord,
    JudgeLogEntry,
    ResultRecord,
    VerdictRecord,
    block_of,
)
from toolgrade.models.status import aggregate_status, check_status
from toolgrade.reporting.digest import printable
from toolgrade.reporting.run_reference import Reference, case_reference
from toolgrade.reporting.tables import DASH, anchor, fmt

#: Longest argument, result or message text shown, in characters (a tool can return a page).
CONTENT_CHARS = 2000
#: Failures whose expected and actual values are shown side by side (the schema failures say
#: which constraint the value broke).
SCHEMA_FAILURES = frozenset({"missing_required", "type_mismatch", "out_of_range",
                             "hallucinated_param", "unparseable_arguments", "unparseable_call"})
_ABSENT = "(absent)"


@dataclass(frozen=True)
class Pinned:
    """A failure (or a judge verdict) shown on a step, or on the whole run when it has none."""

    check: str
    name: str
    message: str
    expected: str | None = None
    actual: str | None = None


@dataclass(frozen=True)
class StepView:
    """One step of the transcript: a message, or a tool call with its arguments and result."""

    index: int
    kind: str  # "call" or "message"
    label: str  # the tool's name, or the message's role
    args: str | None
    status: str | None  # ok / error, None when the call has no recorded result
    result: str | None
    fault: str | None  # an injected fault on this call, with the stage it reached
    failures: tuple[Pinned, ...]
    judges: tuple[Pinned, ...]


@dataclass(frozen=True)
class Block:
    """A step on its own, or the calls of one parallel group (issued together, unordered)."""

    group: str | None
    steps: tuple[StepView, ...]


@dataclass(frozen=True)
class CheckScore:
    """One check's score and outcome at the top of a run."""

    check: str
    score: str
    outcome: str  # pass / FAIL / unscored / n/a / crashed


@dataclass(frozen=True)
class RunView:
    """A run's scores, failures, judge verdicts and transcript."""

    case_id: str
    agent: str | None
    trial: int
    anchor: str
    passed: bool
    score: str
    mode: str
    checks: tuple[CheckScore, ...]
    run_failures: tuple[Pinned, ...]
    judges: tuple[Pinned, ...]
    blocks: tuple[Block, ...]
    failed_checks: tuple[str, ...]
    failure_names: tuple[str, ...]
    #: Checks decided by a judge or a person on a route no case lists (issue 21): shown apart,
    #: so an adjudicated pass is never read as a listed one.
    adjudications: tuple[Pinned, ...] = ()
    #: The run's state: pass, fail, unscored (only undecided items kept it from passing), n/a.
    status: str = ""
    #: The case's task input and expected route(s), when the suite was at hand (issue 31).
    reference: Reference | None = None
    #: The tools the agent called, in order, to read beside the expected route.
    route: str = ""

    @property
    def verdict(self) -> str:
        """The run's verdict as shown: pass, FAIL or unscored."""
        if self.passed:
            return "pass"
        return "unscored" if self.status == "unscored" else "FAIL"

    @property
    def label(self) -> str:
        """`agent:trial`, as the failure tables name a run."""
        return run_label(self.agent, self.trial)

    @property
    def n_steps(self) -> int:
        """Steps of the transcript."""
        return sum(len(b.steps) for b in self.blocks)

    @property
    def n_failures(self) -> int:
        """Every failure of the run, pinned to a step or not."""
        on_steps = sum(len(s.failures) for b in self.blocks for s in b.steps)
        return on_steps + len(self.run_failures)


def run_label(agent: str | None, trial: int) -> str:
    """`agent:trial` (a dash for a run without an agent)."""
    return f"{agent or DASH}:{trial}"


def run_anchor(case_id: str, agent: str | None, trial: int) -> str:
    """The HTML id of a run's view (stable, whatever characters the case id holds)."""
    return anchor("run", json.dumps([case_id, agent, trial]))


def step_anchor(run: str, step: int | None) -> str:
    """The HTML id of a step of a run; step None: the run's failures not tied to a step."""
    return f"{run}-run" if step is None else f"{run}-s{step}"


def shown(value: Any, limit: int = CONTENT_CHARS) -> str:
    """A value as one line of display text: strings as they are, the rest as JSON, clipped.

    Line breaks and other control characters become spaces, as everywhere in the reports.
    """
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False,
                                                           default=str)
    text = printable(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _side_by_side(failure: FailureRecord) -> tuple[str | None, str | None]:
    """Expected and actual values of a failure, when it carries them."""
    name = failure.get("name")
    if name in SCHEMA_FAILURES:
        if name == "unparseable_arguments":
            return "a JSON object", shown(failure.get("value"), 400)
        if name == "unparseable_call":
            return "tool calls in a known form", shown(failure.get("value"), 400)
        if name == "hallucinated_param":
            return "(not a parameter of the tool)", shown(failure.get("value"), 400)
        if name == "missing_required":
            return "(required)", _ABSENT
        constraint = failure.get("constraint")
        limit = shown(failure.get("limit"), 400)
        expected = f"{constraint}: {limit}" if constraint else limit
        return expected, shown(failure.get("value"), 400)
    if "expected" in failure or "actual" in failure:
        actual = shown(failure["actual"], 400) if "actual" in failure else _ABSENT
        return shown(failure.get("expected"), 400), actual
    return None, None


def _pinned(check: str, failure: FailureRecord) -> Pinned:
    expected, actual = _side_by_side(failure)
    return Pinned(check=check, name=str(failure.get("name", "unknown")),
                  message=shown(failure.get("message") or "", 600),
                  expected=expected, actual=actual)


def _verdict(dimension: str, entry: VerdictRecord | JudgeLogEntry) -> Pinned:
    if not isinstance(entry, dict):  # a line of another shape
        return Pinned(check=dimension, name="unscored", message="")
    return Pinned(check=dimension, name=str(entry.get("verdict", "unscored")),
                  message=shown(entry.get("reason") or "", 600))


#: How a check's status reads in a run view: FAIL stands out; unscored is neither.
_OUTCOMES = {"pass": "pass", "fail": "FAIL", "unscored": "unscored", "n/a": "n/a"}


def _check_scores(record: ResultRecord) -> tuple[CheckScore, ...]:
    out = []
    for name in check_names():
        block = block_of(record, name)
        state = check_status(name, block)
        if state == "error":
            outcome = "crashed" if "error" in block else "n/a"
        else:
            outcome = _OUTCOMES[state]
        out.append(CheckScore(check=name, score=fmt(block.get("score")), outcome=outcome))
    return tuple(out)


def _failures_by_step(record: ResultRecord, n_steps: int) -> dict[int | None, list[Pinned]]:
    """Each failure under the step it points at; None for the run's own (or a step not there)."""
    by_step: dict[int | None, list[Pinned]] = {}
    for check in check_names():
        block = block_of(record, check)
        if block.get("passed") is None and "error" in block:
            by_step.setdefault(None, []).append(
                Pinned(check=check, name="crashed", message=shown(block["error"], 600)))
        for failure in block.get("failures") or []:
            step = failure.get("step")
            where = step if isinstance(step, int) and 0 <= step < n_steps else None
            by_step.setdefault(where, []).append(_pinned(check, failure))
    return by_step


def _step_judges(record: ResultRecord) -> dict[int, list[Pinned]]:
    """Verdicts that name a step: recovery quality per fault, unscored argument fields."""
    out: dict[int, list[Pinned]] = {}
    for verdict in block_of(record, "recovery").get("judge_recovery") or []:
        if isinstance(verdict, dict) and isinstance(verdict.get("step"), int):
            out.setdefault(verdict["step"], []).append(_verdict("recovery_quality", verdict))
    for field in block_of(record, "arguments").get("unscored_fields") or []:
        if isinstance(field, dict) and isinstance(field.get("step"), int):
            reason = f"{field.get('tool')}.{field.get('field')}: {field.get('reason', '')}"
            out.setdefault(field["step"], []).append(
                Pinned(check="argument_equivalence", name="unscored", message=shown(reason, 600)))
    return out


def _faults(record: ResultRecord) -> dict[int, str]:
    """`injected fault: error (lookup_order call 1) -> recovered` on each faulted call."""
    out: dict[int, str] = {}
    for fault in block_of(record, "recovery").get("faults") or []:
        step = fault.get("step") if isinstance(fault, dict) else None
        if not isinstance(step, int):
            continue
        nth = fault.get("nth")
        which = "every call" if nth == "all" else f"call {nth}"
        text = f"injected fault: {fault.get('kind')} ({fault.get('tool')} {which}) -> " \
               f"{fault.get('stage')}"
        if fault.get("recovered_by"):
            text += f" by {fault['recovered_by']} at step {fault.get('recovery_step')}"
        out[step] = printable(text)
    return out


def _step(index: int, step: ToolCall | Message, failures: list[Pinned], judges: list[Pinned],
          fault: str | None) -> StepView:
    if isinstance(step, Message):
        return StepView(index=index, kind="message", label=printable(step.role),
                        args=None, status=None,
                        result=shown(step.content) if step.content is not None else "",
                        fault=None, failures=tuple(failures), judges=tuple(judges))
    args = step.raw_arguments if step.unparseable else step.args
    return StepView(index=index, kind="call", label=printable(step.tool), args=shown(args),
                    status=step.result.status if step.result else None,
                    result=shown(step.result.content) if step.result else None,
                    fault=fault, failures=tuple(failures), judges=tuple(judges))


def _blocks(run: Trajectory, steps: list[StepView]) -> tuple[Block, ...]:
    """Consecutive calls sharing a group become one block (a group of one is a plain step)."""
    blocks: list[tuple[Any, list[StepView]]] = []
    for raw, view in zip(run.steps, steps, strict=True):
        group = raw.group if isinstance(raw, ToolCall) else None
        if group is not None and blocks and blocks[-1][0] == group:
            blocks[-1][1].append(view)
        else:
            blocks.append((group, [view]))
    return tuple(Block(group=printable(str(g)) if g is not None and len(v) > 1 else None,
                       steps=tuple(v)) for g, v in blocks)


def _judge_log(record: ResultRecord) -> tuple[Pinned, ...]:
    """Every verdict the checks asked for on this run, by dimension."""
    out = []
    for dimension, entries in sorted((record.get("judges") or {}).items()):
        for entry in entries if isinstance(entries, list) else []:
            out.append(_verdict(dimension, entry))
    return tuple(out)


def _adjudications(record: ResultRecord) -> tuple[Pinned, ...]:
    """Each check whose outcome a person decided, or that passed on an adjudicated route.

    A judge's verdict is already in the judge log; what it did not say is that the check's
    outcome follows it, and a person's recorded decision has no verdict there at all.
    """
    out = []
    for check in check_names():
        block = block_of(record, check)
        verdict, by = block.get("adjudicated"), block.get("adjudicated_by")
        if verdict is None or (by != "human" and verdict not in ("pass", "unscored")):
            continue
        route = block.get("adjudicated_route")
        on = f"route {', '.join(map(str, route))}: " if isinstance(route, list) else ""
        who = "a person" if by == "human" else f"the {by or 'judge'}"
        # Unscored: nobody decided; the check reads unscored, not failed, until someone does.
        message = f"{on}not decided" if verdict == "unscored" else f"{on}decided {verdict} by {who}"
        reason = block.get("adjudication_reason")
        out.append(Pinned(check=check, name=f"adjudicated {verdict}",
                          message=shown(f"{message}: {reason}" if reason else message, 600)))
    return tuple(out)


def _called(run: Trajectory) -> str:
    tools = [printable(s.tool) for s in run.steps if isinstance(s, ToolCall)]
    return ", ".join(tools) if tools else "(no tool)"


def build_run_view(record: ResultRecord, run: Trajectory, case: Case | None = None
                   ) -> RunView:
    """The view of one graded run: its record (a results.jsonl line) and its steps; with
    its `case`, the task input and the expected route(s) too."""
    by_step = _failures_by_step(record, len(run.steps))
    judges, faults = _step_judges(record), _faults(record)
    steps = [_step(i, s, by_step.get(i, []), judges.get(i, []), faults.get(i))
             for i, s in enumerate(run.steps)]
    checks = _check_scores(record)
    pinned = [p for group in by_step.values() for p in group]
    aggregate = record.get("aggregate") or {}
    return RunView(
        case_id=str(record.get("case_id")), agent=record.get("agent"),
        trial=int(record.get("trial") or 0),
        anchor=run_anchor(str(record.get("case_id")), record.get("agent"),
                          int(record.get("trial") or 0)),
        passed=bool(aggregate.get("passed")), score=fmt(aggregate.get("score")),
        mode=str(aggregate.get("mode", DASH)), checks=checks,
        run_failures=tuple(by_step.get(None, [])), judges=_judge_log(record),
        blocks=_blocks(run, steps),
        failed_checks=tuple(c.check for c in checks if c.outcome in ("FAIL", "crashed")),
        failure_names=tuple(sorted({p.name for p in pinned})),
        adjudications=_adjudications(record),
        status=str(aggregate.get("status") or aggregate_status(
            record.get("checks") or {}, bool(aggregate.get("passed")))),
        reference=case_reference(case) if case is not None else None,
        route=_called(run),
    )
