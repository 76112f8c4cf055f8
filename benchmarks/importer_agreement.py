"""How far the imported tau-bench and tau2 suites agree with the benchmarks' own verdicts.

    python benchmarks/importer_agreement.py [--fixtures DIR] [--seed N] [--json FILE]

Prints one JSON object (figures, not assertions):

- `tau2`: imports the tau2 results file, grades it (`--no-judge`), and for every reference
  action the agent had to take (`requestor: assistant`) compares toolgrade's per-action arguments
  verdict (the reference call is paired with a call of the same tool and every compared field
  matches) with tau2's own `action_match`. Target: agreement >= 0.95.
- `tau_bench`: imports the retail dev tasks with recorded runs (the fixture's `example_run.json`
  plus runs written here in tau-bench's format from each task's reference actions, correct or
  perturbed), grades them, and reports the AUC of the aggregate score (and of each check score)
  against the reward. Target: AUC >= 0.90. A written run's reward is what tau-bench's database
  comparison gives for it: 1 when its successful writes are the reference writes with the same
  arguments (reads, failed writes and their order do not change the database), else 0.

`--fixtures` defaults to ../shared/fixtures beside the repository (the shared reference copies).
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from toolgrade.importers import import_tau2, import_tau_bench
from toolgrade.importers.tau_domains import WRITE_TOOLS
from toolgrade.scoring.runner import grade, validate_inputs

ROOT = Path(__file__).resolve().parent.parent
WRITES = WRITE_TOOLS["retail"]


# --- shared ----------------------------------------------------------------------------------


def grade_folder(folder: Path) -> list[dict[str, Any]]:
    """Grade an imported folder as `toolgrade run --no-judge` does; the results lines."""
    inputs = validate_inputs(folder / "suite.jsonl", [folder / "runs.jsonl"])
    out = folder / "graded"
    grade(inputs, out, judge=None)
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def auc(scores: list[float], labels: list[int]) -> float | None:
    """Area under the ROC curve (Mann-Whitney, ties count half); None without both classes."""
    pos = [s for s, y in zip(scores, labels, strict=True) if y]
    neg = [s for s, y in zip(scores, labels, strict=True) if not y]
    if not pos or not neg:
        return None
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line]


# --- tau2: per-action agreement --------------------------------------------------------------


def action_verdicts(result: dict[str, Any]) -> dict[int, bool]:
    """Per reference index: paired with an agent call whose compared fields all match."""
    arguments = result["checks"].get("arguments") or {}
    verdicts: dict[int, bool] = {}
    for call in arguments.get("calls", []):
        k = call.get("ref_index")
        if k is not None:
            matched = call.get("step") is not None and bool(call.get("exact"))
            verdicts[k] = verdicts.get(k, False) or matched
    return verdicts


def measure_tau2(results_file: Path, work: Path) -> dict[str, Any]:
    """Import, grade and compare each agent action's verdict with tau2's action_match."""
    folder = work / "tau2"
    summary = import_tau2(results_file, folder)
    graded = {(r["case_id"], r["trial"]): r for r in grade_folder(folder)}
    cases = {c["id"]: c for c in _read(folder / "suite.jsonl")}
    n = agree = 0
    rows: list[dict[str, Any]] = []
    for run in _read(folder / "runs.jsonl"):
        ids = cases[run["case_id"]]["metadata"]["action_ids"]
        ours = action_verdicts(graded[(run["case_id"], run["trial"])])
        for check in run["metadata"].get("action_checks", []):
            if check["requestor"] != "assistant":
                continue
            k = ids.index(check["action_id"])
            mine = ours.get(k, False)
            n += 1
            agree += mine == check["action_match"]
            rows.append({"case": run["case_id"], "action": check["name"],
                         "tau2": check["action_match"], "toolgrade": mine})
    rewards = [run["metadata"].get("reward", 0.0) for run in _read(folder / "runs.jsonl")]
    scores = [graded[(r["case_id"], r["trial"])]["aggregate"]["score"] or 0.0
              for r in _read(folder / "runs.jsonl")]
    return {
        "runs": summary.runs, "cases": summary.cases, "agent_actions": n,
        "agreement": agree / n if n else None, "actions": rows,
        "aggregate_auc_vs_reward": auc(scores, [int(r >= 1.0) for r in rewards]),
    }


# --- tau-bench: runs written from the reference actions --------------------------------------


def _call(i: int, name: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [{
        "id": f"call_{i}", "type": "function",
        "function": {"name": name, "arguments": json.dumps(kwargs)}}]}


def _result(i: int, name: str, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": f"call_{i}", "name": name, "content": content}


class Trajectory:
    """An OpenAI-message tau-bench trajectory built call by call."""

    def __init__(self, instruction: str) -> None:
        self.messages: list[dict[str, Any]] = [
            {"role": "system", "content": "You are a retail support agent."},
            {"role": "user", "content": instruction}]
        self.n = 0

    def call(self, name: str, kwargs: dict[str, Any], content: str = '{"ok": true}') -> None:
        self.n += 1
        self.messages += [_call(self.n, name, kwargs), _result(self.n, name, content)]

    def say(self, text: str) -> None:
        self.messages.append({"role": "assistant", "content": text})


def _reads(t: Trajectory, writes: list[dict[str, Any]], rng: random.Random, more: bool) -> None:
    t.call("find_user_id_by_name_zip", {"first_name": "A", "last_name": "B", "zip": "10001"},
           '"user_1"')
    t.call("get_user_details", {"user_id": "user_1"})
    for action in writes:
        if "order_id" in action["kwargs"]:
            t.call("get_order_details", {"order_id": action["kwargs"]["order_id"]})
    if more:
        t.call("think", {"thought": "check the policy"})
        t.call("get_user_details", {"user_id": "user_1"})
        if rng.random() < 0.5:
            t.call("list_all_product_types", {})


def _perturb_value(value: Any, rng: random.Random) -> Any:
    if isinstance(value, list) and value:
        changed = list(value)
        changed[rng.randrange(len(changed))] = "9999999999"
        return changed
    if isinstance(value, str):
        return value + "X" if not value.startswith("#") else "#W0000000"
    return value


def _permuted(values: list[Any], order: list[int]) -> list[Any]:
    return [values[i] for i in order]


def _reordered(
    ok: list[tuple[str, dict[str, Any], str]], rng: random.Random
) -> list[tuple[str, float, list[tuple[str, dict[str, Any], str]]]]:
    """Runs whose list arguments come in another order. Reordering `item_ids` and
    `new_item_ids` together leaves the database as it was (returns and exchanges store the
    lists sorted; item modifications pair them by position): reward 1. Reordering only
    `new_item_ids` pairs items differently: reward 0 for an item modification, 1 for an
    exchange (both lists stored sorted)."""
    i = next((k for k, (_, kw, _) in enumerate(ok)
              if len(kw.get("item_ids", [])) > 1), None)
    if i is None:
        return []
    name, kwargs, content = ok[i]
    n = len(kwargs["item_ids"])
    order = list(reversed(range(n)))
    together = dict(kwargs, item_ids=_permuted(kwargs["item_ids"], order))
    if "new_item_ids" in kwargs:
        together["new_item_ids"] = _permuted(kwargs["new_item_ids"], order)
    out = [("reordered_lists", 1.0, [*ok[:i], (name, together, content), *ok[i + 1:]])]
    if "new_item_ids" in kwargs and kwargs["new_item_ids"] != together["new_item_ids"]:
        apart = dict(kwargs, new_item_ids=together["new_item_ids"])
        reward = 0.0 if name == "modify_pending_order_items" else 1.0
        out.append(("mispaired_new_items", reward, [*ok[:i], (name, apart, content), *ok[i + 1:]]))
    return out


def variants(task: dict[str, Any], rng: random.Random) -> list[tuple[str, float, Trajectory]]:
    """(kind, tau-bench reward, trajectory) for one task: correct and perturbed runs."""
    writes = [a for a in task["actions"] if a["name"] in WRITES]
    out: list[tuple[str, float, Trajectory]] = []

    def build(kind: str, reward: float, calls: list[tuple[str, dict[str, Any], str]],
              reads: bool = True, more: bool = False) -> None:
        t = Trajectory(task["instruction"])
        if reads:
            _reads(t, writes, rng, more)
        for name, kwargs, content in calls:
            t.call(name, kwargs, content)
        # tau-bench rewards a run only if every one of the task's outputs is said to the user,
        # so a run meant to earn its reward says them (a missing_mention run leaves them out).
        said = [] if kind == "missing_mention" else [str(o) for o in task.get("outputs", [])]
        t.say(" ".join(["Done.", *(f"The answer is {o}." for o in said), "Anything else?"]))
        out.append((kind, reward, t))

    ok = [(a["name"], a["kwargs"], '{"status": "done"}') for a in writes]
    build("correct", 1.0, ok)
    build("correct_more_reads", 1.0, ok, more=True)
    build("correct_no_reads", 1.0, ok, reads=False)
    if task.get("outputs"):
        build("missing_mention", 0.0, ok)
    if writes:
        first = writes[0]
        failed = copy.deepcopy(first["kwargs"])
        key = rng.choice(sorted(failed))
        failed[key] = _perturb_value(failed[key], rng)
        build("failed_write_then_correct", 1.0,
              [(first["name"], failed, "Error: not found"), *ok])
        wrong = copy.deepcopy(ok)
        i = rng.randrange(len(wrong))
        args = copy.deepcopy(wrong[i][1])
        key = rng.choice(sorted(args))
        args[key] = _perturb_value(args[key], rng)
        wrong[i] = (wrong[i][0], args, wrong[i][2])
        build("wrong_argument", 0.0, wrong)
        build("missing_write", 0.0, ok[:-1])
        other = sorted(WRITES - {first["name"]})[rng.randrange(len(WRITES) - 1)]
        build("wrong_write_tool", 0.0, [(other, first["kwargs"], '{"status": "done"}'), *ok[1:]])
    for kind, reward, calls in _reordered(ok, rng):
        build(kind, reward, calls)
    build("extra_write", 0.0, [*ok, ("cancel_pending_order",
                                     {"order_id": "#W7777777", "reason": "no longer needed"},
                                     '{"status": "cancelled"}')])
    return out


def write_tau_runs(tasks: list[dict[str, Any]], path: Path, seed: int) -> Counter[str]:
    """Runs in tau-bench's recorded format, several per task; returns the count per kind."""
    rng = random.Random(seed)
    runs: list[dict[str, Any]] = []
    kinds: Counter[str] = Counter()
    for task_id, task in enumerate(tasks):
        for trial, (kind, reward, t) in enumerate(variants(task, rng)):
            kinds[kind] += 1
            # Trials from 100 on: the recorded runs added beside these keep their own numbers.
            runs.append({"task_id": task_id, "trial": 100 + trial, "reward": reward,
                         "info": {"task": task, "kind": kind}, "traj": t.messages})
    path.write_text(json.dumps(runs, indent=1))
    return kinds


def measure_tau_bench(tasks_file: Path, example: Path, work: Path, seed: int) -> dict[str, Any]:
    """AUC of the aggregate score (and each check's) against reward, per kind of run."""
    folder = work / "tau"
    tasks = json.loads(tasks_file.read_text())
    written = work / "tau_runs.json"
    kinds = write_tau_runs(tasks, written, seed)
    runs = json.loads(written.read_text()) + json.loads(example.read_text())
    combined = work / "tau_all_runs.json"
    combined.write_text(json.dumps(runs))
    import_tau_bench(tasks_file, combined, folder, agent="synthetic")
    graded = grade_folder(folder)
    imported = _read(folder / "runs.jsonl")
    labels = [int(r["metadata"]["reward"] >= 1.0) for r in imported]
    kind_of = [r.get("info", {}).get("kind", "fixture") for r in runs]
    figures: dict[str, Any] = {"runs": len(graded), "kinds": dict(kinds) | {"fixture": 1}}
    figures["aggregate_auc"] = auc([g["aggregate"]["score"] or 0.0 for g in graded], labels)
    for check in ("selection", "arguments"):
        figures[f"{check}_auc"] = auc(
            [g["checks"][check]["score"] if g["checks"][check]["applicable"] else 1.0
             for g in graded], labels)
    passed = [bool(g["aggregate"]["passed"]) for g in graded]
    figures["pass_agrees_with_reward"] = sum(
        p == bool(y) for p, y in zip(passed, labels, strict=True)) / len(graded)
    by_kind: dict[str, list[int]] = {}
    for kind, p, y in zip(kind_of, passed, labels, strict=True):
        by_kind.setdefault(kind, []).append(int(p == bool(y)))
    figures["agreement_by_kind"] = {k: sum(v) / len(v) for k, v in sorted(by_kind.items())}
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fixtures", type=Path, default=ROOT.parent / "shared" / "fixtures")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    fixtures: Path = args.fixtures
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        report = {
            "tau2": measure_tau2(fixtures / "tau2" / "telecom_gpt-4o_results.json", work),
            "tau_bench": measure_tau_bench(fixtures / "tau-bench" / "retail_tasks_dev.json",
                                           fixtures / "tau-bench" / "example_run.json",
                                           work, args.seed),
        }
    text = json.dumps(report, indent=2)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
