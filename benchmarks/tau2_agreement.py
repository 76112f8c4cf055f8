"""How far an imported tau2 suite agrees with tau2's reward, per domain, on runs written here.

    python benchmarks/tau2_agreement.py [--seed N] [--json FILE]
    python benchmarks/tau2_agreement.py RESULTS.json [RESULTS.json ...] [--json FILE]

Given real tau2 results files (as written by tau2-bench, with tau2's own `reward_info`), each
file is imported and graded with no judge and one line of figures is printed per file: the AUC
of the aggregate score against tau2's reward, how often `passed` equals reward 1, and the
import summary's notes on what could not be reproduced. Without files:

Writes tau2-format results files (tasks and simulations in tau2's layout) for three domains and
prints one JSON object of figures per domain:

- `airline` and `retail`: tasks rewarded as tau2 rewards them (`reward_basis: [DB,
  COMMUNICATE]`), with reads and writes among the reference actions and `communicate_info`.
  Runs per task: correct; correct with the reads skipped; correct with extra reads; a wrong
  write argument; a missing write; an extra write; the required information never said; a
  failed write retried correctly. Long tool results, several turns, messy ids.
- `telecom_solo`: tau2's no-user mode (`llm_agent_solo`): the agent calls the user's device
  tools itself and ends with `done`; tasks rewarded on `ACTION`. Runs: correct, a missing
  device action, a wrong argument, an extra read, a device setting toggled twice more.

A run's reward is tau2's rule for what the task's basis names: `DB` is 1 when the successful
write calls are the reference writes (same name, equal compared arguments), `COMMUNICATE` when
every `communicate_info` string occurs in an agent message (lower case, commas removed),
`ACTION` when every reference action is matched by some call (tau2's `compare_with_tool_call`).
Figures: the AUC of the aggregate score against the reward, pass/reward agreement, and the
action-level agreement of toolgrade's per-action verdict with tau2's `action_match` (targets:
AUC >= 0.9 per domain, action agreement >= 0.97).
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from importer_agreement import action_verdicts, auc, grade_folder

from toolgrade.importers import import_tau2

Action = dict[str, Any]
#: (kind, calls as (name, arguments, failed), whether the agent says the information).
Plan = tuple[str, list[tuple[str, dict[str, Any], bool]], bool]


def action(aid: str, name: str, args: dict[str, Any], requestor: str = "assistant",
           compare_args: list[str] | None = None) -> Action:
    """One tau2 reference action."""
    return {"action_id": aid, "requestor": requestor, "name": name, "arguments": args,
            "info": None, "compare_args": compare_args}


# --- the tasks -------------------------------------------------------------------------------


def _airline_tasks() -> list[dict[str, Any]]:
    specs = [
        ("cancel_refund", "mia_li_3668", "H8Q05L",
         [action("0", "get_user_details", {"user_id": "mia_li_3668"}),
          action("1", "get_reservation_details", {"reservation_id": "H8Q05L"}),
          action("2", "cancel_reservation", {"reservation_id": "H8Q05L"})],
         ["1,286"]),
        ("bags", "omar_davis_3817", "JG7FMM",
         [action("0", "get_reservation_details", {"reservation_id": "JG7FMM"}),
          action("1", "update_reservation_baggages",
                 {"reservation_id": "JG7FMM", "total_baggages": 2, "nonfree_baggages": 1,
                  "payment_id": "credit_card_2929732"})],
         ["50"]),
        ("certificate", "sophia_taylor_9065", "PEP4E0",
         [action("0", "get_user_details", {"user_id": "sophia_taylor_9065"}),
          action("1", "send_certificate", {"user_id": "sophia_taylor_9065", "amount": 150})],
         []),
        ("change_flight", "aarav_garcia_1177", "M05KNL",
         [action("0", "get_reservation_details", {"reservation_id": "M05KNL"}),
          action("1", "search_direct_flight", {"origin": "ATL", "destination": "PHL",
                                               "date": "2024-05-24"}),
          action("2", "update_reservation_flights",
                 {"reservation_id": "M05KNL", "cabin": "economy",
                  "flights": [{"flight_number": "HAT110", "date": "2024-05-24"}],
                  "payment_id": "gift_card_8887175"})],
         ["HAT110"]),
        ("passenger", "ivan_muller_7015", "G72NA4",
         [action("0", "get_reservation_details", {"reservation_id": "G72NA4"}),
          action("1", "update_reservation_passengers",
                 {"reservation_id": "G72NA4",
                  "passengers": [{"first_name": "Ivan", "last_name": "Muller",
                                  "dob": "1992-10-28"}]})],
         []),
    ]
    return [_task(f"airline_{i}_{name}", user, resv, acts, info)
            for i, (name, user, resv, acts, info) in enumerate(specs)]


def _retail_tasks() -> list[dict[str, Any]]:
    specs = [
        ("return", "yusuf_rossi_9620", "#W2378156",
         [action("0", "find_user_id_by_name_zip", {"first_name": "Yusuf", "last_name": "Rossi",
                                                   "zip": "19122"}),
          action("1", "get_order_details", {"order_id": "#W2378156"}),
          action("2", "return_delivered_order_items",
                 {"order_id": "#W2378156", "item_ids": ["4602305039", "9570044148"],
                  "payment_method_id": "credit_card_9513926"})],
         ["1,093.34"]),
        ("cancel", "mei_kovacs_8020", "#W6390527",
         [action("0", "get_order_details", {"order_id": "#W6390527"}),
          action("1", "cancel_pending_order", {"order_id": "#W6390527",
                                               "reason": "no longer needed"})],
         []),
        ("address", "aarav_anderson_8794", "#W4316152",
         [action("0", "get_user_details", {"user_id": "aarav_anderson_8794"}),
          action("1", "modify_user_address",
                 {"user_id": "aarav_anderson_8794", "address1": "931 Maple Drive",
                  "address2": "Suite 985", "city": "Denver", "state": "CO", "country": "USA",
                  "zip": "80202"})],
         []),
        ("exchange", "olivia_lopez_3865", "#W9373487",
         [action("0", "get_order_details", {"order_id": "#W9373487"}),
          action("1", "get_product_details", {"product_id": "4896585277"}),
          action("2", "exchange_delivered_order_items",
                 {"order_id": "#W9373487", "item_ids": ["4983901480"],
                  "new_item_ids": ["7539442683"], "payment_method_id": "gift_card_7711863"})],
         ["48.16"]),
        ("count", "lei_wilson_4541", "#W2905754",
         [action("0", "get_user_details", {"user_id": "lei_wilson_4541"}),
          action("1", "list_all_product_types", {})],
         ["50"]),
    ]
    return [_task(f"retail_{i}_{name}", user, order, acts, info)
            for i, (name, user, order, acts, info) in enumerate(specs)]


def _telecom_solo_tasks() -> list[dict[str, Any]]:
    specs = [
        ("[mobile_data_issue]user_abroad_roaming_disabled_on[PERSONA:None]",
         [action("0", "get_customer_by_phone", {"phone_number": "555-123-2002"}),
          action("1", "enable_roaming", {"customer_id": "C1001", "line_id": "L1002"}),
          action("2", "toggle_roaming", {}, requestor="user")]),
        ("[mobile_data_issue]airplane_mode_on|data_saver_mode_on[PERSONA:Easy]",
         [action("0", "toggle_airplane_mode", {}, requestor="user"),
          action("1", "toggle_data_saver_mode", {}, requestor="user")]),
        ("[service_issue]network_mode_2g_only[PERSONA:Hard]",
         [action("0", "set_network_mode_preference", {"mode": "4g_5g_preferred"},
                 requestor="user")]),
    ]
    return [{"id": tid, "description": None, "ticket": f"Customer problem: {tid}",
             "user_scenario": {"instructions": {"reason_for_call": tid}},
             "evaluation_criteria": {"actions": acts, "communicate_info": None,
                                     "reward_basis": ["ACTION"]}}
            for tid, acts in specs]


def _task(tid: str, user: str, ref: str, acts: list[Action], info: list[str]) -> dict[str, Any]:
    return {"id": tid, "description": {"purpose": tid},
            "user_scenario": {"persona": None, "instructions": {
                "reason_for_call": f"help with {ref}", "known_info": f"You are {user}.",
                "unknown_info": None, "task_instructions": "Be brief."}},
            "evaluation_criteria": {"actions": acts, "communicate_info": info,
                                    "nl_assertions": None,
                                    "reward_basis": ["DB", "COMMUNICATE"]}}


# --- tau2's own rules ------------------------------------------------------------------------


def matches(act: Action, call: dict[str, Any]) -> bool:
    """tau2's `Action.compare_with_tool_call`."""
    if act["name"] != call["name"]:
        return False
    keys = act["compare_args"] if act["compare_args"] is not None else list(call["arguments"])
    if not keys:
        return True
    return ({k: v for k, v in call["arguments"].items() if k in keys}
            == {k: v for k, v in act["arguments"].items() if k in keys})


def reward(task: dict[str, Any], messages: list[dict[str, Any]], writes: frozenset[str]) -> float:
    """The run's reward by tau2's rules for the parts its basis names."""
    crit = task["evaluation_criteria"]
    calls = [c for m in messages for c in m.get("tool_calls") or []]
    failed = {m["id"] for m in messages if m.get("role") == "tool" and m.get("error")}
    ok = 1.0
    if "DB" in crit["reward_basis"]:
        made = sorted(json.dumps([c["name"], c["arguments"]], sort_keys=True) for c in calls
                      if c["name"] in writes and c["id"] not in failed)
        wanted = sorted(json.dumps([a["name"], a["arguments"]], sort_keys=True)
                        for a in crit["actions"] if a["name"] in writes)
        ok *= float(made == wanted)
    if "COMMUNICATE" in crit["reward_basis"]:
        said = [m["content"].lower().replace(",", "") for m in messages
                if m.get("role") == "assistant" and m.get("content")]
        ok *= float(all(any(i.lower().replace(",", "") in s for s in said)
                        for i in crit["communicate_info"] or []))
    if "ACTION" in crit["reward_basis"]:
        ok *= float(all(any(matches(a, c) for c in calls) for a in crit["actions"]))
    return ok


# --- the runs --------------------------------------------------------------------------------


def _long_result(name: str, args: dict[str, Any], rng: random.Random) -> str:
    """A tool result as long and nested as the real ones."""
    rows = [{"id": f"{rng.randrange(10**9):09d}", "status": rng.choice(["delivered", "pending"]),
             "price": round(rng.uniform(5, 900), 2),
             "options": {"color": rng.choice(["black", "red"]), "size": rng.choice("SML")}}
            for _ in range(rng.randint(6, 14))]
    return json.dumps({"tool": name, "query": args, "items": rows,
                       "note": "Prices in USD; refunds go to the original payment method."})


class Writer:
    """Writes one simulation's messages: user turns, agent calls with results, agent text."""

    def __init__(self, task: dict[str, Any], rng: random.Random, solo: bool) -> None:
        self.rng, self.solo, self.n = rng, solo, 0
        self.messages: list[dict[str, Any]] = []
        if not solo:
            self.say("user", task["user_scenario"]["instructions"]["reason_for_call"])
            self.say("assistant", "Sure, I can help. Could you confirm your details?")
            self.say("user", task["user_scenario"]["instructions"]["known_info"])

    def say(self, role: str, text: str) -> None:
        """A text turn."""
        self.messages.append({"role": role, "content": text, "tool_calls": None})

    def call(self, name: str, args: dict[str, Any], error: bool = False) -> None:
        """One agent call and its result."""
        self.n += 1
        cid = f"call_{self.n}_{self.rng.randrange(16**6):06x}"
        self.messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": cid, "name": name, "arguments": args, "requestor": "assistant"}]})
        content = "Error: payment method not found" if error else _long_result(
            name, args, self.rng)
        self.messages.append({"id": cid, "role": "tool", "content": content,
                              "requestor": "assistant", "error": error})


def _perturb(args: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    out = copy.deepcopy(args)
    key = sorted(out)[rng.randrange(len(out))] if out else None
    if key is None:
        return {"unexpected": True}
    value = out[key]
    out[key] = (value + 1 if isinstance(value, int) else
                [*value, "0000000000"] if isinstance(value, list) else f"{value}X")
    return out


def run_plans(task: dict[str, Any], writes: frozenset[str], rng: random.Random) -> list[Plan]:
    """(kind, calls (name, args, failed), says the information) for one DB task."""
    acts = [(a["name"], a["arguments"], False) for a in task["evaluation_criteria"]["actions"]]
    reads = [c for c in acts if c[0] not in writes]
    ws = [c for c in acts if c[0] in writes]
    plans = [("correct", acts, True), ("skipped_reads", ws, True),
             ("extra_reads", [*reads, ("get_user_details", {"user_id": "someone_else_1"}, False),
                              *acts], True)]
    if task["evaluation_criteria"]["communicate_info"]:
        plans.append(("missing_mention", acts, False))
    if ws:
        name, args, _ = ws[0]
        plans += [("wrong_write", [*reads, (name, _perturb(args, rng), False), *ws[1:]], True),
                  ("missing_write", reads, True),
                  ("failed_then_correct", [*reads, (name, _perturb(args, rng), True), *ws],
                   True)]
    other = sorted(writes - {w[0] for w in ws})[rng.randrange(len(writes - {w[0] for w in ws}))]
    plans.append(("extra_write", [*acts, (other, {"id": "X-0001"}, False)], True))
    return plans


def solo_plans(task: dict[str, Any], rng: random.Random) -> list[Plan]:
    """(kind, calls, says) for one solo telecom task; every plan ends with `done`."""
    acts = [(a["name"], a["arguments"], False) for a in task["evaluation_criteria"]["actions"]]
    users = {a["name"] for a in task["evaluation_criteria"]["actions"] if a["requestor"] == "user"}
    device = next(a for a in acts if a[0] in users)
    plans = [("correct", acts), ("missing_device_action", acts[:-1]),
             ("extra_read", [("check_status_bar", {}, False), *acts]),
             # Troubleshooting toggles a setting off and on again, looking at the status bar
             # in between: the end state is the same. (Three identical toggles in a row with
             # nothing between would be a `loop` here, which tau2's reward does not see.)
             ("device_toggled_twice", [*acts, device, ("check_status_bar", {}, False),
                                       device])]
    with_args = [i for i, a in enumerate(acts) if a[1]]
    if with_args:
        i = with_args[0]
        wrong = [*acts[:i], (acts[i][0], _perturb(acts[i][1], rng), False), *acts[i + 1:]]
        plans.append(("wrong_argument", wrong))
    return [(k, [*c, ("done", {}, False)], False) for k, c in plans]


def simulations(tasks: list[dict[str, Any]], writes: frozenset[str], solo: bool,
                rng: random.Random) -> list[dict[str, Any]]:
    """Every simulation of every task, with tau2's reward and action checks."""
    sims = []
    for task in tasks:
        plans = solo_plans(task, rng) if solo else run_plans(task, writes, rng)
        for trial, (kind, calls, says) in enumerate(plans):
            w = Writer(task, rng, solo)
            for name, args, failed in calls:
                w.call(name, args, failed)
            info = task["evaluation_criteria"]["communicate_info"] or []
            if not solo:
                text = " ".join(["Done.", *(f"That comes to {i}." for i in info if says)])
                w.say("assistant", text + " Anything else?")
                w.say("user", "No, thanks. ###STOP###")
            sims.append(_simulation(task, trial, kind, w.messages, writes))
    return sims


def _simulation(task: dict[str, Any], trial: int, kind: str, messages: list[dict[str, Any]],
                writes: frozenset[str]) -> dict[str, Any]:
    calls = [c for m in messages for c in m.get("tool_calls") or []]
    checks = [{"action": a, "action_match": any(matches(a, c) for c in calls),
               "action_reward": 0.0} for a in task["evaluation_criteria"]["actions"]]
    return {"id": f"{task['id']}-{trial}", "task_id": task["id"], "trial": trial,
            "termination_reason": "user_stop", "messages": messages, "kind": kind,
            "reward_info": {"reward": reward(task, messages, writes), "action_checks": checks,
                            "reward_basis": task["evaluation_criteria"]["reward_basis"]}}


def results_file(domain: str, tasks: list[dict[str, Any]], sims: list[dict[str, Any]],
                 solo: bool) -> dict[str, Any]:
    """A whole tau2 results file."""
    agent = {"implementation": "llm_agent_solo" if solo else "llm_agent", "llm": "synthetic"}
    user = {"implementation": "dummy_user" if solo else "user_simulator"}
    return {"timestamp": "2026-12-04T00:00:00", "tasks": tasks, "simulations": sims,
            "info": {"agent_info": agent, "user_info": user,
                     "environment_info": {"domain_name": domain}}}


# --- measuring -------------------------------------------------------------------------------


def measure(domain: str, tasks: list[dict[str, Any]], solo: bool, work: Path,
            seed: int) -> dict[str, Any]:
    """Import, grade and compare one domain's written results file with tau2's verdicts."""
    from toolgrade.importers.tau_domains import WRITE_TOOLS, inferred_writes

    rng = random.Random(seed)
    names = {a["name"] for t in tasks for a in t["evaluation_criteria"]["actions"]}
    writes = WRITE_TOOLS.get(domain) or inferred_writes(names)
    sims = simulations(tasks, writes, solo, rng)
    path = work / f"{domain}.json"
    path.write_text(json.dumps(results_file(domain, tasks, sims, solo)))
    folder = work / domain
    import_tau2(path, folder)
    graded = grade_folder(folder)
    labels = [int(s["reward_info"]["reward"] >= 1.0) for s in sims]
    passed = [bool(g["aggregate"]["passed"]) for g in graded]
    agree, total = _action_agreement(folder, graded, sims)
    kinds: dict[str, list[int]] = {}
    for s, p, y in zip(sims, passed, labels, strict=True):
        kinds.setdefault(s["kind"], []).append(int(p == bool(y)))
    return {"runs": len(sims), "reward_1": sum(labels),
            "aggregate_auc": auc([g["aggregate"]["score"] or 0.0 for g in graded], labels),
            "pass_agrees_with_reward": sum(p == bool(y) for p, y in zip(passed, labels,
                                                                        strict=True)) / len(sims),
            "action_agreement": agree / total if total else None, "actions_compared": total,
            "agreement_by_kind": {k: sum(v) / len(v) for k, v in sorted(kinds.items())}}


def _action_agreement(folder: Path, graded: list[dict[str, Any]],
                      sims: list[dict[str, Any]]) -> tuple[int, int]:
    """Per route action: toolgrade's verdict against tau2's action_match."""
    lines = (folder / "suite.jsonl").read_text().splitlines()
    cases = {c["id"]: c for c in map(json.loads, lines)}
    agree = total = 0
    for result, sim in zip(graded, sims, strict=True):
        ids = cases[sim["task_id"]]["metadata"]["action_ids"]
        verdicts = action_verdicts(result)
        tau2 = {c["action"]["action_id"]: bool(c["action_match"])
                for c in sim["reward_info"]["action_checks"]}
        for k, aid in enumerate(ids):
            total += 1
            agree += int(verdicts.get(k, False) == tau2[aid])
    return agree, total


def measure_file(path: Path, work: Path) -> dict[str, Any]:
    """Import and grade one real results file; figures against tau2's own rewards."""
    folder = work / path.stem
    summary = import_tau2(path, folder)
    graded = grade_folder(folder)
    sims = {(s["task_id"], s.get("trial", 0)): s for s in json.loads(path.read_text())[
        "simulations"]}
    labels, scores, passed = [], [], []
    for result in graded:
        sim = sims.get((result["case_id"], result["trial"]))
        if sim is None or not sim.get("reward_info"):
            continue
        labels.append(int(sim["reward_info"]["reward"] >= 1.0))
        scores.append(result["aggregate"]["score"] or 0.0)
        passed.append(bool(result["aggregate"]["passed"]))
    return {"file": path.name, "runs": len(labels), "reward_1": sum(labels),
            "aggregate_auc": auc(scores, labels),
            "pass_agrees_with_reward": round(sum(p == bool(y) for p, y in zip(
                passed, labels, strict=True)) / len(labels), 4) if labels else None,
            "passed": sum(passed), "notes": list(summary.notes)}


def _real_files(files: list[Path], json_out: Path | None) -> int:
    report = []
    with tempfile.TemporaryDirectory() as scratch:
        for path in files:
            figures = measure_file(path, Path(scratch))
            report.append(figures)
            auc_text = "-" if figures["aggregate_auc"] is None else (
                f"{figures['aggregate_auc']:.3f}")
            print(f"{figures['file']:40} runs {figures['runs']:>4}  reward-1 "
                  f"{figures['reward_1']:>4}  passed {figures['passed']:>4}  AUC {auc_text}  "
                  f"pass=reward {figures['pass_agrees_with_reward']}")
    if json_out is not None:
        json_out.write_text(json.dumps(report, indent=2) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Print the figures (and write them to --json)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*", type=Path, help="real tau2 results files")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.files:
        return _real_files(args.files, args.json)
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        report = {"airline": measure("airline", _airline_tasks(), False, work, args.seed),
                  "retail": measure("retail", _retail_tasks(), False, work, args.seed),
                  "telecom_solo": measure("telecom", _telecom_solo_tasks(), True, work,
                                          args.seed)}
    text = json.dumps(report, indent=2)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
