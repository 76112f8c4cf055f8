"""The records of tau-bench's task lists and recorded runs, as the tau-bench importer reads them.

Upstream: sierra-research/tau-bench, `tau_bench/types.py` (`Task`, `Action`,
`EnvRunResult`), a task list being the `tasks` of `tau_bench/envs/<domain>/tasks_*.py` dumped to
JSON, and a run file the JSON array `tau_bench/run.py` writes. The trajectory (`traj`) is a
list of OpenAI chat messages, read by the OpenAI adapter once the run is imported.

The importer checks each task and run (`tau_bench.task_problems`, `tau_bench.run_problems`)
before it casts it to these types.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

from toolgrade.jsonio.values import JsonObject, JsonValue


class Named(TypedDict):
    """Any record naming a tool: a reference action of tau-bench or of tau2."""

    name: str


class TauBenchAction(TypedDict):
    """A reference tool call of a task's `actions`, reads and writes, in order."""

    name: str
    #: The call's arguments.
    kwargs: NotRequired[JsonObject]


class TauBenchTask(TypedDict):
    """One task of a task list, or the task a run embeds in `info.task`."""

    instruction: str
    actions: NotRequired[list[TauBenchAction]]
    #: Strings the agent must say (tau-bench's reward looks for each, lower case, no commas).
    outputs: NotRequired[list[str]]
    user_id: NotRequired[JsonValue]
    #: Which annotator wrote the task (some task lists say).
    annotator: NotRequired[JsonValue]


class TauBenchRunInfo(TypedDict, total=False):
    """A run's `info`: the task it ran (`task`) and tau-bench's reward details."""

    task: JsonValue


class TauBenchRun(TypedDict):
    """One recorded run (`EnvRunResult`) of a run file."""

    #: The task's position in the task list the run was recorded on.
    task_id: int
    #: Which trial of the task (0 when left out).
    trial: NotRequired[JsonValue]
    reward: NotRequired[JsonValue]
    info: NotRequired[TauBenchRunInfo]
    #: The conversation: OpenAI chat messages.
    traj: list[JsonValue]
