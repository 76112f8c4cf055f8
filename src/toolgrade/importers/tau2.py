"""tau2-bench results files to toolgrade cases and runs.

A results file (`{timestamp, info, tasks, simulations}`) holds the tasks and the recorded
simulations together. Each task is graded on what its `reward_basis` rewards
(`importers/tau2_basis.py`): the write actions for `DB`, every action the agent must take for
`ACTION`, `communicate_info` as mentions for `COMMUNICATE`; actions are compared as tau2
compares them (only the keys in `compare_args` when it is set) and the domain's reads are free
calls. The simulated user's own tool calls (`requestor: user`, on its own device in the telecom
domain) stay in the run as user messages, so no check counts them, except in tau2's no-user
(solo) mode, where the agent makes them and they are its route. tau2's own verdicts
(`reward_info.reward`, each action's `action_match`) go to the run's metadata. The mapping and
where it differs from tau2's reward are in docs/importers.md.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Literal, cast

from toolgrade.errors import InputError, InputProblem
from toolgrade.importers.common import (
    ImportSummary,
    Located,
    build_catalogue,
    literal,
    read_json_object,
    require_items,
    write_outputs,
)
from toolgrade.importers.tau2_basis import (
    AGENT,
    STOP_TOOL,
    USER,
    Mode,
    actions,
    basis_notes,
    mentions,
    not_reproduced,
    reference_reads,
    rests_on_env,
    reward_basis,
    route_actions,
    solo_mode,
)
from toolgrade.importers.tau2_format import (
    Tau2Action,
    Tau2Message,
    Tau2Results,
    Tau2Simulation,
    Tau2Task,
    Tau2ToolCall,
)
from toolgrade.importers.tau2_state import observed_state, state_assertions
from toolgrade.importers.tau_bench import write_order
from toolgrade.importers.tau_domains import domain_writes
from toolgrade.importers.written import (
    CallStepLine,
    CaseLine,
    Catalogue,
    ExpectedLine,
    RunLine,
    RunMetadataLine,
    StepLine,
    Tau2CaseMetadata,
)
from toolgrade.jsonio.bounds import loads_or_none
from toolgrade.jsonio.values import JsonObject, JsonValue

#: A reference argument tau2 does not compare (not in `compare_args`): any value, or none.
NOT_COMPARED: JsonObject = {"one_of": [{"any": True}, {"absent": True}]}


# --- reading and checking the file -----------------------------------------------------------


def _action_problems(item: Located, actions: JsonValue, where: str) -> list[InputProblem]:
    if actions is None:
        return []
    if not isinstance(actions, list):
        return [item.problem(where, "must be a list of actions")]
    problems = []
    for i, action in enumerate(actions):
        ok = (isinstance(action, dict) and isinstance(action.get("name"), str)
              and isinstance(action.get("arguments", {}), dict)
              and action.get("requestor", AGENT) in (AGENT, USER)
              and _compare_args_ok(action.get("compare_args")))
        if not ok:
            problems.append(item.problem(
                f"{where}[{i}]", "expected {name: str, arguments: object, requestor: "
                "assistant|user, compare_args: [str] or null}"))
    return problems


def _compare_args_ok(value: JsonValue) -> bool:
    return value is None or (isinstance(value, list) and all(isinstance(k, str) for k in value))


def task_problems(item: Located) -> list[InputProblem]:
    """Every problem of one task of the file's `tasks`."""
    task = item.value
    if not isinstance(task, dict):
        return [item.problem("tasks[]", "a task must be a JSON object")]
    problems = []
    if not isinstance(task.get("id"), str) or not task["id"]:
        problems.append(item.problem("id", "missing or not a string"))
    criteria = task.get("evaluation_criteria")
    if criteria is not None and not isinstance(criteria, dict):
        problems.append(item.problem("evaluation_criteria", "must be an object or null"))
    elif isinstance(criteria, dict):
        problems += _action_problems(item, criteria.get("actions"), "evaluation_criteria.actions")
    return problems


def simulation_problems(item: Located, task_ids: set[str]) -> list[InputProblem]:
    """Every problem of one simulation: its task, trial, messages and reward_info."""
    sim = item.value
    if not isinstance(sim, dict):
        return [item.problem("simulations[]", "a simulation must be a JSON object")]
    problems = []
    task_id = sim.get("task_id")
    if not isinstance(task_id, str):
        problems.append(item.problem("task_id", "missing or not a string"))
    elif task_id not in task_ids:
        problems.append(item.problem("task_id", f"{task_id!r} is not a task of the file"))
    trial = sim.get("trial", 0)
    if not isinstance(trial, int) or isinstance(trial, bool) or trial < 0:
        problems.append(item.problem("trial", "must be a whole number >= 0"))
    messages = sim.get("messages")
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        problems.append(item.problem("messages", "must be a list of message objects"))
    else:
        problems += _message_problems(item, cast(list[JsonObject], messages))
    info = sim.get("reward_info")
    if info is not None and not isinstance(info, dict):
        problems.append(item.problem("reward_info", "must be an object or null"))
    return problems


def _message_problems(item: Located, messages: list[JsonObject]) -> list[InputProblem]:
    problems = []
    for i, message in enumerate(messages):
        calls = message.get("tool_calls") or []
        if not isinstance(calls, list):
            problems.append(item.problem(f"messages[{i}].tool_calls", "must be a list"))
            continue
        for j, call in enumerate(calls):
            if not (isinstance(call, dict) and isinstance(call.get("name"), str)):
                problems.append(item.problem(f"messages[{i}].tool_calls[{j}]",
                                             "expected {id, name: str, arguments, requestor}"))
    return problems


def _collect(items: list[Located], problems_of: Callable[[Located], list[InputProblem]]) -> None:
    problems = [p for item in items for p in problems_of(item)]
    if problems:
        raise InputError(problems)


# --- tasks to cases --------------------------------------------------------------------------


def expected_args(action: Tau2Action) -> JsonObject:
    """One reference action's arguments as tau2 compares them: with `compare_args`, only those
    keys, exactly; the other keys may hold anything or be left out."""
    keys = action.get("compare_args")
    args = action.get("arguments") or {}
    return {key: literal(value) if keys is None or key in keys else NOT_COMPARED
            for key, value in args.items()}


def task_input(task: Tau2Task) -> str:
    """The user's side of the task as text (what the simulated user was told)."""
    scenario = task.get("user_scenario") or {}
    instructions = scenario.get("instructions") if isinstance(scenario, dict) else None
    if isinstance(instructions, dict):
        fields = (("reason_for_call", instructions.get("reason_for_call")),
                  ("known_info", instructions.get("known_info")),
                  ("unknown_info", instructions.get("unknown_info")),
                  ("task_instructions", instructions.get("task_instructions")))
        return "\n".join(f"{key}: {value}" for key, value in fields if value)
    if instructions is not None:
        return str(instructions)
    return str(task.get("ticket") or task.get("id"))


def build_case(task: Tau2Task, catalogue: Catalogue, domain: str, mode: Mode) -> CaseLine:
    """One tau2 task as a case mapping, graded on what its `reward_basis` rewards."""
    route = route_actions(task, mode)
    expected: ExpectedLine = {
        "selection": {"tools": [a["name"] for a in route], "allow_reads": True,
                      "allow_failed": True}}
    if route:
        expected["arguments"] = [{"tool": a["name"], "args": expected_args(a)} for a in route]
    on_state = rests_on_env(task)
    pairs = write_order([{"name": a["name"]} for a in route], mode.writes)
    if pairs and not on_state:  # on the end state, only what the state shows counts
        expected["ordering"] = {"before": pairs}
    # Rewarded on the end state, writes the reference does not list are allowed: the state
    # assertions say whether they did harm.
    writes = {name for name in mode.writes if name in catalogue} if on_state else set()
    free = sorted(mode.device_tools | writes)
    if free:
        expected["selection"]["allowed"] = free
    said = mentions(task)
    if said:
        expected["answer"] = {"mentions": said}
    expected["state"] = state_assertions(task)[0]
    return {"id": task["id"], "task_type": f"tau2-{domain}", "input": task_input(task),
            "tools": catalogue, "expected": expected,
            "metadata": case_metadata(task, domain, mode, route)}


def case_metadata(task: Tau2Task, domain: str, mode: Mode,
                  route: list[Tau2Action]) -> Tau2CaseMetadata:
    """What the case keeps of the task beside its grading: ids, the user's actions, the reads
    left free, and the reward parts no trajectory can recompute."""
    metadata: Tau2CaseMetadata = {
        "source": "tau2", "domain": domain,
        "action_ids": [a.get("action_id") for a in route],
        "user_actions": [] if mode.solo else [
            {"name": a["name"], "arguments": a.get("arguments") or {}}
            for a in actions(task) if a.get("requestor") == USER],
        "reward_basis": reward_basis(task)}
    reads = reference_reads(task, mode)
    if reads:
        metadata["reference_reads"] = reads
    rest = not_reproduced(task)
    if rest:
        metadata["not_reproduced"] = rest
    if mode.solo:
        metadata["mode"] = "solo"
    return metadata


# --- simulations to runs ---------------------------------------------------------------------


def _content(value: JsonValue) -> JsonValue:
    """A tool result's content, decoded when it is a JSON text."""
    if isinstance(value, str):
        decoded: JsonValue = loads_or_none(value)  # bounded: a hostile string stays text
        return value if decoded is None and value.strip() != "null" else decoded
    return value


def _results_by_id(messages: list[Tau2Message]) -> dict[str, Tau2Message]:
    return {m["id"]: m for m in messages
            if m.get("role") == "tool" and isinstance(m.get("id"), str)}


def _user_call_text(call: Tau2ToolCall, result: Tau2Message | None) -> str:
    args = json.dumps(call.get("arguments") or {}, ensure_ascii=False, sort_keys=True)
    said = "(no result)" if result is None else str(result.get("content"))
    return f"(the user's own tool call on their device) {call['name']}({args}) returned: {said}"


def _caller(call: Tau2ToolCall, role: str | None, solo: bool) -> str | None:
    """Who made a call: its `requestor`; in solo mode every call of the agent's messages is
    the agent's (it holds the user's device tools itself)."""
    if solo and role == AGENT:
        return AGENT
    return call.get("requestor", role)


def build_steps(messages: list[Tau2Message], solo: bool = False) -> tuple[list[StepLine], int]:
    """Normalised steps of a simulation, and how many user tool calls became context."""
    results = _results_by_id(messages)
    used: set[str] = set()
    steps: list[StepLine] = []
    user_calls = 0
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            if message.get("id") not in used:  # a result no call claims: keep it as said
                steps.append({"role": "tool", "content": message.get("content")})
            continue
        speaker = role if isinstance(role, str) and role in (USER, AGENT, "system") else AGENT
        if message.get("content"):
            steps.append({"role": speaker, "content": message["content"]})
        calls = message.get("tool_calls") or []
        n_agent = sum(1 for c in calls if _caller(c, role, solo) == AGENT)
        for call in calls:
            call_id = call.get("id")
            result = results.get(call_id) if isinstance(call_id, str) else None
            if result is not None and isinstance(call_id, str):
                used.add(call_id)
            if _caller(call, role, solo) != AGENT:
                user_calls += 1
                steps.append({"role": "user", "content": _user_call_text(call, result)})
                continue
            step = _call_step(call, result)
            if n_agent > 1:
                step["group"] = index  # issued together: unordered among themselves
            steps.append(step)
    return steps, user_calls


def _call_step(call: Tau2ToolCall, result: Tau2Message | None) -> CallStepLine:
    args = call.get("arguments")
    step: CallStepLine = {"tool": call["name"], "args": args if args is not None else {}}
    call_id = call.get("id")
    if isinstance(call_id, str):
        step["id"] = call_id
    if result is not None:
        status: Literal["ok", "error"] = "error" if result.get("error") is True else "ok"
        step["result"] = {"status": status, "content": _content(result.get("content"))}
    return step


def run_metadata(sim: Tau2Simulation) -> RunMetadataLine:
    """tau2's own verdicts, kept so a user can compare: reward and each action's match."""
    info = sim.get("reward_info") or {}
    meta: RunMetadataLine = {"termination_reason": sim.get("termination_reason")}
    reward = info.get("reward")
    if isinstance(reward, int | float):
        meta["reward"] = reward
    checks = info.get("action_checks")
    if isinstance(checks, list):
        meta["action_checks"] = [
            {"action_id": (c.get("action") or {}).get("action_id"),
             "name": (c.get("action") or {}).get("name"),
             "requestor": (c.get("action") or {}).get("requestor", AGENT),
             "action_match": c.get("action_match")}
            for c in checks if isinstance(c, dict)]
    return meta


def build_run(sim: Tau2Simulation, agent: str, solo: bool = False) -> tuple[RunLine, int]:
    """One simulation as a run mapping with normalised steps; and its user calls kept."""
    steps, user_calls = build_steps(sim["messages"], solo)
    run: RunLine = {"case_id": sim["task_id"], "trial": sim.get("trial", 0), "agent": agent,
           "format": "steps", "steps": steps, "final_state": observed_state(sim),
           "metadata": run_metadata(sim)}
    return run, user_calls


# --- the import ------------------------------------------------------------------------------


def _agent_called(sims: Iterable[Tau2Simulation], solo: bool) -> set[str]:
    return {c["name"] for s in sims for m in s["messages"] for c in m.get("tool_calls") or []
            if _caller(c, m.get("role"), solo) == AGENT}


def _agent_name(whole: Tau2Results, agent: str | None) -> str:
    if agent:
        return agent
    info = whole.get("info")
    agent_info = info.get("agent_info") if isinstance(info, dict) else None
    llm = agent_info.get("llm") if isinstance(agent_info, dict) else None
    return llm if isinstance(llm, str) and llm else "tau2"


def _domain(whole: Tau2Results) -> str:
    info = whole.get("info")
    env = info.get("environment_info") if isinstance(info, dict) else None
    name = env.get("domain_name") if isinstance(env, dict) else None
    return name if isinstance(name, str) and name else "unknown"


def import_tau2(results: Path, out: Path, agent: str | None = None) -> ImportSummary:
    """Import a tau2-bench results file (tasks and simulations) into `out`.

    Writes `out/suite.jsonl` and `out/runs.jsonl`; raises InputError (file:line: field: reason)
    on malformed input, before writing anything.
    """
    top, arrays = read_json_object(results, ("tasks", "simulations"))
    for key in ("tasks", "simulations"):
        if not isinstance(top.get(key), list):
            raise InputError([InputProblem(str(results), 1, key, "must be a list")])
    whole = cast(Tau2Results, top)
    items = require_items(results, arrays["tasks"], "tasks")
    _collect(items, task_problems)
    tasks = [cast(Tau2Task, item.value) for item in items]
    ids = [t["id"] for t in tasks]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise InputError([InputProblem(str(results), None, "tasks", f"duplicate task id {dup!r}")])
    _collect(arrays["simulations"], lambda item: simulation_problems(item, set(ids)))
    sims = [cast(Tau2Simulation, item.value) for item in arrays["simulations"]]
    domain = _domain(whole)
    mode = _mode(whole, tasks, sims, domain)
    called = _agent_called(sims, mode.solo)
    owned = [a for t in tasks for a in actions(t) if mode.is_route_requestor(
        a.get("requestor", AGENT))]
    reference = [(a["name"], a.get("arguments") or {}) for a in owned]
    catalogue = build_catalogue(reference, called, mode.writes)
    cases = [build_case(t, catalogue, domain, mode) for t in tasks]
    name = _agent_name(whole, agent)
    built = [build_run(sim, name, mode.solo) for sim in sims]
    runs = [run for run, _ in built]
    write_outputs(out, cases, runs)
    summary = _summary(out, domain, mode.writes, cases, runs, sum(n for _, n in built))
    return replace(summary, notes=(*summary.notes, *basis_notes(tasks, mode)))


def _mode(whole: Tau2Results, tasks: list[Tau2Task], sims: list[Tau2Simulation],
          domain: str) -> Mode:
    """The file's grading mode: solo or not, and the write tools of what the agent used."""
    user_names = {a["name"] for t in tasks for a in actions(t) if a.get("requestor") == USER}
    solo = solo_mode(whole.get("info"), sims, user_names)
    probe = Mode(frozenset(), solo)
    names = _agent_called(sims, solo) | {
        a["name"] for t in tasks for a in actions(t)
        if probe.is_route_requestor(a.get("requestor", AGENT))}
    # The solo agent's stop tool ends the episode and changes nothing.
    devices = frozenset(user_names | _user_called(sims)) if solo else frozenset()
    return Mode(domain_writes(domain, names) - {STOP_TOOL}, solo, devices)


def _user_called(sims: Iterable[Tau2Simulation]) -> set[str]:
    return {c["name"] for s in sims for m in s["messages"] for c in m.get("tool_calls") or []
            if c.get("requestor") == USER}


def _summary(out: Path, domain: str, writes: frozenset[str], cases: list[CaseLine],
             runs: list[RunLine], user_calls: int) -> ImportSummary:
    rewards = {f"{r['case_id']}#{r['trial']}": float(r["metadata"]["reward"])
               for r in runs if "reward" in r["metadata"]}
    notes = [f"{user_calls} tool calls of the simulated user kept as user messages (context, "
             "not agent calls)"]
    notes.append(f"write tools ({domain}): {', '.join(sorted(writes)) or 'none'}")
    seen = {r["case_id"] for r in runs}
    return ImportSummary(
        out=out, cases=len(cases), runs=len(runs),
        calls=sum(1 for r in runs for s in r["steps"] if "tool" in s),
        missing_runs=sum(1 for c in cases if c["id"] not in seen),
        rewards=rewards, notes=tuple(notes))
