"""Fault injection for Python agents: wrap the tools, fire the case's faults, record the run.

    injector = FaultInjector(case, {"lookup_order": lookup_order, "refund": refund})
    answer = my_agent(case.input, tools=injector.tools)      # the agent calls the wrapped tools
    line = injector.to_jsonl_line(final_answer=answer)        # one line of a runs JSONL file

Faults fire by call count per tool (1-based, or every call with ``nth: all``), so the same agent
code sees the same faults on every trial. Every call, faulted or not, is recorded as a normalised
`ToolCall` (docs/case-format.md, Runs) with the result the agent saw.
"""

from __future__ import annotations

import functools
import inspect
import json
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, NotRequired, TypedDict

from toolgrade.errors import ToolgradeError
from toolgrade.jsonio import out as json_out
from toolgrade.jsonio.lines import MAX_DEPTH, too_deep
from toolgrade.jsonio.values import JsonObject, JsonValue
from toolgrade.loaders.fast_runs import STEP_ROLES
from toolgrade.models import (
    Case,
    FaultSpec,
    Message,
    RecoveryExpectation,
    Step,
    ToolCall,
    ToolResult,
    Trajectory,
)

ErrorMode = Literal["raise", "return"]


class RunLine(TypedDict):
    """A recorded run as one line of a runs JSONL file (normalised `steps`)."""

    case_id: str
    trial: int
    agent: NotRequired[str]
    #: Each step as its model dumps it (unset fields left out).
    steps: list[JsonObject]
    final_state: NotRequired[JsonObject]


class ToolFault(ToolgradeError):
    """An injected tool error (fault kind ``error``), raised to the agent in ``raise`` mode."""

    def __init__(self, tool: str, content: str) -> None:
        super().__init__(content)
        self.tool = tool
        self.content = content


def _faults_of(source: Case | RecoveryExpectation | Sequence[FaultSpec] | None) -> list[FaultSpec]:
    if source is None:
        return []
    if isinstance(source, Case):
        rec = source.expected.recovery
        return list(rec.faults) if rec is not None else []
    if isinstance(source, RecoveryExpectation):
        return list(source.faults)
    return list(source)


def malformed(value: Any) -> str:
    """A truncated, never-parseable rendering of a real result (corrupted tool data).

    Half of the JSON text is kept and an ellipsis appended: a JSON prefix followed by "…" is
    never valid JSON, whatever the value was.
    """
    text = _json_text(value)
    return text[: len(text) // 2] + "\u2026"


def _json_text(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return json.dumps(str(value), ensure_ascii=False)


def _recordable(value: Any) -> Any:
    """The value as recorded in the run: kept when a runs file can carry it (JSON, UTF-8 text,
    nesting `toolgrade run` reads), else its string form, so no recorded run is refused later."""
    try:
        text = json.dumps(value, ensure_ascii=False)
        text.encode("utf-8")  # a lone surrogate cannot be written to a UTF-8 file
    except (TypeError, ValueError, RecursionError):
        return _text_of(value)
    if too_deep(text, value, MAX_DEPTH - 8):
        return _text_of(value)  # the run line nests it a few levels deeper still
    return value


def _text_of(value: Any) -> str:
    """`str(value)` as UTF-8-safe text (lone surrogates escaped)."""
    return str(value).encode("utf-8", "backslashreplace").decode("utf-8")


def _faulted(status: Literal["ok", "error"], content: Any, spec: FaultSpec) -> ToolResult:
    """The recorded result of an injected fault, marked with its kind, so the checks know an
    `empty` or `malformed` result (status ok) was a fault the agent had to work around."""
    return ToolResult(status=status, content=content, fault=spec.kind)


def _bind_args(
    fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> dict[str, Any]:
    """The call's arguments by parameter name (positional ones included) for the record.

    `**kwargs` are flattened, as a keyword-only call records them, and extra positional values
    under `*args` are listed under `_args`, so one call is recorded one way however it is made.
    """
    if not args:
        return dict(kwargs)
    try:
        signature = inspect.signature(fn)
        bound = signature.bind_partial(*args, **kwargs)
    except (TypeError, ValueError):
        return {"_args": list(args), **kwargs}
    out: dict[str, Any] = {}
    for name, value in bound.arguments.items():
        kind = signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_KEYWORD:
            out.update(value)
        elif kind is inspect.Parameter.VAR_POSITIONAL:
            out["_args"] = list(value)
        else:
            out[name] = value
    return out


class FaultInjector:
    """Wraps tool callables so declared faults fire on the named calls; records every call.

    `case_or_faults`: a `Case` (its ``expected.recovery.faults``), a `RecoveryExpectation` or a
    list of `FaultSpec`. `on_error`: ``raise`` raises `ToolFault` for kind ``error`` (agents that
    catch tool exceptions); ``return`` hands back ``{"error": content}`` instead. Kind ``empty``
    returns `empty_value` without calling the tool; ``malformed`` calls the real tool and returns
    its result truncated to invalid JSON (the action happened, its answer came back corrupted);
    ``timeout`` raises `TimeoutError` without calling the tool.
    """

    def __init__(
        self,
        case_or_faults: Case | RecoveryExpectation | Sequence[FaultSpec] | None,
        tools: Mapping[str, Callable[..., Any]],
        *,
        on_error: ErrorMode = "raise",
        empty_value: Any = "",
    ) -> None:
        self.case = case_or_faults if isinstance(case_or_faults, Case) else None
        self.faults = _faults_of(case_or_faults)
        self.on_error: ErrorMode = on_error
        self.empty_value = empty_value
        self._originals = dict(tools)
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()
        self._slots: dict[str, int] = {}
        # A call's slot is taken when it starts, so overlapping calls (threads, async, nested)
        # are recorded in the order the agent made them, the order faults are counted in.
        self._steps: list[Step | None] = []
        self._next_id = 0
        self.tools: dict[str, Callable[..., Any]] = {
            name: self._wrap(name, fn) for name, fn in self._originals.items()
        }

    # -- recording --------------------------------------------------------------------------

    @property
    def steps(self) -> list[Step]:
        """The recorded steps so far (a copy), in the order the calls started; calls still
        running are left out."""
        with self._lock:
            return [step for step in self._steps if step is not None]

    def message(self, role: str, content: Any) -> None:
        """Record a chat message between tool calls (e.g. the agent's reply).

        `role` is one a runs file accepts (user, assistant, system, developer, tool): checked
        here, where the mistake is made, not when the run is read.
        """
        if role not in STEP_ROLES:
            raise ValueError(f"unknown role {role!r}; one of {', '.join(sorted(STEP_ROLES))}")
        with self._lock:
            self._steps.append(Message(role=role, content=_recordable(content)))

    def reset(self) -> None:
        """Forget the recorded calls and counts, to run another trial with the same faults."""
        with self._lock:
            self._counts.clear()
            self._steps.clear()
            self._slots.clear()
            self._next_id = 0

    def trajectory(
        self,
        case_id: str | None = None,
        trial: int = 0,
        agent: str | None = None,
        final_state: Mapping[str, JsonValue] | None = None,
        final_answer: str | None = None,
    ) -> Trajectory:
        """The recorded run; `final_answer` is appended as the last assistant message."""
        cid = case_id if case_id is not None else (self.case.id if self.case else None)
        if cid is None:
            raise ValueError("case_id is needed when the injector was not built from a Case")
        steps = self.steps
        if final_answer is not None:
            steps.append(Message(role="assistant", content=_recordable(final_answer)))
        state = dict(final_state) if final_state is not None else None
        return Trajectory(case_id=cid, trial=trial, agent=agent, steps=steps, final_state=state)

    def to_jsonl_line(
        self,
        case_id: str | None = None,
        trial: int = 0,
        agent: str | None = None,
        final_state: Mapping[str, JsonValue] | None = None,
        final_answer: str | None = None,
    ) -> str:
        """The recorded run as one line of a runs JSONL file (normalised `steps`)."""
        run = self.trajectory(case_id, trial, agent, final_state, final_answer)
        # Python mode, then json_out: JSON mode would write NaN and infinity as null.
        steps: list[JsonObject] = [s.model_dump(exclude_none=True) for s in run.steps]
        data: RunLine
        if run.agent is not None:
            data = {"case_id": run.case_id, "trial": run.trial, "agent": run.agent, "steps": steps}
        else:
            data = {"case_id": run.case_id, "trial": run.trial, "steps": steps}
        if run.final_state is not None:
            data["final_state"] = run.final_state
        return json_out.dumps(data, ensure_ascii=False)

    # -- calling ----------------------------------------------------------------------------

    def call(self, tool: str, /, **args: Any) -> Any:
        """Call a wrapped tool by name (for agents that dispatch on the tool name)."""
        if tool not in self.tools:
            raise KeyError(f"unknown tool: {tool}")
        return self.tools[tool](**args)

    def _begin(self, tool: str) -> tuple[str, FaultSpec | None]:
        """Count the call, take its slot, and find the fault (first matching spec) it fires."""
        with self._lock:
            self._counts[tool] += 1
            self._next_id += 1
            nth, call_id = self._counts[tool], f"call_{self._next_id}"
            self._slots[call_id] = len(self._steps)
            self._steps.append(None)
        for spec in self.faults:
            if spec.tool == tool and (spec.nth == "all" or spec.nth == nth):
                return call_id, spec
        return call_id, None

    def _record(self, tool: str, call_id: str, args: dict[str, Any], result: ToolResult) -> None:
        kept = {key: _recordable(value) for key, value in args.items()}
        call = ToolCall(tool=tool, args=kept, id=call_id, result=result)
        with self._lock:
            slot = self._slots.pop(call_id, None)
            if slot is None:  # the run was reset while the call ran
                self._steps.append(call)
            else:
                self._steps[slot] = call

    def _record_error(
        self, tool: str, call_id: str, args: dict[str, Any], exc: BaseException
    ) -> None:
        # The tool's own exception, or the call cancelled or interrupted mid-way (the agent's
        # own timeout, Ctrl-C): the agent sees it raised, and the call, which may have acted,
        # stays in the run as an error instead of vanishing.
        content = str(exc) or type(exc).__name__
        self._record(tool, call_id, args, ToolResult(status="error", content=content))

    def _wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        # An object whose __call__ is async (a tool class) is an async tool too.
        if inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
            type(fn).__call__
        ):

            @functools.wraps(fn)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                call_id, spec = self._begin(name)
                record = _bind_args(fn, args, kwargs)
                if spec is not None and spec.kind != "malformed":
                    return self._fire(name, call_id, record, spec, None)
                try:
                    value = await fn(*args, **kwargs)
                except BaseException as exc:
                    self._record_error(name, call_id, record, exc)
                    raise
                return self._finish(name, call_id, record, spec, value)

            return run_async

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            call_id, spec = self._begin(name)
            record = _bind_args(fn, args, kwargs)
            if spec is not None and spec.kind != "malformed":
                return self._fire(name, call_id, record, spec, None)
            try:
                value = fn(*args, **kwargs)
            except BaseException as exc:
                self._record_error(name, call_id, record, exc)
                raise
            return self._finish(name, call_id, record, spec, value)

        return run

    def _finish(
        self, name: str, call_id: str, args: dict[str, Any], spec: FaultSpec | None, value: Any
    ) -> Any:
        """Record a real call's result, corrupting it first when a malformed fault fires."""
        if spec is not None:
            return self._fire(name, call_id, args, spec, value)
        self._record(name, call_id, args, ToolResult(status="ok", content=_recordable(value)))
        return value

    def _fire(
        self, name: str, call_id: str, args: dict[str, Any], spec: FaultSpec, value: Any
    ) -> Any:
        """Record and deliver one injected fault."""
        if spec.kind == "timeout":
            content = spec.content or "timeout"
            self._record(name, call_id, args, _faulted("error", content, spec))
            raise TimeoutError(content)
        if spec.kind == "error":
            content = spec.content or "error"
            self._record(name, call_id, args, _faulted("error", content, spec))
            if self.on_error == "raise":
                raise ToolFault(name, content)
            return {"error": content}
        if spec.kind == "empty":
            empty = _recordable(self.empty_value)
            self._record(name, call_id, args, _faulted("ok", empty, spec))
            return self.empty_value
        corrupted = spec.content if spec.content is not None else malformed(value)
        self._record(name, call_id, args, _faulted("ok", corrupted, spec))
        return corrupted
