"""Count what the grounding test flags, per source of runs: its false alarms on good runs.

    python scripts/grounding_false_alarms.py --suite S --runs R [--suite S2 --runs R2 ...]
    python scripts/grounding_false_alarms.py --reference-calls SUITE.jsonl   # e.g. a BFCL import
    python scripts/grounding_false_alarms.py --tau2 telecom_gpt-4o_results.json

`--suite/--runs`: a toolgrade suite and its runs, counted per agent. `--reference-calls`: each
case's expected calls made as a run (the first acceptable value of each field), i.e. an agent
that is exactly right: whatever is flagged there is a false alarm. `--tau2`: the recorded
simulations of a tau2-bench results file (the agent's calls; the case input left empty, as the
agent saw only the conversation). Prints, per source: runs, values tested, values flagged.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from toolgrade.checks.grounding import DEFAULT_KINDS, ungrounded_values, value_kind
from toolgrade.loaders import iter_runs, load_suite, run_files
from toolgrade.models import Case, Message, Step, ToolCall, ToolResult, Trajectory

Pairs = Iterable[tuple[Case, Trajectory]]


def _leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


def report(name: str, pairs: Pairs) -> None:
    """One line per source, then up to 8 flagged values."""
    runs = tested = flagged = flagged_runs = 0
    examples: list[tuple[str, str, str, Any]] = []
    for case, run in pairs:
        runs += 1
        calls = [s for s in run.steps if isinstance(s, ToolCall)]
        values = [v for c in calls for v in _leaves(c.args)]
        tested += sum(value_kind(v, DEFAULT_KINDS) is not None for v in values)
        found = ungrounded_values(case, run)
        flagged += len(found)
        flagged_runs += bool(found)
        examples += [(case.id, u.tool, u.field, u.value) for u in found]
    print(f"{name}: {runs} runs, {tested} values tested, {flagged} flagged in {flagged_runs} runs")
    for example in examples[:8]:
        print("    ", example)


def suite_runs(suite_path: Path, runs_path: Path) -> dict[str, list[tuple[Case, Trajectory]]]:
    """A toolgrade suite's runs, by agent."""
    suite = load_suite(suite_path)
    by_agent: dict[str, list[tuple[Case, Trajectory]]] = {}
    for _, _, run, _ in iter_runs(run_files([runs_path], None)):
        if run is not None:
            by_agent.setdefault(str(run.agent), []).append((suite.cases[run.case_id], run))
    return by_agent


def _first(comparator: Any) -> Any:
    """The first value a reference field accepts."""
    if isinstance(comparator, dict):
        for key in ("exact", "casefold"):
            if key in comparator:
                return comparator[key]
        if "one_of" in comparator:
            options = [
                o for o in comparator["one_of"] if not (isinstance(o, dict) and "absent" in o)
            ]
            return _first(options[0]) if options else None
        return {k: _first(v) for k, v in comparator.items()}
    return comparator


def reference_call_runs(suite_path: Path) -> Pairs:
    """Each case with a run making exactly its expected calls."""
    for case in load_suite(suite_path).cases.values():
        calls: list[Step] = [
            ToolCall(tool=r.tool, args={k: _first(v) for k, v in r.args.items()})
            for r in case.expected.arguments or []
        ]
        yield case, Trajectory(case_id=case.id, steps=calls)


def tau2_runs(path: Path) -> Pairs:
    """The agent's side of each recorded tau2 simulation."""
    data = json.loads(path.read_text(encoding="utf-8"))
    for sim in data["simulations"]:
        steps: list[Step] = []
        by_id: dict[str, int] = {}
        for m in sim["messages"]:
            if m["role"] == "tool":
                at = by_id.get(m.get("id", ""))
                if at is not None:
                    result = ToolResult(status="error" if m.get("error") else "ok",
                                        content=m.get("content"))
                    steps[at] = steps[at].model_copy(update={"result": result})
                continue
            if m.get("content"):
                steps.append(Message(role=m["role"], content=m["content"]))
            for call in m.get("tool_calls") or []:
                if call.get("requestor", "assistant") == "assistant":
                    by_id[call["id"]] = len(steps)
                    steps.append(ToolCall(tool=call["name"], args=call["arguments"] or {}))
        case_id = str(sim["task_id"])
        yield Case(id=case_id), Trajectory(case_id=case_id, steps=steps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", type=Path, action="append", default=[])
    parser.add_argument("--runs", type=Path, action="append", default=[])
    parser.add_argument("--reference-calls", type=Path, action="append", default=[])
    parser.add_argument("--tau2", type=Path, action="append", default=[])
    args = parser.parse_args()
    for suite, runs in zip(args.suite, args.runs, strict=True):
        for agent, pairs in sorted(suite_runs(suite, runs).items()):
            report(f"{suite} [{agent}]", pairs)
    for suite in args.reference_calls:
        report(f"{suite} [reference calls]", reference_call_runs(suite))
    for path in args.tau2:
        report(f"{path} [recorded simulations]", tau2_runs(path))


if __name__ == "__main__":
    main()
