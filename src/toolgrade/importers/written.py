"""The lines the importers write: a case of `suite.jsonl`, a run of `runs.jsonl`.

These are toolgrade's own case and run formats (docs/case-format.md, docs/run-format.md) as
the importers build them, key by key. They are not the pydantic models of `toolgrade.models`:
an importer writes only the keys it sets, in the order it sets them, and the loader `toolgrade
run` uses validates the written files against those models (`common.write_outputs`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, NotRequired, Required, TypedDict

from toolgrade.jsonio.values import JsonObject, JsonValue

# --- suite.jsonl ------------------------------------------------------------------------------


class ToolSpecLine(TypedDict):
    """One tool of a case's catalogue."""

    description: NotRequired[str]
    #: A JSON Schema of the call's arguments.
    parameters: JsonObject
    side_effect: NotRequired[bool]


#: A case's tools by name.
Catalogue = dict[str, ToolSpecLine]


class SelectionLine(TypedDict, total=False):
    """`expected.selection`: the tools the route calls."""

    tools: list[str]
    #: Calls of tools that only read are free (neither required nor graded).
    allow_reads: bool
    #: A failed call is not by itself a failure (tau benchmarks reward the end state).
    allow_failed: bool
    #: Further tools the agent may call freely.
    allowed: list[str]
    #: The right answer is no call at all.
    no_tool: bool


class ExpectedCallLine(TypedDict):
    """One call of `expected.arguments`: each argument a literal value or a comparator."""

    tool: str
    args: JsonObject


class OrderingLine(TypedDict):
    """`expected.ordering`: `[a, b]` pairs, b's calls after some call of a."""

    before: list[list[str]]


class AnswerLine(TypedDict):
    """`expected.answer`: strings the agent's reply must mention."""

    mentions: list[str]


class ExpectedLine(TypedDict, total=False):
    """A case's `expected` block."""

    selection: Required[SelectionLine]
    arguments: list[ExpectedCallLine]
    ordering: OrderingLine
    answer: AnswerLine
    #: State assertions on the run's `final_state`: `{path, equals}`.
    state: list[JsonObject]


class CaseLine(TypedDict):
    """One line of `suite.jsonl`; `metadata` is each importer's own TypedDict."""

    id: str
    task_type: str
    #: The user's request as the benchmark gives it (text, or whatever the file holds).
    input: JsonValue
    tools: Catalogue
    expected: ExpectedLine
    metadata: Mapping[str, object]


# --- runs.jsonl -------------------------------------------------------------------------------


class ResultLine(TypedDict):
    """A call step's result."""

    status: Literal["ok", "error"]
    content: JsonValue


class CallStepLine(TypedDict):
    """A tool call step. `args` is a string when the call could not be decoded (kept as the
    raw text, which the runs loader reports as `unparseable_arguments`)."""

    tool: str
    args: JsonValue
    id: NotRequired[str]
    #: Calls of one group were issued together: unordered among themselves.
    group: NotRequired[int]
    result: NotRequired[ResultLine]


class MessageStepLine(TypedDict):
    """A chat message step."""

    role: str
    content: JsonValue


StepLine = CallStepLine | MessageStepLine


class RunMetadataLine(TypedDict, total=False):
    """What a run keeps of the benchmark's own verdicts."""

    #: The benchmark's reward for the run.
    reward: float
    #: tau2: why the simulation ended.
    termination_reason: JsonValue
    #: tau2: each reference action and whether tau2 found it matched.
    action_checks: list[JsonObject]


class RunLine(TypedDict):
    """One line of `runs.jsonl`: normalised `steps` or recorded OpenAI `messages`."""

    case_id: str
    trial: int
    agent: NotRequired[str]
    format: NotRequired[Literal["steps", "openai"]]
    steps: NotRequired[list[StepLine]]
    #: OpenAI chat messages as recorded (read by the OpenAI adapter).
    messages: NotRequired[list[JsonValue]]
    #: The environment after the run, as far as the importer can read it.
    final_state: NotRequired[JsonObject]
    metadata: NotRequired[RunMetadataLine]


# --- each importer's case metadata ------------------------------------------------------------


class UserActionLine(TypedDict):
    """A reference action the simulated user takes (tau2), kept for the reader."""

    name: str
    arguments: JsonObject


class Tau2CaseMetadata(TypedDict):
    """A tau2 case's `metadata`."""

    source: Literal["tau2"]
    domain: str
    #: The `action_id` of each route action, in order.
    action_ids: list[JsonValue]
    user_actions: list[UserActionLine]
    reward_basis: list[str]
    #: The agent's reference actions left out of the route: free reads.
    reference_reads: NotRequired[list[str]]
    #: Reward parts no trajectory can recompute (ENV_ASSERTION, NL_ASSERTION).
    not_reproduced: NotRequired[list[str]]
    mode: NotRequired[Literal["solo"]]


class TauBenchCaseMetadata(TypedDict):
    """A tau-bench case's `metadata`."""

    source: Literal["tau-bench"]
    domain: str
    #: The task's required outputs, as written (the non-empty ones are graded as mentions).
    outputs: list[str]
    reference_reads: list[str]
    user_id: NotRequired[JsonValue]
    annotator: NotRequired[JsonValue]


class BfclCaseMetadata(TypedDict):
    """A BFCL case's `metadata`."""

    source: Literal["bfcl"]
    category: str
