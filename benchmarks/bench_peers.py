"""Ours against pydantic-evals, agentevals and DeepEval on the same runs, in one process.

    .venv-bench/bin/python benchmarks/bench_peers.py SUITE RUNS

Every contestant is timed the same way: from the raw JSON line of a run to its verdicts
(json.loads, building its input objects, evaluating), summed per run with perf_counter, all in
this process over the same lines. Ours is the four deterministic checks together. Each peer
runs the evaluator its users would pick for the same question:

- pydantic-evals: `TrajectoryMatch` (names only) in the case's mode, on a span tree built from
  the run (what its evaluators read), plus `ToolCorrectness` for the multiset.
- agentevals: `create_trajectory_match_evaluator("unordered", tool_args_match_mode="exact")`.
- DeepEval: `ToolCorrectnessMetric` with `INPUT_PARAMETERS`, given a model stub that raises
  if called, so the run proves no model is asked.

Two baselines are timed beside them: json.loads plus a Counter P/R/F1 (the cheapest tool-call
metric there is) and `lean_bound.py`'s four bare verdicts (a ceiling for any redesign of ours).
Ours' reading of each line is also summed apart (the floor, inside ours' span, not run twice),
so that the time a target leaves for the four checks is measured in this same pass.

Agreement is computed on an untimed pass, only where definitions coincide (see README).
A peer that cannot be imported is reported as skipped with the reason.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import OFFLINE_ENV, Clock, counter_prf, iter_lines, mode_held, rate, selection_passed
from lean_bound import case_plan, verdicts

os.environ.update(OFFLINE_ENV)
warnings.filterwarnings("ignore")

from toolgrade.checks import default_checks  # noqa: E402
from toolgrade.loaders import load_suite  # noqa: E402
from toolgrade.loaders.runs import read_line  # noqa: E402
from toolgrade.scoring.runner import grade_trajectory  # noqa: E402

#: Not a grader: the four bare verdicts of `lean_bound.py`, a ceiling for any redesign.
LEAN_BOUND = "lean bound: 4 bare verdicts (not a grader)"
#: Not a grader either: the part of ours' timed span that reads and validates the line, so that
#: what is left for the four checks under each target is measured in the same pass.
FLOOR = "toolgrade read+validate only (the floor)"

Evaluate = Callable[[dict[str, Any], list[dict[str, Any]], str], dict[str, bool]]


def calls_of(run: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool-call steps of a raw run line, in order."""
    return [s for s in run["steps"] if "tool" in s]


# -- pydantic-evals ------------------------------------------------------------------------------

def pydantic_evals_contestant() -> Evaluate:
    """TrajectoryMatch in the case's mode plus ToolCorrectness, over a span tree of the run."""
    from datetime import datetime, timedelta

    from pydantic_evals.evaluators import ToolCorrectness, TrajectoryMatch
    from pydantic_evals.evaluators.context import EvaluatorContext
    from pydantic_evals.otel.span_tree import SpanNode, SpanTree

    base = datetime(2024, 1, 1)

    def evaluate(run: dict[str, Any], ref: list[dict[str, Any]], mode: str) -> dict[str, bool]:
        nodes = []
        for i, c in enumerate(calls_of(run)):
            at = base + timedelta(microseconds=i)
            failed = (c.get("result") or {}).get("status") == "error"
            nodes.append(SpanNode(
                name=f"execute_tool {c['tool']}", trace_id=1, span_id=i + 1, parent_span_id=None,
                start_timestamp=at, end_timestamp=at,
                attributes={"gen_ai.tool.name": c["tool"],
                            "gen_ai.tool.call.arguments": json.dumps(c.get("args"))},
                status="error" if failed else "ok"))
        ctx: EvaluatorContext[object, object, object] = EvaluatorContext(
            name=run["case_id"], inputs=None, metadata=None, expected_output=None, output=None,
            duration=0.0, _span_tree=SpanTree(roots=[], nodes_by_id={}), attributes={},
            metrics={})
        ctx._span_tree.add_spans(nodes)  # type: ignore[union-attr]
        names = [c["tool"] for c in ref]
        # Failed attempts are calls too (ours counts them): include_failed=True.
        traj = TrajectoryMatch(expected_trajectory=names, order=mode,  # type: ignore[arg-type]
                               include_failed=True).evaluate(ctx)
        multiset = ToolCorrectness(expected_tools=names, include_failed=True).evaluate(ctx)
        return {"mode_held": traj.value == 1.0, "multiset_equal": bool(multiset.value)}

    return evaluate


# -- agentevals ----------------------------------------------------------------------------------

def openai_messages(calls: list[dict[str, Any]], prompt: str = "") -> list[dict[str, Any]]:
    """A run as OpenAI chat messages: one assistant message per parallel group."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
    i = 0
    while i < len(calls):
        group = calls[i].get("group")
        j = i + 1
        while group is not None and j < len(calls) and calls[j].get("group") == group:
            j += 1
        block = calls[i:j]
        messages.append({"role": "assistant", "content": "", "tool_calls": [
            {"id": f"t{i + k}", "type": "function",
             "function": {"name": c["tool"], "arguments": json.dumps(c.get("args") or {})}}
            for k, c in enumerate(block)]})
        messages += [{"role": "tool", "tool_call_id": f"t{i + k}", "content": "ok"}
                     for k in range(len(block))]
        i = j
    messages.append({"role": "assistant", "content": "done"})
    return messages


def agentevals_contestant(args_mode: str) -> Evaluate:
    """Trajectory match: `unordered` for the multiset, `strict` for exact order."""
    from agentevals.trajectory.match import create_trajectory_match_evaluator

    unordered = create_trajectory_match_evaluator(trajectory_match_mode="unordered",
                                                  tool_args_match_mode=args_mode)  # type: ignore[arg-type]
    strict = create_trajectory_match_evaluator(trajectory_match_mode="strict",
                                               tool_args_match_mode=args_mode)  # type: ignore[arg-type]

    def evaluate(run: dict[str, Any], ref: list[dict[str, Any]], mode: str) -> dict[str, bool]:
        outputs, reference = openai_messages(calls_of(run)), openai_messages(ref)
        out = {"multiset_equal": bool(unordered(outputs=outputs,
                                                reference_outputs=reference)["score"])}
        if mode == "exact":
            out["mode_held"] = bool(strict(outputs=outputs, reference_outputs=reference)["score"])
        return out

    return evaluate


def agentevals_timed() -> Evaluate:
    """The issue's reference configuration: unordered match with exact arguments."""
    from agentevals.trajectory.match import create_trajectory_match_evaluator

    unordered = create_trajectory_match_evaluator(trajectory_match_mode="unordered",
                                                  tool_args_match_mode="exact")

    def evaluate(run: dict[str, Any], ref: list[dict[str, Any]], mode: str) -> dict[str, bool]:
        result = unordered(outputs=openai_messages(calls_of(run)),
                           reference_outputs=openai_messages(ref))
        return {"multiset_equal": bool(result["score"])}

    return evaluate


# -- DeepEval ------------------------------------------------------------------------------------

def deepeval_contestant(with_params: bool) -> Evaluate:
    """ToolCorrectnessMetric, deterministic, with a model stub that fails the run if called."""
    from deepeval.metrics import ToolCorrectnessMetric
    from deepeval.models import DeepEvalBaseLLM
    from deepeval.test_case import LLMTestCase, ToolCall, ToolCallParams

    class NoModel(DeepEvalBaseLLM):  # type: ignore[misc]
        """Stands in for the judge model; any call is a benchmark error."""

        def __init__(self) -> None:
            self.name = "no-model"

        def load_model(self, *args: Any, **kwargs: Any) -> Any:
            return self

        def generate(self, *args: Any, **kwargs: Any) -> str:
            raise RuntimeError("DeepEval asked a model during ToolCorrectness")

        async def a_generate(self, *args: Any, **kwargs: Any) -> str:
            raise RuntimeError("DeepEval asked a model during ToolCorrectness")

        def get_model_name(self, *args: Any, **kwargs: Any) -> str:
            return self.name

    params = [ToolCallParams.INPUT_PARAMETERS] if with_params else []
    model = NoModel()

    def metric(**kw: Any) -> Any:
        return ToolCorrectnessMetric(model=model, evaluation_params=params, async_mode=False,
                                     include_reason=False, threshold=1.0, **kw)

    unordered, ordered, exact = metric(), metric(should_consider_ordering=True), \
        metric(should_exact_match=True)

    def evaluate(run: dict[str, Any], ref: list[dict[str, Any]], mode: str) -> dict[str, bool]:
        called = [ToolCall(name=c["tool"], input_parameters=c.get("args")) for c in calls_of(run)]
        expected = [ToolCall(name=c["tool"], input_parameters=c["args"]) for c in ref]
        case = LLMTestCase(input="", actual_output="", tools_called=called,
                           expected_tools=expected)
        out = {"superset": unordered.measure(case, _show_indicator=False) == 1.0}
        if mode in ("exact", "in_order"):
            chosen = exact if mode == "exact" else ordered
            out["mode_held"] = chosen.measure(case, _show_indicator=False) == 1.0
        return out

    return evaluate


# -- the benchmark -------------------------------------------------------------------------------

def load_contestants() -> tuple[dict[str, tuple[Evaluate, Evaluate]], dict[str, str]]:
    """Peer name -> (timed evaluator, agreement evaluator); skipped peers with the reason."""
    builders: dict[str, Callable[[], tuple[Evaluate, Evaluate]]] = {
        "pydantic-evals": lambda: (pydantic_evals_contestant(), pydantic_evals_contestant()),
        "agentevals": lambda: (agentevals_timed(), agentevals_contestant("ignore")),
        "deepeval": lambda: (deepeval_contestant(True), deepeval_contestant(False)),
    }
    out, skipped = {}, {}
    for name, build in builders.items():
        try:
            out[name] = build()
        except Exception as exc:  # an uninstallable or broken peer is reported, not fatal
            skipped[name] = f"{type(exc).__name__}: {exc}"
    return out, skipped


def run(suite_path: Path, runs_path: Path) -> dict[str, Any]:
    """Time everyone over the same lines; then the agreement pass."""
    suite = load_suite(suite_path)
    refs = {cid: c.metadata["reference_calls"] for cid, c in suite.cases.items()}
    modes = {cid: c.expected.ordering.mode if c.expected.ordering else None
             for cid, c in suite.cases.items()}
    lines = list(iter_lines(runs_path))
    plans = {cid: case_plan(case) for cid, case in suite.cases.items()}
    contestants, skipped = load_contestants()
    checks = default_checks()
    clock = Clock()
    ours: list[tuple[str, bool | None, bool | None]] = []
    start = time.perf_counter()
    for k, line in enumerate(lines, start=1):
        t0 = time.perf_counter()
        trajectory, _ = read_line(line, runs_path, k)
        read = time.perf_counter()
        assert trajectory is not None, f"line {k}: {_}"
        case = suite.cases[trajectory.case_id]
        record = grade_trajectory(case, trajectory, checks, None, suite.base_dir)
        clock.totals["toolgrade"] += time.perf_counter() - t0
        clock.totals[FLOOR] += read - t0
        ours.append((trajectory.case_id, selection_passed(record), mode_held(record)))
        t0 = time.perf_counter()
        value = json.loads(line)
        counter_prf([c["tool"] for c in refs[value["case_id"]]],
                    [c["tool"] for c in calls_of(value)])
        clock.totals["naive json+Counter P/R/F1"] += time.perf_counter() - t0
        t0 = time.perf_counter()
        verdicts(line, plans)
        clock.totals[LEAN_BOUND] += time.perf_counter() - t0
        for name, (timed, _) in contestants.items():
            t0 = time.perf_counter()
            value = json.loads(line)
            timed(value, refs[value["case_id"]], modes[value["case_id"]] or "in_order")
            clock.totals[name] += time.perf_counter() - t0
    wall = time.perf_counter() - start
    n = len(lines)
    result: dict[str, Any] = {
        "n": n, "wall_s": wall, "skipped": skipped,
        "runs_per_s": {name: rate(n, s) for name, s in clock.totals.items()},
    }
    result["agreement"] = agreement(lines, ours, refs, modes, contestants)
    return result


def agreement(lines: list[str], ours: list[tuple[str, bool | None, bool | None]],
              refs: dict[str, Any], modes: dict[str, Any],
              contestants: dict[str, tuple[Evaluate, Evaluate]]) -> dict[str, Any]:
    """Per peer and figure: runs compared, agreeing, and counts of each disagreement kind."""
    tallies: dict[str, Counter[str]] = {}
    for line, (case_id, sel, held) in zip(lines, ours, strict=True):
        value = json.loads(line)
        mode = modes[case_id]
        for name, (_, judge) in contestants.items():
            theirs = judge(value, refs[case_id], mode or "in_order")
            tally = tallies.setdefault(name, Counter())
            for figure, verdict in theirs.items():
                ours_value = sel if figure in ("multiset_equal", "superset") else held
                key = f"{figure}:{mode}" if figure == "mode_held" else f"{figure}~selection"
                tally[key + ":n"] += 1
                tally[key + ":agree"] += verdict == ours_value
                if verdict != ours_value:
                    tally[key + f":ours_{ours_value}_theirs_{verdict}"] += 1
    return {name: dict(sorted(t.items())) for name, t in tallies.items()}


def main() -> None:
    """Command line: print the JSON figures."""
    parser = argparse.ArgumentParser(description="toolgrade against peer libraries")
    parser.add_argument("suite", type=Path)
    parser.add_argument("runs", type=Path)
    args = parser.parse_args()
    json.dump(run(args.suite, args.runs), sys.stdout)
    print()


if __name__ == "__main__":
    main()
