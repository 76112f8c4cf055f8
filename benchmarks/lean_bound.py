"""A lower bound for any redesign of the checks: four bare verdicts in lean plain Python.

    python benchmarks/lean_bound.py SUITE RUNS

SUITE and RUNS are a synthetic suite and its runs (`synth.py`), where every case declares
`selection` and `ordering`; any other suite is refused with the case that lacks one.

Not a grader. It answers, per run, four yes/no questions shaped like the four checks, with
everything that depends on the case alone prepared once, over `json.loads` dicts, and builds
no figures, no failures and no result objects:

- selection: best multiset F1 over the routes is 1 and no forbidden tool was called;
- arguments: every call passes its tool's compiled fast schema check, declares no unknown key,
  and the first call of each reference tool has the reference's literal values (comparators
  are skipped: no typed comparison, no optimal pairing);
- ordering: each `before` pair's first occurrences, `exact` mode by plain list equality (no
  parallel-group alignment), and loops of identical consecutive calls;
- recovery: no more consecutive errors than the retry ceiling of two.

What toolgrade computes per run is a strict superset, so its line-to-verdict rate cannot
exceed what this prints. Prints one JSON object: this bound and json.loads + Counter on the
same lines, both best of seven passes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import iter_lines, rate

from toolgrade.checks.arguments.schema_fastpath import fast_checker
from toolgrade.errors import InputError
from toolgrade.loaders import load_suite
from toolgrade.models import Case

MAX_RETRIES = 2


def case_plan(case: Case) -> dict[str, Any]:
    """Everything the four verdicts need from a case, built once."""
    e = case.expected
    selection = e.selection
    if selection is None or e.ordering is None:
        raise ValueError(f"case {case.id!r} declares no selection or no ordering reference")
    return {
        "routes": [Counter(r) for r in [selection.tools, *selection.alternatives]],
        "forbidden": frozenset(selection.forbidden),
        "fast": {name: fast_checker(spec.parameters) for name, spec in case.tools.items()},
        "props": {
            name: set((spec.parameters or {}).get("properties", {}))
            for name, spec in case.tools.items()
        },
        "refs": [(a.tool, a.args) for a in (e.arguments or [])],
        "ordering": e.ordering,
        "groups": {k: frozenset(v) for k, v in e.ordering.groups.items()},
        "sequence": list(selection.tools),
    }


def verdicts(line: str, plans: dict[str, dict[str, Any]]) -> tuple[bool, bool, bool, bool]:
    """The four bare verdicts of one raw run line."""
    run = json.loads(line)
    plan = plans[run["case_id"]]
    calls = [s for s in run["steps"] if "tool" in s]
    names = [c["tool"] for c in calls]
    return (
        _selection(plan, names),
        _arguments(plan, calls),
        _ordering(plan, calls, names),
        _recovery(calls),
    )


def _selection(plan: dict[str, Any], names: list[str]) -> bool:
    actual = Counter(names)
    best = 0.0
    for route in plan["routes"]:
        tp = sum(min(n, actual[k]) for k, n in route.items())
        best = max(best, 2 * tp / (len(names) + sum(route.values())))
    return best == 1.0 and not plan["forbidden"] & actual.keys()


def _arguments(plan: dict[str, Any], calls: list[dict[str, Any]]) -> bool:
    ok = True
    for call in calls:
        args = call.get("args") or {}
        fast: Callable[[Any], bool] | None = plan["fast"].get(call["tool"])
        props = plan["props"].get(call["tool"])
        ok &= fast is None or fast(args)
        ok &= props is None or all(k in props for k in args)
    used: set[int] = set()
    for tool, want in plan["refs"]:
        index = next((i for i, c in enumerate(calls) if i not in used and c["tool"] == tool), None)
        if index is None:
            ok = False
            continue
        used.add(index)
        got = calls[index].get("args") or {}
        ok &= all(got.get(k) == v for k, v in want.items() if not isinstance(v, dict))
    return ok


def _ordering(plan: dict[str, Any], calls: list[dict[str, Any]], names: list[str]) -> bool:
    ordering, groups = plan["ordering"], plan["groups"]
    held = True
    for a, b in ordering.before:
        if b == "answer":
            continue
        side = groups[a[1:]] if a.startswith("@") else {a}
        first_a = next((i for i, n in enumerate(names) if n in side), None)
        first_b = next((i for i, n in enumerate(names) if n == b), None)
        held &= first_b is None or (first_a is not None and first_a < first_b)
    if ordering.mode == "exact":
        held &= names == plan["sequence"]
    keys = [(c["tool"], json.dumps(c.get("args"), sort_keys=True)) for c in calls]
    streak = 1
    for i in range(1, len(keys)):
        streak = streak + 1 if keys[i] == keys[i - 1] else 1
        held &= streak < ordering.loop_threshold
    return held


def _recovery(calls: list[dict[str, Any]]) -> bool:
    streak = 0
    for call in calls:
        streak = streak + 1 if (call.get("result") or {}).get("status") == "error" else 0
        if streak > MAX_RETRIES:
            return False
    return True


def best_seconds(work: Callable[[], object], passes: int = 7) -> float:
    """The fastest of `passes` timed calls of `work`."""
    best = float("inf")
    for _ in range(passes):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    """Command line: print the bound and the json+Counter baseline as JSON."""
    parser = argparse.ArgumentParser(description="lean four-verdict lower bound")
    parser.add_argument("suite", type=Path)
    parser.add_argument("runs", type=Path)
    args = parser.parse_args()
    try:
        suite = load_suite(args.suite)
        plans = {cid: case_plan(case) for cid, case in suite.cases.items()}
    except (InputError, ValueError) as exc:
        print(f"lean_bound: {exc} (it needs a suite made by synth.py)", file=sys.stderr)
        sys.exit(2)  # bad input, as toolgrade's own commands
    lines = list(iter_lines(args.runs))
    lean = best_seconds(lambda: [verdicts(line, plans) for line in lines])
    naive = best_seconds(
        lambda: [Counter(s["tool"] for s in json.loads(x)["steps"] if "tool" in s) for x in lines]
    )
    n = len(lines)
    json.dump(
        {"n": n, "lean_runs_per_s": rate(n, lean), "lean_us_per_run": 1e6 * lean / n,
         "json_counter_runs_per_s": rate(n, naive)},
        sys.stdout,
    )
    print()


if __name__ == "__main__":
    main()
