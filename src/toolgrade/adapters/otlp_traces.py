"""One trace's spans to one run: which agent is graded, its steps, and which case it is.

- The graded agent is the outermost one: the earliest agent span (`invoke_agent`, OpenInference
  `AGENT`) with no agent span above it, together with every other top-level agent span of the
  same name (the same agent over several turns). A span belongs to the nearest agent span
  above it, so the calls a nested agent makes are its own, not the graded agent's; a tool span
  of the graded agent that runs a sub-agent is the graded agent's call. A trace with no agent
  span is one agent's.
- Steps: each tool span is a call (ordered by start time); tool spans under the same parent
  whose times overlap were issued together and share a parallel group. Model-call spans give
  the chat messages around the calls: the input messages not seen before (at the span's
  start) and the reply (at its end). With no model-call messages, the agent span's own input
  and output stand in.
- Everything else (other agents' spans, retrievers, embeddings, chains, spans of no GenAI or
  OpenInference kind) is left out of the run and counted by kind.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from toolgrade.adapters.common import AdapterError, build_call, make_result
from toolgrade.adapters.otlp_conventions import (
    ChatText,
    SpanRole,
    agent_messages,
    agent_name,
    classify,
    model_messages,
    requested_calls,
    tool_call_fields,
    tool_name,
    tool_responses,
)
from toolgrade.adapters.otlp_spans import Span
from toolgrade.jsonio.bounds import loads_or_none
from toolgrade.jsonio.values import JsonObject, JsonValue
from toolgrade.models import Message, Step, ToolCall
from toolgrade.vocabulary import CASE_ATTRIBUTE as CASE_ATTRIBUTE

#: The attributes (on any span of the trace, or its resource) that name the run (and
#: CASE_ATTRIBUTE, which names its case).
TRIAL_ATTRIBUTE = "toolgrade.trial"
STATE_ATTRIBUTE = "toolgrade.final_state"

#: Where a message or a call falls among steps at the same time: a model's reply ends before
#: the calls it asked for start, and those start before the next model call's new input.
_REPLY, _CALL, _INPUT = 0, 1, 2
#: What an agent span was asked comes before anything else starting with it.
_ASKED = -1


@dataclass
class TraceRun:
    """A trace read as one run, before its trial number is settled."""

    trace_id: str
    line: int | None
    start: int
    case_id: str
    trial: int | None
    agent: str | None
    steps: list[Step]
    final_state: JsonObject | None
    #: Spans kept out of the run, by kind.
    left_out: Counter[str] = field(default_factory=Counter)
    tool_calls: int = 0


class _Tree:
    """Parent links of a trace's spans, and the nearest agent span above each."""

    def __init__(self, spans: list[Span], roles: dict[str, SpanRole]) -> None:
        self.by_id = {span.span_id: span for span in spans}
        self.roles = roles

    def owner(self, span: Span) -> str | None:
        """The id of the nearest agent span strictly above `span`, or None."""
        seen = {span.span_id}
        parent = span.parent_id
        while parent is not None and parent in self.by_id and parent not in seen:
            if self.roles[parent] == "agent":
                return parent
            seen.add(parent)
            parent = self.by_id[parent].parent_id
        return None


def _graded_agents(spans: list[Span], tree: _Tree) -> tuple[set[str | None], str | None]:
    """The ids of the graded agent's spans (None: the trace has no agent span), and its name."""
    top = [s for s in spans if tree.roles[s.span_id] == "agent" and tree.owner(s) is None]
    if not top:
        return {None}, None
    first = min(top, key=lambda s: (s.start, s.order))
    name = agent_name(first)
    return {s.span_id for s in top if agent_name(s) == name}, name


def _trace_values(spans: list[Span], key: str) -> list[tuple[JsonValue, Span]]:
    """The distinct values of `key` over the trace's spans, then their resources."""
    found: list[tuple[JsonValue, Span]] = []
    for source in ("attributes", "resource"):
        for span in spans:
            attrs = span.attributes if source == "attributes" else span.resource
            if key in attrs and all(value != attrs[key] for value, _ in found):
                found.append((attrs[key], span))
        if found:
            return found
    return found


def _one_value(spans: list[Span], key: str, trace_id: str) -> JsonValue:
    values = _trace_values(spans, key)
    if len(values) > 1:
        (a, span_a), (b, span_b) = values[:2]
        raise AdapterError(
            f"trace {trace_id}: {key}",
            f"two values in one trace: {a!r} (span {span_a.span_id}) and {b!r} "
            f"(span {span_b.span_id})",
        )
    return values[0][0] if values else None


def _case_id(spans: list[Span], key: str, trace_id: str) -> str:
    value = _one_value(spans, key, trace_id)
    if value is None:
        raise AdapterError(
            f"trace {trace_id}: {key}",
            f"no case id: set the span or resource attribute {key!r} (or name another"
            " attribute with --case-attribute)",
        )
    if not isinstance(value, str | int) or isinstance(value, bool) or value == "":
        raise AdapterError(f"trace {trace_id}: {key}", f"a case id is a string, got {value!r}")
    return str(value)


def _trial(spans: list[Span], trace_id: str) -> int | None:
    value = _one_value(spans, TRIAL_ATTRIBUTE, trace_id)
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
        return value
    raise AdapterError(
        f"trace {trace_id}: {TRIAL_ATTRIBUTE}", f"must be a whole number >= 0, got {value!r}"
    )


def _final_state(spans: list[Span], trace_id: str) -> JsonObject | None:
    value = _one_value(spans, STATE_ATTRIBUTE, trace_id)
    if isinstance(value, str):
        # JSON past the bounds stays the text it is, refused below as not an object.
        decoded = loads_or_none(value)
        value = value if decoded is None else decoded
    if value is None or isinstance(value, dict):
        return value
    raise AdapterError(
        f"trace {trace_id}: {STATE_ATTRIBUTE}", "must be a JSON object (or a key-value list)"
    )


def _groups(calls: list[Span]) -> dict[str, int]:
    """Tool spans under one parent whose times overlap: span id -> a cluster number, for the
    clusters of two or more. Spans starting at the same instant overlap even with no
    duration (some exporters record tool spans as instants)."""
    by_parent: dict[str | None, list[Span]] = {}
    for span in calls:
        by_parent.setdefault(span.parent_id, []).append(span)
    clusters: dict[str, int] = {}
    for siblings in by_parent.values():
        siblings.sort(key=lambda s: (s.start, s.order))
        cluster = [siblings[0]]
        for span in siblings[1:]:
            if span.start < max(c.end for c in cluster) or span.start == cluster[0].start:
                cluster.append(span)
                continue
            _close(cluster, clusters)
            cluster = [span]
        _close(cluster, clusters)
    return clusters


def _close(cluster: list[Span], clusters: dict[str, int]) -> None:
    if len(cluster) > 1:
        number = len(set(clusters.values())) + 1
        clusters.update((member.span_id, number) for member in cluster)


class _Steps:
    """Steps placed by time, then ordered."""

    def __init__(self) -> None:
        self.items: list[tuple[tuple[int, int, int, int], Step, str]] = []
        self.emitted: Counter[ChatText] = Counter()

    def add(self, time: int, phase: int, span: Span, step: Step) -> None:
        self.items.append(((time, phase, span.order, len(self.items)), step, span.span_id))

    def inputs(self, span: Span, messages: list[ChatText], phase: int = _INPUT) -> None:
        """Input messages not already placed (a model call repeats the whole history)."""
        here: Counter[ChatText] = Counter()
        for message in messages:
            here[message] += 1
            if here[message] > self.emitted[message]:
                self.emitted[message] += 1
                self.add(span.start, phase, span, Message(role=message[0], content=message[1]))

    def replies(self, span: Span, messages: list[ChatText]) -> None:
        for message in messages:
            self.emitted[message] += 1
            self.add(span.end, _REPLY, span, Message(role=message[0], content=message[1]))

    def ordered(self) -> list[tuple[Step, str]]:
        """The steps in time order, each with the id of the span it comes from."""
        return [(step, span_id) for _, step, span_id in sorted(self.items, key=lambda i: i[0])]


def _labelled(steps: list[tuple[Step, str]], clusters: dict[str, int]) -> list[Step]:
    """Parallel groups named `p1`, `p2`, ... in the order their first call appears."""
    names: dict[int, str] = {}
    out: list[Step] = []
    for step, span_id in steps:
        if isinstance(step, ToolCall):
            cluster = clusters.get(span_id)
            if cluster is not None:
                name = names.setdefault(cluster, f"p{len(names) + 1}")
                step = step.model_copy(update={"group": name})
        out.append(step)
    return out


#: The kind a call's second span is left out as: the MCP server's side of a call the client's
#: span already records (docs/mcp.md).
SERVER_SIDE = "mcp server side of a call"


def _server_side(span: Span, tree: _Tree) -> bool:
    """Whether a tool span is the server's execution of the call of the nearest tool span above
    it (the same tool): with MCP context propagation (openinference-instrumentation-mcp, or the
    MCP conventions' server spans) the server's span joins the client's trace under it."""
    parent, seen = span.parent_id, set()
    while parent is not None and parent in tree.by_id and parent not in seen:
        if tree.roles[parent] == "tool":
            return _name_or_none(tree.by_id[parent]) == _name_or_none(span) is not None
        if tree.roles[parent] == "agent":
            return False
        seen.add(parent)
        parent = tree.by_id[parent].parent_id
    return False


def _name_or_none(span: Span) -> str | None:
    try:
        return tool_name(span)
    except AdapterError:
        return None


def assemble(spans: list[Span], case_attribute: str = CASE_ATTRIBUTE) -> TraceRun:
    """The run a trace's spans record; raises AdapterError naming the trace or span."""
    trace_id = spans[0].trace_id
    roles: dict[str, SpanRole] = {}
    kinds: dict[str, str] = {}
    for span in spans:
        roles[span.span_id], kinds[span.span_id] = classify(span)
    tree = _Tree(spans, roles)
    graded, name = _graded_agents(spans, tree)
    left_out: Counter[str] = Counter()
    tools: list[Span] = []
    models: list[Span] = []
    for span in sorted(spans, key=lambda s: (s.start, s.order)):
        role = roles[span.span_id]
        owner = tree.owner(span)
        if role == "tool" and _server_side(span, tree):
            left_out[SERVER_SIDE] += 1
        elif role == "agent":
            if span.span_id not in graded:  # a nested agent: its calls are its own
                left_out["another agent"] += 1
        elif role == "other":
            left_out[kinds[span.span_id]] += 1
        elif owner in graded:
            (tools if role == "tool" else models).append(span)
        else:
            left_out["another agent" if owner is not None else "outside"] += 1
    steps, clusters, n_calls = _steps(spans, graded, tools, models)
    first = min(spans, key=lambda s: (s.line or 0, s.order))
    return TraceRun(
        trace_id=trace_id,
        line=first.line,
        start=min(s.start for s in spans),
        case_id=_case_id(spans, case_attribute, trace_id),
        trial=_trial(spans, trace_id),
        agent=name or _service_name(spans, graded),
        steps=_labelled(steps, clusters),
        final_state=_final_state(spans, trace_id),
        left_out=left_out,
        tool_calls=n_calls,
    )


def _service_name(spans: list[Span], graded: set[str | None]) -> str | None:
    """The `service.name` of the graded agent's resource (of the trace's, with no agent)."""
    for span in sorted(spans, key=lambda s: (s.start, s.order)):
        if span.span_id in graded or None in graded:
            name = span.resource.get("service.name")
            return name if isinstance(name, str) and name else None
    return None


def _steps(
    spans: list[Span], graded: set[str | None], tools: list[Span], models: list[Span]
) -> tuple[list[tuple[Step, str]], dict[str, int], int]:
    """The graded agent's calls and messages in time order with their spans' ids, the
    parallel clusters by span id, and the number of calls."""
    placed = _Steps()
    for span in tools:
        name, call_id, raw_args, result = tool_call_fields(span)
        call = build_call(name, raw_args, id=call_id, result=result, group=None)
        placed.add(span.start, _CALL, span, call)
    clusters, n_calls = (_groups(tools), len(tools)) if tools else _requested(models, placed)
    for span in models:
        inputs, outputs = model_messages(span)
        placed.inputs(span, inputs)
        placed.replies(span, outputs)
    if not placed.emitted:
        for span in spans:
            if span.span_id in graded:
                inputs, outputs = agent_messages(span)
                placed.inputs(span, inputs, _ASKED)
                placed.replies(span, outputs)
    return placed.ordered(), clusters, n_calls


def _requested(models: list[Span], placed: _Steps) -> tuple[dict[str, int], int]:
    """With no tool span (only the model calls are instrumented), the calls the model asked
    for, at the end of the model call that asked; each answered by the result a later model
    call was given for its id. The calls of one reply share a group."""
    answers: dict[str, JsonValue] = {}
    for span in models:
        answers.update(tool_responses(span))
    clusters: dict[str, int] = {}
    n_calls = 0
    for span in models:
        asked = requested_calls(span)
        for call_id, name, raw_args in asked:
            key = call_id or ""
            result = make_result(answers[key], None) if key in answers else None
            call = build_call(name, raw_args, id=call_id, result=result, group=None)
            placed.add(span.end, _CALL, span, call)
        if len(asked) > 1:
            clusters[span.span_id] = len(clusters) + 1
        n_calls += len(asked)
    return clusters, n_calls
