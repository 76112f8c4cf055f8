"""Cut candidate recovery_quality items from recorded tau2-bench runs, for a person to label.

A candidate is one tool error the agent met in a simulation: a call whose recorded result has
`error: true` (the tool refused, a precondition failed, a record was not found). The simulated
user's own device calls are left out: a user-side obstacle is not a fault of the agent's tools.
Each candidate holds what `toolgrade run` gives the judge (`checks/recovery.judge_recovery`):

- `task`: the case input the tau2 importer builds (what the simulated user was told);
- `fault`: `{tool, nth, kind: error, content}`, the error text as the agent saw it;
- `transcript`: the steps after the fault as the importer normalises them (real arguments and
  ids, contents cut past MAX_CONTENT_CHARS with the marker of scripts/cut_tau2_items.py),
  numbered from 1, up to ITEM_BUDGET characters and ending on an agent message;
- `stage`: what the recovery check's `stage_of` finds for that fault on the run cut where the
  transcript ends, with `escalate_with: transfer_to_human_agents` (tau2's hand-over tool) and
  the default retry ceiling, so the stage never rests on steps the judge is not shown.

Candidates carry tau2's `reward` as a hint and no label: the labeller reads each one, writes
`label` and a `note` saying why, and keeps or drops it.
`id` = `<run file>-<simulation>-<message index of the error>`.

    python scripts/cut_tau2_recovery.py ../shared/fixtures/tau2-runs/*.json --out candidates.jsonl
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from toolgrade.checks.recovery import Fault, stage_of, step_json
from toolgrade.importers.tau2 import build_steps, task_input
from toolgrade.loaders.runs import parse_line
from toolgrade.models import RecoveryExpectation, ToolCall, Trajectory

#: A step's content longer than this is cut: real-length, but several steps fit beside the
#: template in the local judge's 4096-token window.
MAX_CONTENT_CHARS = 1200
#: An item (one JSON line, before its label and note) stays under this many characters (~1,700
#: tokens), so a rendered item leaves room for the instructions and the answer.
ITEM_BUDGET = 6000
#: tau2's hand-over tool in every domain: calling it after a fault is an escalation.
ESCALATION = "transfer_to_human_agents"


def cut(text: str, limit: int = MAX_CONTENT_CHARS) -> str:
    """`text`, or its first `limit` characters with the marker saying how many were cut."""
    if len(text) <= limit:
        return text
    return text[:limit] + f" ... [{len(text) - limit} characters cut]"


def _as_text(content: Any) -> str:
    """A step's content as the agent read it: the importer decodes JSON results, this
    writes them back as one line of JSON."""
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)


def _judge_step(number: int, step: ToolCall | Any) -> dict[str, Any]:
    """One step in the judge's form (`step_json`), numbered from 1, its content cut."""
    out = dict(step_json(number, step))
    if "content" in out and out["content"] is not None:
        out["content"] = cut(_as_text(out["content"]))
    return out


def _window(run: Trajectory, after: int, fixed: dict[str, Any]) -> list[dict[str, Any]]:
    """The steps after index `after`: all of them when they fit ITEM_BUDGET, else as many as
    fit, ending on an agent message."""
    rest = run.steps[after + 1:]
    steps: list[dict[str, Any]] = []
    best: list[dict[str, Any]] = []
    for number, step in enumerate(rest, start=1):
        steps.append(_judge_step(number, step))
        if len(json.dumps({**fixed, "transcript": steps}, ensure_ascii=False)) > ITEM_BUDGET:
            return best
        if steps[-1].get("role") == "assistant":
            best = list(steps)
    return steps  # the run ended within the budget: all of it, even without a last reply


def stage_at(run: Trajectory, fault_step: int, end_step: int) -> str:
    """The recovery check's stage for the error at `fault_step`, on the run cut at `end_step`."""
    calls = [(i, s) for i, s in enumerate(run.steps[:end_step + 1]) if isinstance(s, ToolCall)]
    position = next(p for p, (i, _) in enumerate(calls) if i == fault_step)
    call = calls[position][1]
    nth = sum(1 for _, c in calls[:position + 1] if c.tool == call.tool)
    content = call.result.content if call.result is not None else None
    fault = Fault(call.tool, nth, "error", content, "observed", position)
    rec = RecoveryExpectation(escalate_with=ESCALATION, grade_observed_errors=True)
    return stage_of(fault, calls, rec).stage


def item_inputs(run: Trajectory, fault_step: int, task: str, steps: int | None = None
                ) -> dict[str, Any]:
    """The judge's inputs for the error at `fault_step`: the transcript is the window that fits
    the budget, or its first `steps` steps (a labeller who shortens it gets the stage of the
    shorter run)."""
    call = run.steps[fault_step]
    assert isinstance(call, ToolCall) and call.result is not None  # an error has a result
    nth = sum(1 for s in run.steps[:fault_step + 1]
              if isinstance(s, ToolCall) and s.tool == call.tool)
    fault = {"tool": call.tool, "nth": nth, "kind": "error",
             "content": _as_text(call.result.content)}
    fixed: dict[str, Any] = {"task": task, "fault": fault, "stage": "missing_escalation"}
    transcript = _window(run, fault_step, fixed)[:steps]
    stage = stage_at(run, fault_step, fault_step + len(transcript))
    return {**fixed, "stage": stage, "transcript": transcript}


def run_of(simulation: dict[str, Any], solo: bool = False) -> Trajectory:
    """One simulation as a toolgrade run, through the tau2 importer's step builder."""
    steps, _ = build_steps(simulation["messages"], solo)
    run, problems = parse_line({"case_id": simulation["task_id"], "format": "steps",
                                "steps": steps}, "tau2", 1)
    if run is None:
        raise SystemExit(f"simulation {simulation['id']}: {problems}")
    return run


def candidates(path: Path) -> Iterator[dict[str, Any]]:
    """One candidate per tool error the agent met, in every simulation of one results file."""
    data = json.loads(path.read_text(encoding="utf-8"))
    tasks = {task["id"]: task for task in data["tasks"]}
    solo = "no-user" in path.stem
    for number, simulation in enumerate(data["simulations"]):
        run = run_of(simulation, solo)
        task = task_input(tasks[simulation["task_id"]])
        turns = {m["id"]: t for t, m in enumerate(simulation["messages"])
                 if m.get("role") == "tool" and m.get("error") is True}
        for index, step in enumerate(run.steps):
            if isinstance(step, ToolCall) and step.id in turns and step.failed:
                yield {"id": f"{path.stem}-{number:02d}-{turns[step.id]:03d}",
                       "inputs": item_inputs(run, index, task),
                       "reward": (simulation.get("reward_info") or {}).get("reward")}


def main() -> None:
    """Write the candidates of the given files."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    lines = [json.dumps(c, ensure_ascii=False) for p in args.runs for c in candidates(p)]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} candidates in {args.out}")


if __name__ == "__main__":
    main()
