"""tau-bench tasks and recorded trajectories to toolgrade cases and runs.

A task gives the user's instruction, the reference `actions` (tool calls, reads and writes, in
order) and `outputs` (strings the agent must say). A recorded run is tau-bench's JSON array of
`{task_id, trial, reward, info: {task, reward_info}, traj: [OpenAI chat messages]}`. The
route is the write actions (exact arguments, write-after-write order); the domain's reads are
free calls, neither required nor graded, as tau-bench's reward ignores them. The mapping rules
and the differences from tau-bench's own reward are in docs/importers.md.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from itertools import pairwise
from pathlib import Path
from typing import TypeGuard, TypeVar, cast

from toolgrade.errors import InputError, InputProblem
from toolgrade.importers.common import (
    ImportSummary,
    Located,
    build_catalogue,
    literal,
    read_json_array,
    require_items,
    write_outputs,
)
from toolgrade.importers.tau_bench_format import Named, TauBenchAction, TauBenchRun, TauBenchTask
from toolgrade.importers.tau_domains import (
    domain_writes,
    resolve_domain,
    tool_notes,
)
from toolgrade.importers.written import (
    CaseLine,
    Catalogue,
    ExpectedLine,
    RunLine,
    TauBenchCaseMetadata,
)
from toolgrade.jsonio.values import JsonObject, JsonValue

T = TypeVar("T")

#: Where a run's embedded task sits, prefixed to the fields of its problems.
_EMBEDDED = "info.task."

def case_id(domain: str, index: int) -> str:
    """The case id of a task: its position in the task list, as tau-bench's `task_id` is."""
    return f"tau-{domain}-{index}"


def _is_action(action: JsonValue) -> TypeGuard[TauBenchAction]:
    return (isinstance(action, dict) and isinstance(action.get("name"), str)
            and isinstance(action.get("kwargs", {}), dict))


def _action_problems(item: Located, actions: JsonValue, prefix: str) -> list[InputProblem]:
    """Every problem of a task's `actions`: not a list, or each malformed action."""
    if not isinstance(actions, list):
        return [item.problem(f"{prefix}actions", "must be a list")]
    return [item.problem(f"{prefix}actions[{i}]", "expected {name: str, kwargs: object}")
            for i, action in enumerate(actions) if not _is_action(action)]


def task_problems(item: Located, task: JsonValue, prefix: str = "") -> list[InputProblem]:
    """Every problem of one task; `prefix` names where a task embedded in a run sits."""
    if not isinstance(task, dict):
        return [item.problem(prefix.rstrip("."), "a task must be a JSON object")]
    problems: list[InputProblem] = []
    if not isinstance(task.get("instruction"), str):
        problems.append(item.problem(f"{prefix}instruction", "missing or not a string"))
    problems.extend(_action_problems(item, task.get("actions", []), prefix))
    outputs = task.get("outputs", [])
    if not isinstance(outputs, list) or not all(isinstance(o, str) for o in outputs):
        problems.append(item.problem(f"{prefix}outputs", "must be a list of strings"))
    return problems


def _task(item: Located, prefix: str = "") -> TauBenchTask:
    """The item as a task, or every problem it has."""
    problems = task_problems(item, item.value, prefix)
    if problems:
        raise InputError(problems)
    return cast(TauBenchTask, item.value)


def reference_calls(tasks: list[TauBenchTask]) -> list[tuple[str, JsonObject]]:
    """Every reference action of the tasks as (name, kwargs), for the catalogue."""
    return [(a["name"], a.get("kwargs", {})) for t in tasks for a in t.get("actions", [])]


def write_order(actions: Sequence[Named], writes: frozenset[str]) -> list[list[str]]:
    """`before` pairs keeping consecutive write actions in their reference order.

    A pair [a, b] holds when every call of b comes after some call of a, so a pair the
    reference itself breaks (writes that alternate, a b a b: the first a has no b before it for
    [b, a]) is left out: the reference must satisfy its own constraints.
    """
    names = [a["name"] for a in actions if a["name"] in writes]
    pairs: list[list[str]] = []
    for first, second in pairwise(names):
        if first != second and [first, second] not in pairs and _holds(names, first, second):
            pairs.append([first, second])
    return pairs


def _holds(names: list[str], first: str, second: str) -> bool:
    """Whether every `second` in `names` comes after some `first`."""
    return all(first in names[:i] for i, name in enumerate(names) if name == second)


def write_args(kwargs: Mapping[str, JsonValue]) -> JsonObject:
    """A write action's arguments as exact references; a list of plain values (`item_ids`) is
    compared as a multiset, since the database tau-bench compares stores such lists sorted
    (returns, exchanges) or pairs them position by position (item modifications)."""
    return {key: {"unordered": value} if _plain_list(value) else literal(value)
            for key, value in kwargs.items()}


def _plain_list(value: JsonValue) -> bool:
    return (isinstance(value, list) and len(value) > 1
            and not any(isinstance(v, dict | list) for v in value))


def build_case(
    cid: str, task: TauBenchTask, catalogue: Catalogue, domain: str, writes: frozenset[str],
) -> CaseLine:
    """One task as a case mapping: the write actions are the route, reads are free."""
    actions = task.get("actions", [])
    write_actions = [a for a in actions if a["name"] in writes]
    # A task with no write expects none (`tools: []`), reads still free: never `no_tool`,
    # which would fail every lookup the agent makes before deciding nothing needs changing.
    expected: ExpectedLine = {
        "selection": {"tools": [a["name"] for a in write_actions], "allow_reads": True,
                      "allow_failed": True}}
    if write_actions:
        expected["arguments"] = [{"tool": a["name"], "args": write_args(a.get("kwargs", {}))}
                                 for a in write_actions]
    pairs = write_order(actions, writes)
    if pairs:
        expected["ordering"] = {"before": pairs}
    outputs = [o for o in task.get("outputs", []) if o]
    if outputs:
        # tau-bench's reward needs each output said (lower case, commas dropped): a mention.
        expected["answer"] = {"mentions": outputs}
    metadata: TauBenchCaseMetadata = {
        "source": "tau-bench", "domain": domain, "outputs": list(task.get("outputs", [])),
        "reference_reads": [a["name"] for a in actions if a["name"] not in writes]}
    if task.get("user_id"):
        metadata["user_id"] = task.get("user_id")
    if task.get("annotator"):
        metadata["annotator"] = task.get("annotator")
    return {
        "id": cid,
        "task_type": f"tau-{domain}",
        "input": task["instruction"],
        "tools": catalogue,
        "expected": expected,
        "metadata": metadata,
    }


def _called_names(messages: list[JsonValue]) -> set[str]:
    names: set[str] = set()
    for message in messages:
        if isinstance(message, dict):
            calls = message.get("tool_calls")
            for call in calls if isinstance(calls, list) else []:
                function = call.get("function") if isinstance(call, dict) else None
                if isinstance(function, dict) and isinstance(name := function.get("name"), str):
                    names.add(name)
    return names


def _task_key(task: TauBenchTask) -> str:
    return json.dumps([task.get("instruction"), task.get("actions", [])], sort_keys=True)


class TaskIndex:
    """The tasks the runs point at: the tasks file's, plus tasks embedded only in runs.

    A run is matched to a task by its embedded `info.task` (instruction and actions) when it has
    one, else by `task_id` as a position in the tasks file. An embedded task the tasks file
    lacks (runs recorded on another task list) becomes an extra case `tau-<domain>-run-<task_id>`
    instead of being graded against the wrong reference.
    """

    def __init__(self, tasks: list[TauBenchTask], domain: str) -> None:
        self.domain = domain
        self.entries: list[tuple[str, TauBenchTask]] = [
            (case_id(domain, i), t) for i, t in enumerate(tasks)]
        self._by_key = {_task_key(t): cid for cid, t in self.entries}
        self.extra = 0

    def case_for(self, item: Located, task_id: int, embedded: JsonValue) -> str:
        """The case id of a run, registering an embedded task the tasks file lacks."""
        if isinstance(embedded, dict):
            task = _task(Located(embedded, item.file, item.line), _EMBEDDED)
            key = _task_key(task)
            if key not in self._by_key:
                cid = f"tau-{self.domain}-run-{task_id}"
                while any(cid == c for c, _ in self.entries):
                    cid += "b"  # same task_id, different embedded task: keep ids unique
                self.entries.append((cid, task))
                self._by_key[key] = cid
                self.extra += 1
            return self._by_key[key]
        if not 0 <= task_id < len(self.entries) - self.extra:
            raise InputError([item.problem("task_id", f"{task_id} is not a task of the tasks "
                                                      "file and the run embeds no task")])
        return case_id(self.domain, task_id)


def _embedded_task(data: JsonObject) -> JsonValue:
    info = data.get("info")
    return info.get("task") if isinstance(info, dict) else None


def run_problems(item: Located, data: JsonObject) -> list[InputProblem]:
    """Every problem of one recorded run: task_id, traj and the task it embeds."""
    problems: list[InputProblem] = []
    task_id = data.get("task_id")
    if not isinstance(task_id, int) or isinstance(task_id, bool):
        problems.append(item.problem("task_id", "missing or not an integer"))
    if not isinstance(data.get("traj"), list):
        problems.append(item.problem("traj", "must be a list of chat messages"))
    embedded = _embedded_task(data)
    if isinstance(embedded, dict):
        problems.extend(task_problems(item, embedded, _EMBEDDED))
    return problems


def build_run(item: Located, index: TaskIndex, agent: str) -> RunLine:
    """One recorded tau-bench run as a run mapping with OpenAI `messages`."""
    data = item.value
    if not isinstance(data, dict):
        raise InputError([item.problem("", "a run must be a JSON object")])
    problems = run_problems(item, data)
    if problems:
        raise InputError(problems)
    recorded = cast(TauBenchRun, data)
    trial = recorded.get("trial", 0)
    run: RunLine = {
        "case_id": index.case_for(item, recorded["task_id"], _embedded_task(data)),
        "trial": trial if isinstance(trial, int) and trial >= 0 else 0,
        "agent": agent,
        "format": "openai",
        "messages": recorded["traj"],
    }
    reward = recorded.get("reward")
    if isinstance(reward, int | float):
        run["metadata"] = {"reward": reward}
    return run


def _collect(items: list[Located], build: Callable[[Located], T]) -> list[T]:
    built: list[T] = []
    problems: list[InputProblem] = []
    for item in items:
        try:
            built.append(build(item))
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    return built


def _count_calls(runs: list[RunLine]) -> int:
    # The runs were read by the OpenAI adapter first (`write_outputs`): `tool_calls` is a list.
    return sum(len(calls) for r in runs for m in r["messages"]
               if isinstance(m, dict) and isinstance(calls := m.get("tool_calls"), list))


def _raw_names(items: list[Located]) -> tuple[set[str], set[str]]:
    """The tool names of the runs' embedded tasks and of their calls, read leniently (before
    the runs are checked): they decide the domain, which the case ids need."""
    reference: set[str] = set()
    called: set[str] = set()
    for item in items:
        data: JsonObject = item.value if isinstance(item.value, dict) else {}
        embedded = _embedded_task(data)
        actions = embedded.get("actions") if isinstance(embedded, dict) else None
        if isinstance(actions, list):
            reference |= {a["name"] for a in actions if _is_action(a)}
        traj = data.get("traj")
        called |= _called_names(traj) if isinstance(traj, list) else set()
    return reference, called


def import_tau_bench(
    tasks: Path,
    trajectories: Path | None,
    out: Path,
    agent: str = "tau-bench",
    domain: str | None = None,
) -> ImportSummary:
    """Import tau-bench tasks (and optionally recorded runs) into `out`.

    The domain is inferred from the tool names of the tasks' actions (else the runs' calls)
    unless `domain` names it; a `domain` the data contradicts is an InputError naming the
    tools that do not belong. Writes `out/suite.jsonl` and `out/runs.jsonl`; raises
    InputError (file:line: reason) on malformed input, before writing anything.
    """
    items = require_items(tasks, read_json_array(tasks), "tasks")
    task_list = _collect(items, _task)
    raw_runs = [] if trajectories is None else (
        require_items(trajectories, read_json_array(trajectories), "trajectories"))
    embedded, run_calls = _raw_names(raw_runs)
    reference = {name for name, _ in reference_calls(task_list)}
    resolved = resolve_domain(domain, reference | embedded, run_calls, str(tasks))
    index = TaskIndex(task_list, resolved)
    runs = _collect(raw_runs, lambda item: build_run(item, index, agent))
    called = set().union(*(_called_names(r["messages"]) for r in runs)) if runs else set()
    entries = [t for _, t in index.entries]
    seen_names = called | {a["name"] for t in entries for a in t.get("actions", [])}
    writes = domain_writes(resolved, seen_names)
    catalogue = build_catalogue(reference_calls(entries), called, writes)
    cases = [build_case(cid, t, catalogue, resolved, writes) for cid, t in index.entries]
    write_outputs(out, cases, runs)
    rewards = {f"{r['case_id']}#{r['trial']}": float(r["metadata"]["reward"])
               for r in runs if "metadata" in r}
    notes = tool_notes(resolved, domain is not None, writes, seen_names)
    if index.extra:
        notes.append(f"{index.extra} runs embed a task the tasks file lacks: imported as extra "
                     f"cases tau-{resolved}-run-<task_id>")
    mentions = sum(len(t.get("outputs", [])) for t in entries)
    if mentions:
        notes.append(f"{mentions} required outputs graded as mentions (expected.answer)")
    seen = {r["case_id"] for r in runs}
    missing = sum(1 for c in cases if c["id"] not in seen) if trajectories is not None else 0
    return ImportSummary(out=out, cases=len(cases), runs=len(runs), calls=_count_calls(runs),
                         missing_runs=missing, rewards=rewards, notes=tuple(notes))
