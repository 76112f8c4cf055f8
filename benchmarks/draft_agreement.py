"""How far a drafted suite grades like a hand-written one: per-check verdict agreement.

    python benchmarks/draft_agreement.py [--json FILE]

1. helpdesk: a suite drafted from examples/helpdesk's strong-agent runs (the example suite's
   tool catalogue given as `--tools`) and the hand-written suite both grade the mid- and
   weak-agent runs, judges off; for every run and check, the two verdicts (pass, fail,
   unscored, n/a) are compared. Target: >= 90% equal.
2. tau2 airline: the shared fixture's tau2-bench airline results file (one simulation per
   task) is imported; a suite is drafted from its reward-1 runs (writes as the route, reads
   free: `--free-reads`, as the importer grades them). With one run per task, the runs to
   grade are those reward-1 runs and three altered copies of each (the last write dropped; a
   write's first string argument changed; the last write made twice), graded by the drafted
   and the imported suites. Skipped, with a note, when the fixture is absent.

Prints one JSON object: per set, the pairs compared, the share equal (`agreement`, the
target's figure), the share where both fail or neither does (`fail_agreement`: pass, n/a and
unscored count alike), and the disagreements by kind (`check: hand verdict -> draft verdict`)
with up to five examples each.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from toolgrade.drafting.draft import DraftOptions, draft_suite, header, write_draft
from toolgrade.importers.tau2 import import_tau2
from toolgrade.scoring.runner import grade, validate_inputs
from toolgrade.vocabulary import CHECK_NAMES

ROOT = Path(__file__).resolve().parent.parent
HELPDESK = ROOT / "examples" / "helpdesk"
AIRLINE = Path("/work/shared/fixtures/tau2-runs/ft-gpt-4.1_airline.json")
TARGET = 0.9


def verdicts(suite: Path, runs: list[Path], out: Path) -> dict[tuple[str, str, int, str], str]:
    """(case, agent, trial, check) -> the check's status, graded with judges off."""
    grade(validate_inputs(suite, runs), out, judge=None)
    found: dict[tuple[str, str, int, str], str] = {}
    for line in (out / "results.jsonl").read_text().splitlines():
        record = json.loads(line)
        for check in CHECK_NAMES:
            block = record["checks"].get(check) or {}
            status = block.get("status") or ("n/a" if not block.get("applicable") else "?")
            found[(record["case_id"], record.get("agent") or "-", record["trial"], check)] = status
    return found


def agreement(hand: dict[Any, str], drafted: dict[Any, str]) -> dict[str, Any]:
    """The share of equal verdicts over the pairs both graded, and the disagreements by kind."""
    shared = sorted(hand.keys() & drafted.keys())
    kinds: Counter[str] = Counter()
    examples: dict[str, list[str]] = defaultdict(list)
    for key in shared:
        if hand[key] != drafted[key]:
            kind = f"{key[3]}: {hand[key]} -> {drafted[key]}"
            kinds[kind] += 1
            if len(examples[kind]) < 5:
                examples[kind].append(f"{key[0]} ({key[1]}:{key[2]})")
    equal = sum(hand[k] == drafted[k] for k in shared)
    # Looser: both fail, or neither does (pass, n/a and unscored all "not failed").
    same_outcome = sum((hand[k] == "fail") == (drafted[k] == "fail") for k in shared)
    return {
        "pairs": len(shared), "equal": equal,
        "agreement": round(equal / len(shared), 4) if shared else None,
        "fail_agreement": round(same_outcome / len(shared), 4) if shared else None,
        "meets_target": bool(shared) and equal / len(shared) >= TARGET,
        "disagreements": {k: {"count": n, "examples": examples[k]}
                          for k, n in kinds.most_common()},
    }


def helpdesk(work: Path) -> dict[str, Any]:
    """The helpdesk set: drafted from the strong agent, graded on mid and weak."""
    options = DraftOptions(agent="strong-agent", tools=HELPDESK / "suite.yaml")
    runs = [HELPDESK / "runs"]
    drafted = draft_suite(runs, options)
    suite = work / "helpdesk-draft.yaml"
    write_draft(drafted, suite, header(drafted, runs, options))
    graded = [HELPDESK / "runs" / "mid-agent.steps.jsonl",
              HELPDESK / "runs" / "weak-agent.anthropic.jsonl"]
    hand = verdicts(HELPDESK / "suite.yaml", graded, work / "hand")
    draft = verdicts(suite, graded, work / "draft")
    return {"drafted_cases": len(drafted.cases), "drafted_from_runs": drafted.runs,
            **agreement(hand, draft)}


def _altered(run: dict[str, Any], writes: set[str]) -> list[dict[str, Any]]:
    """Three wrong copies of a correct run: last write dropped, a write argument changed,
    the last write made twice."""
    at = [i for i, s in enumerate(run["steps"]) if s.get("tool") in writes]
    if not at:
        return []
    dropped, changed, twice = (copy.deepcopy(run) for _ in range(3))
    del dropped["steps"][at[-1]]
    args = changed["steps"][at[0]].get("args") or {}
    for key, value in args.items():
        if isinstance(value, str):
            args[key] = value + "X"
            break
    twice["steps"].insert(at[-1] + 1, copy.deepcopy(run["steps"][at[-1]]))
    out = []
    for label, copy_ in (("dropped", dropped), ("changed", changed), ("twice", twice)):
        copy_["agent"] = f"altered-{label}"
        out.append(copy_)
    return out


def airline(work: Path) -> dict[str, Any]:
    """The tau2 airline set: drafted from its reward-1 runs."""
    if not AIRLINE.is_file():
        return {"skipped": f"{AIRLINE} not found"}
    imported = work / "airline"
    import_tau2(AIRLINE, imported)
    runs = [json.loads(line) for line in (imported / "runs.jsonl").read_text().splitlines()]
    good = [r for r in runs if (r.get("metadata") or {}).get("reward") == 1.0]
    cases = [json.loads(line) for line in (imported / "suite.jsonl").read_text().splitlines()]
    tools = {n: spec for case in cases for n, spec in case.get("tools", {}).items()}
    writes = {n for n, spec in tools.items() if spec.get("side_effect")}
    (work / "airline-tools.json").write_text(json.dumps({"tools": tools}))
    (work / "airline-good.jsonl").write_text("".join(json.dumps(r) + "\n" for r in good))
    graded = [*good, *(a for r in good for a in _altered(r, writes))]
    (work / "airline-graded.jsonl").write_text("".join(json.dumps(r) + "\n" for r in graded))
    options = DraftOptions(tools=work / "airline-tools.json", free_reads=True)
    drafted = draft_suite([work / "airline-good.jsonl"], options)
    suite = work / "airline-draft.yaml"
    write_draft(drafted, suite, header(drafted, [work / "airline-good.jsonl"], options))
    kept = {c.id for c in drafted.cases}
    hand_suite = work / "airline-hand.jsonl"
    hand_suite.write_text("".join(json.dumps(c) + "\n" for c in cases if c["id"] in kept))
    hand = verdicts(hand_suite, [work / "airline-graded.jsonl"], work / "air-hand")
    draft = verdicts(suite, [work / "airline-graded.jsonl"], work / "air-draft")
    return {"tasks": len(cases), "reward_1_runs": len(good), "graded_runs": len(graded),
            "drafted_cases": len(drafted.cases), **agreement(hand, draft)}


def main() -> None:
    """Run both sets and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        figures = {"helpdesk": helpdesk(work), "tau2_airline": airline(work)}
    text = json.dumps(figures, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    sys.exit(0)


if __name__ == "__main__":
    main()
