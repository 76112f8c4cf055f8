"""The reference: a case, its tool catalogue and each check's expectations (docs/case-format.md).

Every model is frozen and forbids unknown keys, so a typo in a suite is an error that names
the file, line and key instead of a silently ignored expectation.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    field_validator,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema

from toolgrade.models.catalogue import SideEffectClass, SuiteCatalogue
from toolgrade.vocabulary import CHECK_NAMES as CHECK_NAMES
from toolgrade.vocabulary import CheckName as CheckName

#: The pseudo-tool that stands for the agent's final reply in ordering constraints.
ANSWER = "answer"

#: The hard-case kinds a case may be tagged with (and some are inferred; scoring/tallies.py).
HardCaseKind = Literal[
    "no_tool", "overlapping_tools", "missing_required_info", "multi_turn", "misleading_identifier"
]
HARD_CASE_KINDS: tuple[HardCaseKind, ...] = get_args(HardCaseKind)
#: The roles a chat message of a multi-turn `input` may have.
INPUT_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})


class StrictModel(BaseModel):
    """Base for every input model: frozen, unknown keys rejected."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class ToolSpec(StrictModel):
    """One tool of the catalogue the agent had."""

    description: str = ""
    parameters: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object"},
        description="JSON Schema of the tool's arguments object.",
    )
    side_effect: StrictBool = Field(
        default=False, description="Mutating tool: an unauthorized call is a hard fail."
    )
    destructive: StrictBool = Field(
        default=False,
        description="A destructive write (MCP destructiveHint): implies side_effect.",
    )

    @model_validator(mode="before")
    @classmethod
    def _destructive_writes(cls, data: Any) -> Any:
        # A destructive tool mutates by definition: say so once, not twice.
        if isinstance(data, dict) and data.get("destructive") is True:
            if data.get("side_effect") is False:
                raise ValueError("destructive: true is a write; it cannot have side_effect: false")
            return {**data, "side_effect": True}
        return data

    @property
    def side_effect_class(self) -> SideEffectClass:
        """read, write or destructive."""
        if self.destructive:
            return "destructive"
        return "write" if self.side_effect else "read"


class SelectionExpectation(StrictModel):
    """Which tools the agent should reach for (a multiset)."""

    tools: list[str] = Field(default_factory=list, description="Expected tool names, a multiset.")
    forbidden: list[str] = Field(default_factory=list)
    alternatives: list[list[str]] = Field(
        default_factory=list, description="Other acceptable multisets of tool names."
    )
    no_tool: StrictBool = Field(default=False, description="The right answer calls no tool at all.")
    allowed: list[str] = Field(
        default_factory=list,
        description="Free calls: beyond the route, calls of these tools are neither extra nor "
        "required (counted apart as free_calls).",
    )
    allow_reads: StrictBool = Field(
        default=False,
        description="Every catalogue tool without side_effect is allowed (free), as `allowed`.",
    )
    allow_failed: StrictBool = Field(
        default=False,
        description="Every call whose tool returned an error is free: it neither matches the "
        "route nor counts as extra (a failed write changed nothing).",
    )
    judge_alternates: StrictBool = Field(
        default=False,
        description="When the run matches no listed route, the alternate_route judge decides "
        "(a pass verdict passes selection; a recorded human decision goes first).",
    )

    @model_validator(mode="before")
    @classmethod
    def _first_alternative_as_route(cls, data: Any) -> Any:
        # Routes given only as `alternatives`: the first is the route. Left as they were, the
        # empty `tools` would also be a route, and a run with no call would pass.
        if isinstance(data, dict) and "tools" not in data and not data.get("no_tool"):
            routes = data.get("alternatives")
            if isinstance(routes, list) and routes:
                return {**data, "tools": routes[0], "alternatives": routes[1:]}
        return data

    @model_validator(mode="after")
    def _consistent(self) -> SelectionExpectation:
        # Each of these would otherwise grade silently against something the author did not mean.
        if self.no_tool and (self.tools or self.alternatives):
            raise ValueError("no_tool: true means no call is expected; it cannot list tools")
        if self.no_tool and (self.allowed or self.allow_reads or self.allow_failed):
            raise ValueError(
                "no_tool: true means no call at all; to expect no required call but allow "
                "some, write `tools: []` with `allowed` or `allow_reads`"
            )
        if not self.no_tool and "tools" not in self.model_fields_set:
            raise ValueError(
                "selection needs `tools` (the expected route; [] for none), `alternatives`, or "
                "`no_tool: true`: without them every call would count as extra"
            )
        expected = {*self.tools, *(t for route in self.alternatives for t in route)}
        both = sorted(expected & set(self.forbidden))
        if both:
            raise ValueError(f"{', '.join(both)}: both expected and forbidden")
        clash = sorted(set(self.allowed) & set(self.forbidden))
        if clash:
            raise ValueError(f"{', '.join(clash)}: both allowed and forbidden")
        return self


class ArgumentExpectation(StrictModel):
    """One expected call: the tool and its arguments, each a value or a comparator mapping."""

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)


class OrderingExpectation(StrictModel):
    """Only the load-bearing order constraints, plus loops and budgets."""

    groups: dict[str, list[str]] = Field(
        default_factory=dict, description="Named tool groups, referenced as '@name'."
    )
    before: list[tuple[str, str]] = Field(
        default_factory=list,
        description="Pairs [a, b]: every call of b comes after some call of a. "
        "A side may be a tool, '@group' or 'answer'.",
    )
    max_calls: dict[str, StrictInt] = Field(default_factory=dict)
    mode: Literal["exact", "in_order", "any_order"] | None = Field(
        default=None, description="Optional whole-sequence comparison against `sequence`."
    )
    sequence: list[str] | None = Field(
        default=None,
        description="Reference sequence for `mode`; defaults to expected.selection.tools.",
    )
    loop_threshold: StrictInt = Field(
        default=3, ge=2, description="Identical calls in a row = loop."
    )


class FaultSpec(StrictModel):
    """A fault injected into a tool call."""

    tool: str
    nth: StrictInt | Literal["all"] = Field(default=1, description="1-based call index, or 'all'.")
    kind: Literal["error", "empty", "malformed", "timeout"] = "error"
    content: str | None = None

    @model_validator(mode="after")
    def _nth_positive(self) -> FaultSpec:
        if isinstance(self.nth, int) and self.nth < 1:
            raise ValueError("nth must be 1 or more, or 'all'")
        return self


class RecoveryExpectation(StrictModel):
    """The mechanical contract of recovering from tool failures."""

    faults: list[FaultSpec] = Field(default_factory=list)
    max_retries: StrictInt = Field(default=2, ge=0)
    fallbacks: dict[str, list[str]] = Field(default_factory=dict)
    escalate_with: str | None = None
    grade_observed_errors: StrictBool = Field(
        default=False, description="Also grade errors in the run that no fault spec declared."
    )
    judge_quality: StrictBool = Field(
        default=False,
        description="A recovery_quality 'fail' verdict fails the check (poor_recovery).",
    )


class StateAssertion(StrictModel):
    """An assertion on the run's final environment state.

    Either a dotted `path` into `final_state` with one of equals/exists/absent/contains/count,
    or `sqlite` (a database file) with a `query` whose result is compared with `equals`.
    Which operator was given is read from `model_fields_set`, so `equals: null` is meaningful.
    """

    path: str | None = None
    equals: Any = None
    exists: StrictBool | None = None
    absent: StrictBool | None = None
    contains: Any = None
    count: StrictInt | None = None
    sqlite: str | None = None
    query: str | None = None

    @model_validator(mode="after")
    def _one_target(self) -> StateAssertion:
        if (self.path is None) == (self.sqlite is None):
            raise ValueError("a state assertion needs exactly one of 'path' or 'sqlite'")
        if self.sqlite is not None and self.query is None:
            raise ValueError("a 'sqlite' assertion needs a 'query'")
        ops = {"equals", "exists", "absent", "contains", "count"} & self.model_fields_set
        if not ops:
            raise ValueError(
                "a state assertion needs one of equals, exists, absent, contains, count"
            )
        return self


class AnswerExpectation(StrictModel):
    """What the agent must tell the user, checked deterministically on its messages.

    Each mention must appear in some assistant message of the run (any of them, not only the
    final answer), as a case-insensitive substring, with commas ignored on both sides (`1,234`
    reads as `1234`), as tau-bench and tau2 check their required outputs. Graded by the
    recovery check beside the state assertions (the run's outcome); a mention not said is a
    `missing_mention` failure.
    """

    mentions: list[Annotated[str, Field(min_length=1)]] = Field(
        default_factory=list, description="Texts the agent must say, each somewhere."
    )


class Expected(StrictModel):
    """One named field per check; each grader reads only its own (`state` and `answer`
    belong to the recovery check, which grades the run's outcome)."""

    selection: SelectionExpectation | None = None
    arguments: list[ArgumentExpectation] | None = None
    ordering: OrderingExpectation | None = None
    recovery: RecoveryExpectation | None = None
    state: list[StateAssertion] | None = None
    answer: AnswerExpectation | None = None


GroundedKind = Literal["id", "email", "phone", "number"]


def _default_grounded_kinds() -> list[GroundedKind]:
    return ["id", "email", "phone"]


class GroundingExpectation(StrictModel):
    """Reference-free: argument values of these kinds must come from what the agent had seen.

    Given (on the case, or suite-wide), a value that appears in no user message, no earlier
    tool result and no case input fails the arguments check as `ungrounded_value`. Without it
    the figure `ungrounded` is still reported on every run. docs/case-format.md has the rules.
    """

    kinds: list[GroundedKind] = Field(
        default_factory=_default_grounded_kinds,
        description="Kinds of value tested; numbers only when listed (free text never).",
    )
    exempt: list[str] = Field(
        default_factory=list,
        description="`tool.field` paths not tested (a value the agent may rightly make up).",
    )


class Scoring(StrictModel):
    """How the four check scores aggregate into one pass/fail for the case."""

    mode: Literal["binary", "weighted", "hybrid"] = "binary"
    weights: dict[CheckName, Annotated[StrictFloat, Field(ge=0.0, allow_inf_nan=False)]] = Field(
        default_factory=dict
    )
    threshold: StrictFloat = Field(default=0.8, ge=0.0, le=1.0, allow_inf_nan=False)
    required: list[CheckName] = Field(default_factory=list)


class Case(StrictModel):
    """One reference case of a suite."""

    id: str = Field(min_length=1)
    task_type: str | None = Field(
        default=None, description="Pools step efficiency across cases (default: the id)."
    )
    input: Any = Field(
        default=None,
        description="The user's request: a string, or a list of chat messages {role, content} "
        "(multi-turn context, shown to judges as messages).",
    )
    grounding: GroundingExpectation | None = Field(
        default=None,
        description="Fail arguments on values that come from nowhere (`ungrounded_value`).",
    )
    tags: list[HardCaseKind] = Field(
        default_factory=list,
        description="Hard-case kinds this case covers (more are inferred; docs/case-format.md).",
    )
    tools: dict[str, ToolSpec] = Field(default_factory=dict)
    text_calls: StrictBool = Field(
        default=False,
        description="Read tool calls the agent wrote in an assistant message's text as calls "
        "(docs/importers.md#tool-calls-in-raw-model-text).",
    )
    expected: Expected = Field(default_factory=Expected)
    scoring: Scoring = Field(default_factory=Scoring)
    min_steps: StrictInt | None = Field(default=None, ge=1)
    metadata: dict[str, Any] = Field(default_factory=dict)
    #: Set by the suite loader from the suite's `tools_from`, never written in a case.
    catalogue: SkipJsonSchema[SuiteCatalogue | None] = Field(default=None, exclude=True)

    @field_validator("input")
    @classmethod
    def _chat_messages(cls, value: Any) -> Any:
        # A list is a conversation: each item must read as a chat message, or the judges and
        # the grounding test would be handed something the author did not mean.
        if isinstance(value, list):
            for i, message in enumerate(value):
                if not (
                    isinstance(message, dict)
                    and message.get("role") in INPUT_ROLES
                    and "content" in message
                    and set(message) <= {"role", "content", "name"}
                ):
                    raise ValueError(
                        f"input[{i}]: a chat message is {{role, content}} with role one of "
                        f"{', '.join(sorted(INPUT_ROLES))}"
                    )
        return value

    def input_messages(self) -> list[dict[str, Any]]:
        """The input as chat messages: a string is one user message; None is none."""
        if self.input is None:
            return []
        if isinstance(self.input, list):
            return list(self.input)
        return [{"role": "user", "content": self.input}]

    @property
    def effective_task_type(self) -> str:
        """The task type used to pool step efficiency."""
        return self.task_type or self.id

    def side_effect_tools(self) -> set[str]:
        """Names of the catalogue's mutating tools."""
        return {name for name, spec in self.tools.items() if spec.side_effect}

    def free_tools(self) -> frozenset[str]:
        """Tools whose calls beyond the route are free (`selection.allowed`, and with
        `allow_reads` every catalogue tool without side effects); forbidden tools never are."""
        spec = self.expected.selection
        if spec is None:
            return frozenset()
        free = set(spec.allowed)
        if spec.allow_reads:
            free.update(name for name, tool in self.tools.items() if not tool.side_effect)
        return frozenset(free - set(spec.forbidden))
