"""Judge economy on the example suite, with the scripted fake client (no network, no model).

    python benchmarks/bench_judge_economy.py [SUITE RUNS]     # default: examples/helpdesk

Three passes over the same inputs:

1. no judge: which `semantic` argument fields the deterministic shortcuts settle (status
   `match`) and which would need the judge (`unscored`);
2. first judged run, empty disk cache in a temporary folder: model calls against the number of
   distinct judge requests (requests minus in-run memo hits);
3. second judged run, a fresh engine on the same cache folder: model calls (must be 0).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from toolgrade.judging import build_judge
from toolgrade.judging.scripted import FakeClient, verdict_json
from toolgrade.scoring.runner import ValidatedInputs, grade, validate_inputs
from toolgrade.settings import JudgeSettings

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = (ROOT / "examples/helpdesk/suite.yaml", ROOT / "examples/helpdesk/runs")
FAKE_MODEL = "fake/benchmark-judge"


def semantic_fields(inputs: ValidatedInputs, out_dir: Path) -> dict[str, Any]:
    """Grade with no judge; count semantic fields on paired calls by status.

    `match` is settled by an equality shortcut, `missing` (argument left out) needs no judge
    either; only `unscored` fields would go to the judge.
    """
    grade(inputs, out_dir)
    statuses: Counter[str] = Counter()
    with (out_dir / "results.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            case = inputs.suite.cases[record["case_id"]]
            result = record["checks"].get("arguments", {})
            for call in result.get("calls", []) or result.get("figures", {}).get("calls", []):
                if call.get("ref_index") is None or not call.get("fields"):
                    continue
                spec = (case.expected.arguments or [])[call["ref_index"]].args
                for name, status in call["fields"].items():
                    if isinstance(spec.get(name), dict) and "semantic" in spec[name]:
                        statuses[status] += 1
    total = sum(statuses.values())
    return {"semantic_fields": total, "statuses": dict(statuses),
            "settled_without_judge": total - statuses["unscored"],
            "settled_by_equality_shortcut": statuses["match"]}


def judged_run(inputs: ValidatedInputs, out_dir: Path, cache_dir: Path) -> dict[str, Any]:
    """One graded run with a fresh engine on `cache_dir`; the engine's usage and client calls."""
    client = FakeClient(lambda request: verdict_json("pass", "scripted for the benchmark"))
    settings = JudgeSettings(model=FAKE_MODEL, cache_dir=cache_dir)
    engine = build_judge(settings, client=client)
    assert engine is not None
    with engine:
        grade(inputs, out_dir, judge=engine)
        usage = engine.usage()
    requests = sum(u["requests"] for u in usage.values())
    memo = sum(u["memo_hits"] for u in usage.values())
    return {
        "client_calls": client.calls,
        "engine_calls": sum(u["calls"] for u in usage.values()),
        "requests": requests,
        "distinct_requests": requests - memo,
        "cache_hits": sum(u["cache_hits"] for u in usage.values()),
        "per_dimension": {d: {k: u[k] for k in ("calls", "requests", "memo_hits", "cache_hits")}
                          for d, u in usage.items()},
    }


def run(suite: Path, runs: Path) -> dict[str, Any]:
    """All three passes; figures as a dict."""
    inputs = validate_inputs(suite, [runs])
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        fields = semantic_fields(inputs, base / "nojudge")
        first = judged_run(inputs, base / "first", base / "cache")
        second = judged_run(inputs, base / "second", base / "cache")
    total = fields["semantic_fields"]
    return {
        "runs": inputs.n_runs,
        **fields,
        "shortcut_share": fields["settled_without_judge"] / total if total else None,
        "first": first,
        "second": second,
    }


def main() -> None:
    """Command line: print the figures as JSON."""
    parser = argparse.ArgumentParser(description="judge economy with the fake client")
    parser.add_argument("suite", type=Path, nargs="?", default=EXAMPLE[0])
    parser.add_argument("runs", type=Path, nargs="?", default=EXAMPLE[1])
    args = parser.parse_args()
    json.dump(run(args.suite, args.runs), sys.stdout)
    print()


if __name__ == "__main__":
    main()
