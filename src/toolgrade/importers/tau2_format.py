"""The records of a tau2-bench results file, as the tau2 importer reads them.

Upstream: sierra-research/tau2-bench, `tau2/data_model/simulation.py` (`Results`,
`SimulationRun`, `RewardInfo`, `ActionCheck`), `tau2/data_model/tasks.py` (`Task`,
`UserScenario`, `EvaluationCriteria`, `Action`) and `tau2/data_model/message.py` (messages and
`ToolCall`), written with pydantic's `model_dump`. Only the fields the importer reads are named.

The importer checks the fields it relies on (`tau2.task_problems`, `tau2.simulation_problems`)
and casts a record once it passed; the other fields are typed as tau2 writes them and still
read defensively (`isinstance`), since a hand-edited file may hold anything there.
"""

from __future__ import annotations

from typing import Literal, NotRequired, Required, TypedDict

from toolgrade.jsonio.values import JsonObject, JsonValue

#: Who takes an action or makes a call: the agent or the simulated user.
Requestor = Literal["assistant", "user"]


class Tau2Action(TypedDict, total=False):
    """A reference action of a task's `evaluation_criteria.actions`."""

    action_id: JsonValue
    requestor: Requestor
    name: Required[str]
    arguments: JsonObject
    #: The keys of `arguments` tau2 compares; None compares them all, [] none.
    compare_args: list[str] | None


class Tau2Instructions(TypedDict, total=False):
    """`user_scenario.instructions` in its structured form (`StructuredUserInstructions`)."""

    reason_for_call: str
    known_info: str | None
    unknown_info: str | None
    task_instructions: str


class Tau2UserScenario(TypedDict, total=False):
    """What the simulated user is told; `instructions` may also be one plain string."""

    instructions: Tau2Instructions | str


class Tau2Criteria(TypedDict, total=False):
    """A task's `evaluation_criteria`: what its reward is computed on."""

    actions: list[Tau2Action] | None
    #: Strings the agent must say (graded under the COMMUNICATE basis).
    communicate_info: list[JsonValue] | None
    #: The reward's parts: DB, ACTION, COMMUNICATE, ENV_ASSERTION, NL_ASSERTION.
    reward_basis: list[str]
    #: Checks on the environment after the run: `{env_type, func_name, arguments,
    #: assert_value}`.
    env_assertions: list[JsonObject] | None


class Tau2Task(TypedDict, total=False):
    """One task of the file's `tasks`."""

    id: Required[str]
    user_scenario: Tau2UserScenario
    #: The request itself, in tasks written as a support ticket (solo mode).
    ticket: str | None
    evaluation_criteria: Tau2Criteria | None


class Tau2ToolCall(TypedDict, total=False):
    """A call inside a message's `tool_calls`."""

    id: str
    name: Required[str]
    arguments: JsonObject
    requestor: Requestor


class Tau2Message(TypedDict, total=False):
    """One message of a simulation: system, assistant, user or tool.

    A tool message (`role: tool`) answers the call whose `id` it repeats.
    """

    role: str
    content: JsonValue
    tool_calls: list[Tau2ToolCall] | None
    #: A tool message: the id of the call it answers.
    id: str
    #: A tool message: whether the tool raised an error.
    error: bool


class Tau2CheckedAction(TypedDict, total=False):
    """The reference action an action check repeats. The importer only copies its fields to
    the run's metadata and never checks them, so none is taken to be there."""

    action_id: JsonValue
    name: JsonValue
    requestor: JsonValue


class Tau2ActionCheck(TypedDict, total=False):
    """One entry of `reward_info.action_checks`: a reference action and tau2's verdict."""

    action: Tau2CheckedAction | None
    action_match: JsonValue


class Tau2RewardInfo(TypedDict, total=False):
    """A simulation's `reward_info`: tau2's own grading of it."""

    reward: float
    action_checks: list[Tau2ActionCheck] | None


class Tau2Simulation(TypedDict):
    """One recorded simulation of the file's `simulations`."""

    task_id: str
    trial: NotRequired[int]
    messages: list[Tau2Message]
    #: Why the simulation ended (`user_stop`, `agent_stop`, `max_steps`, ...).
    termination_reason: NotRequired[JsonValue]
    reward_info: NotRequired[Tau2RewardInfo | None]


class Tau2PartInfo(TypedDict, total=False):
    """`info.agent_info` or `info.user_info`: which implementation ran, on which model."""

    #: `llm_agent_solo` (agent) or `dummy_user` (user) in tau2's no-user mode.
    implementation: str
    llm: str


class Tau2EnvironmentInfo(TypedDict, total=False):
    """`info.environment_info`."""

    domain_name: str


class Tau2Info(TypedDict, total=False):
    """The file's `info`: how the simulations were run."""

    agent_info: Tau2PartInfo
    user_info: Tau2PartInfo
    environment_info: Tau2EnvironmentInfo


class Tau2Results(TypedDict, total=False):
    """A whole results file (`Results`); `tasks` and `simulations` are read item by item."""

    info: Tau2Info
    tasks: Required[list[JsonValue]]
    simulations: Required[list[JsonValue]]
