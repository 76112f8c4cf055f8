"""What a tau2 task is rewarded on (`reward_basis`), and which reference actions are the route.

tau2 rewards a task on what its `evaluation_criteria.reward_basis` names:

- `DB`: the final database. Only writes change it, so the route is the write actions and reads
  are free (the reference reads stay in the case's `metadata.reference_reads`).
- `ACTION`: every reference action must be matched by a call, so every action is the route.
- `COMMUNICATE`: the agent must say each `communicate_info` string; graded as
  `expected.answer.mentions` (case-insensitive, commas ignored, as tau2 matches them).
- `ENV_ASSERTION`: checks on the environment after the run. Like `DB`, the route is the write
  actions (when `ACTION` is not also rewarded), writes the reference does not list are allowed
  and no write order is graded; each assertion whose subject a tool result reports becomes a
  state check (tau2_state), the others are named in `metadata.not_reproduced`.
- `NL_ASSERTION`: an LLM's reading, which a trajectory cannot recompute (`not_reproduced`).

In tau2's no-user ("solo") mode the agent holds the user's device tools itself and no simulated
user speaks; the `requestor: user` actions are then the agent's route too, and further device
calls are free (troubleshooting toggles a setting twice; only the end state counts, and that
is an `ENV_ASSERTION`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from toolgrade.importers.tau2_format import (
    Tau2Action,
    Tau2Criteria,
    Tau2Info,
    Tau2PartInfo,
    Tau2Simulation,
    Tau2Task,
)
from toolgrade.importers.tau2_state import state_assertions

AGENT = "assistant"
USER = "user"
#: The tool a solo-mode agent calls to end the episode: it changes nothing.
STOP_TOOL = "done"
#: Reward parts a trajectory cannot recompute (the environment after the run, an LLM's reading).
NOT_REPRODUCIBLE = ("ENV_ASSERTION", "NL_ASSERTION")
#: `info.*_info.implementation` values of tau2's no-user mode.
SOLO_AGENTS = ("llm_agent_solo",)
SOLO_USERS = ("dummy_user",)


@dataclass(frozen=True)
class Mode:
    """How one results file is graded: its write tools, and whether the agent ran alone."""

    writes: frozenset[str]
    solo: bool = False
    #: The user's device tools (solo mode): beyond the route they are free calls, since the
    #: database does not hold the device and tau2's action check ignores extra calls.
    device_tools: frozenset[str] = frozenset()

    def is_route_requestor(self, requestor: str) -> bool:
        """Whether actions of `requestor` are the agent's to take."""
        return requestor == AGENT or (self.solo and requestor == USER)


def criteria(task: Tau2Task) -> Tau2Criteria:
    """A task's `evaluation_criteria` (an empty mapping when there is none)."""
    value = task.get("evaluation_criteria")
    return value if isinstance(value, dict) else {}


def reward_basis(task: Tau2Task) -> list[str]:
    """The task's `reward_basis`; tau2's default is `[DB, COMMUNICATE]`."""
    basis = criteria(task).get("reward_basis")
    if isinstance(basis, list) and all(isinstance(b, str) for b in basis):
        return list(basis)
    return ["DB", "COMMUNICATE"]


def actions(task: Tau2Task) -> list[Tau2Action]:
    """Every reference action of the task, whoever is to take it."""
    return list(criteria(task).get("actions") or [])


def owned_actions(task: Tau2Task, mode: Mode) -> list[Tau2Action]:
    """The reference actions the agent must take itself (the user's too in solo mode)."""
    return [a for a in actions(task) if mode.is_route_requestor(a.get("requestor", AGENT))]


def route_actions(task: Tau2Task, mode: Mode) -> list[Tau2Action]:
    """The actions that are the case's route: the writes alone when the database or the
    environment's end state decides the reward and the actions themselves do not (on the end
    state, the account's writes alone: the device's own actions are means the state checks
    judge), else every action the agent must take."""
    owned = owned_actions(task, mode)
    basis = reward_basis(task)
    if "ACTION" in basis:
        return owned
    if "ENV_ASSERTION" in basis:
        return [a for a in owned if a["name"] in mode.writes - mode.device_tools]
    if "DB" in basis:
        return [a for a in owned if a["name"] in mode.writes]
    return owned


def reference_reads(task: Tau2Task, mode: Mode) -> list[str]:
    """The agent's reference actions left out of the route (free reads), by name."""
    kept = {id(a) for a in route_actions(task, mode)}
    return [a["name"] for a in owned_actions(task, mode) if id(a) not in kept]


def mentions(task: Tau2Task) -> list[str]:
    """What the agent must say: `communicate_info`, when the reward counts it."""
    if "COMMUNICATE" not in reward_basis(task):
        return []
    info = criteria(task).get("communicate_info") or []
    return [str(item) for item in info if str(item).strip()]


def rests_on_env(task: Tau2Task) -> bool:
    """Whether the task's reward checks the environment after the run (`ENV_ASSERTION`)."""
    return "ENV_ASSERTION" in reward_basis(task)


def not_reproduced(task: Tau2Task) -> list[str]:
    """The parts of the task's reward a trajectory cannot recompute: `NL_ASSERTION`, and each
    env assertion whose subject no tool result reports (`ENV_ASSERTION assert_x`)."""
    parts = [b for b in reward_basis(task) if b in NOT_REPRODUCIBLE and b != "ENV_ASSERTION"]
    if rests_on_env(task):
        parts += [f"ENV_ASSERTION {name}" for name in state_assertions(task)[1]]
    return parts


def solo_mode(info: Tau2Info | None, sims: Iterable[Tau2Simulation],
              user_action_names: set[str]) -> bool:
    """Whether the file was recorded in tau2's no-user mode.

    tau2's `info` says so (`agent_info.implementation: llm_agent_solo`, `user_info.
    implementation: dummy_user`); a file without that `info` still shows it in its data: the
    agent itself calls a tool that only the user's actions name, or marks a call `requestor:
    user`.
    """
    if isinstance(info, dict) and (_implementation(info.get("agent_info")) in SOLO_AGENTS
                                   or _implementation(info.get("user_info")) in SOLO_USERS):
        return True
    for sim in sims:
        for message in sim.get("messages") or []:
            if message.get("role") != AGENT:
                continue
            for call in message.get("tool_calls") or []:
                if call.get("requestor") == USER or call.get("name") in user_action_names:
                    return True
    return False


def _implementation(part: Tau2PartInfo | None) -> str | None:
    value = part.get("implementation") if isinstance(part, dict) else None
    return value if isinstance(value, str) else None


def basis_notes(tasks: Sequence[Tau2Task], mode: Mode) -> list[str]:
    """The import summary's lines on what the tasks are rewarded on and how each is graded."""
    counts: Counter[str] = Counter(b for t in tasks for b in reward_basis(t))
    notes = ["reward_basis: " + ", ".join(f"{b} {n}" for b, n in sorted(counts.items()))]
    on_db = sum(1 for t in tasks if {"DB", "ENV_ASSERTION"} & set(reward_basis(t))
                and "ACTION" not in reward_basis(t))
    if on_db:
        notes.append(f"{on_db} tasks rewarded on the database or the end state, not on actions: "
                     "their route is the write actions; reference reads and device actions are "
                     "free (metadata.reference_reads)")
    said = sum(len(mentions(t)) for t in tasks)
    if said:
        notes.append(f"{said} communicate_info items graded as mentions (expected.answer)")
    on_env = sum(1 for t in tasks if rests_on_env(t))
    if on_env:
        notes.append(f"{on_env} tasks rewarded on ENV_ASSERTION: each assertion the device's or "
                     "the account's own tool results report is a state check on the last report "
                     "(final_state); writes the reference does not list are allowed, not "
                     "unauthorized; no write order is graded")
    rest = sum(1 for t in tasks if not_reproduced(t))
    if rest:
        notes.append(f"{rest} tasks rest on ENV_ASSERTION or NL_ASSERTION parts a trajectory "
                     "cannot recompute: named per task in metadata.not_reproduced")
    if mode.solo:
        notes.append("no-user (solo) mode: the agent's own device calls and the user's "
                     "reference actions are graded as the agent's route")
    return notes
