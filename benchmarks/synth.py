"""A synthetic suite and runs for the benchmarks: deterministic from a seed, written as JSONL.

The shape follows what a customer-support agent produces: 8-12 tool calls per run (10 on
average), parallel groups of read-only calls, injected faults with retries, fallbacks and
escalations, and a realistic mix of right and wrong calls from three agents of different
quality. Every case also carries its concrete reference calls in `metadata.reference_calls`
so that peer libraries, which compare against one reference trajectory, read the same truth.

    python benchmarks/synth.py --runs 1000 --out /tmp/synth     # suite.jsonl + runs.jsonl

Runs are spread over a fixed number of cases (trials grow with N), so memory figures measure
what grows with the number of runs, not with the size of the suite.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Tools whose calls read and may be issued together in one parallel group.
READ_TOOLS = ("lookup_order", "search_orders", "get_shipping_status", "search_kb", "get_customer")
#: Which tool stands in for which when the first one fails (also the usual substitution).
FALLBACKS = {"lookup_order": "search_orders", "get_shipping_status": "lookup_order",
             "search_kb": "get_customer", "get_customer": "search_orders",
             "search_orders": "lookup_order"}
ESCALATE = "escalate_to_human"
AGENTS = ("strong-agent", "mid-agent", "weak-agent")
#: Per agent: chance of a wrong argument value per call, and of each sequence mistake per run.
PROFILES: dict[str, dict[str, float]] = {
    "strong-agent": {"arg": 0.03, "sub": 0.03, "drop": 0.03, "extra": 0.03, "swap": 0.02,
                     "loop": 0.01, "unknown": 0.005, "shuffle": 0.3, "recover": 0.9},
    "mid-agent": {"arg": 0.08, "sub": 0.10, "drop": 0.08, "extra": 0.08, "swap": 0.06,
                  "loop": 0.03, "unknown": 0.02, "shuffle": 0.3, "recover": 0.6},
    "weak-agent": {"arg": 0.15, "sub": 0.20, "drop": 0.15, "extra": 0.15, "swap": 0.12,
                   "loop": 0.08, "unknown": 0.05, "shuffle": 0.3, "recover": 0.3},
}
MODES = ("exact", "in_order", "any_order")


def _obj(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required}


_ID = {"type": "string", "pattern": "^[A-Z][0-9]+$"}
_EMAIL = {"type": "string"}
CATALOGUE: dict[str, dict[str, Any]] = {
    "get_customer": {"parameters": _obj({"customer_email": _EMAIL}, ["customer_email"])},
    "verify_identity": {"parameters": _obj(
        {"customer_email": _EMAIL,
         "method": {"type": "string", "enum": ["email_code", "sms_code", "security_question"]}},
        ["customer_email", "method"])},
    "lookup_order": {"parameters": _obj({"order_id": _ID}, ["order_id"])},
    "search_orders": {"parameters": _obj(
        {"customer_email": _EMAIL,
         "status": {"type": "string", "enum": ["pending", "shipped", "delivered", "cancelled"]}},
        ["customer_email"])},
    "get_shipping_status": {"parameters": _obj({"tracking_id": {"type": "string"}},
                                               ["tracking_id"])},
    "search_kb": {"parameters": _obj({"query": {"type": "string", "minLength": 3}}, ["query"])},
    "refund": {"side_effect": True, "parameters": _obj(
        {"order_id": _ID, "amount": {"type": "number", "minimum": 0},
         "reason": {"type": "string", "maxLength": 200}}, ["order_id", "amount"])},
    "cancel_order": {"side_effect": True, "parameters": _obj(
        {"order_id": _ID,
         "reason": {"type": "string", "enum": ["customer_request", "damaged", "late", "other"]}},
        ["order_id", "reason"])},
    "schedule_callback": {"side_effect": True, "parameters": _obj(
        {"customer_email": _EMAIL, "date": {"type": "string"},
         "time_window": {"type": "string", "enum": ["morning", "afternoon", "evening"]}},
        ["customer_email", "date", "time_window"])},
    "send_email": {"side_effect": True, "parameters": _obj(
        {"to": _EMAIL, "subject": {"type": "string"}, "body": {"type": "string"}},
        ["to", "subject", "body"])},
    "create_ticket": {"side_effect": True, "parameters": _obj(
        {"subject": {"type": "string"},
         "priority": {"type": "string", "enum": ["low", "normal", "high", "urgent"]}},
        ["subject", "priority"])},
    "reset_password": {"side_effect": True,
                       "parameters": _obj({"customer_email": _EMAIL}, ["customer_email"])},
    ESCALATE: {"parameters": _obj({"reason": {"type": "string"}}, ["reason"])},
}
ACTIONS = ("refund", "cancel_order", "schedule_callback", "send_email", "create_ticket")


@dataclass(frozen=True)
class RefCall:
    """One call of a case's reference: the tool, its concrete arguments and its parallel group."""

    tool: str
    args: dict[str, Any]
    group: int | None = None


def _args_for(tool: str, rng: random.Random, ctx: dict[str, Any], k: int = 0) -> dict[str, Any]:
    """Concrete, schema-valid arguments for the k-th call of `tool` in a case.

    Repeated reads ask about different things (another order, another query), so a correct
    reference never holds an identical repeat, which the ordering check would call redundant.
    """
    email, order = ctx["email"], ctx["order"]
    table: dict[str, dict[str, Any]] = {
        "get_customer": {"customer_email": email},
        "verify_identity": {"customer_email": email, "method": rng.choice(
            ["email_code", "sms_code", "security_question"])},
        "lookup_order": {"order_id": order + ("" if k == 0 else str(k))},
        "search_orders": {"customer_email": email,
                          "status": ("pending", "shipped", "delivered", "cancelled")[k % 4]},
        "get_shipping_status": {"tracking_id": f"TRK{rng.randint(10000, 99999)}"},
        "search_kb": {"query": ("refund policy", "late delivery", "damaged item",
                                "change address", "warranty terms")[k % 5]},
        "refund": {"order_id": order, "amount": ctx["amount"], "reason": "item arrived damaged"},
        "cancel_order": {"order_id": order, "reason": rng.choice(["customer_request", "late"])},
        "schedule_callback": {"customer_email": email, "date": "2024-03-0" + str(rng.randint(1, 9)),
                              "time_window": rng.choice(["morning", "afternoon", "evening"])},
        "send_email": {"to": email, "subject": "Your order " + order, "body": "Update on " + order},
        "create_ticket": {"subject": "Issue with " + order, "priority": rng.choice(
            ["normal", "high"])},
        ESCALATE: {"reason": "tool outage"},
    }
    return table[tool]


def _reference(rng: random.Random, ctx: dict[str, Any]) -> list[RefCall]:
    """8-12 calls: identity, reads (some in parallel groups), then one or two actions."""
    length = rng.randint(8, 12)
    n_actions = rng.choice((1, 2))
    names = ["verify_identity"]
    # get_customer has one possible argument, so it is read once at most.
    names += [rng.choice(READ_TOOLS[:-1]) for _ in range(length - 2 - n_actions)]
    names.insert(rng.randint(1, len(names)), "get_customer")
    names += rng.sample(ACTIONS, n_actions)
    count: dict[str, int] = {}
    args = []
    for n in names:
        args.append(_args_for(n, rng, ctx, count.get(n, 0)))
        count[n] = count.get(n, 0) + 1
    calls: list[RefCall] = []
    group = 0
    i = 0
    while i < len(names):
        # Read-only neighbours are issued together now and then, as a model's parallel calls do.
        if names[i] in READ_TOOLS and i + 1 < len(names) and names[i + 1] in READ_TOOLS \
                and rng.random() < 0.35:
            group += 1
            calls += [RefCall(names[j], args[j], group) for j in (i, i + 1)]
            i += 2
            continue
        calls.append(RefCall(names[i], args[i]))
        i += 1
    return calls


def _expected(calls: list[RefCall], rng: random.Random, index: int) -> tuple[dict[str, Any], Any]:
    """The case's `expected` block and its fault (or None) from the reference calls."""
    names = [c.tool for c in calls]
    first_action = next(i for i, n in enumerate(names) if n in ACTIONS)
    read_at = [i for i, n in enumerate(names[:first_action]) if n in READ_TOOLS]
    arg_calls = [calls[0], calls[first_action]] + ([calls[read_at[0]]] if read_at else [])
    expected: dict[str, Any] = {
        "selection": {"tools": names, "forbidden": ["reset_password"]},
        "arguments": [{"tool": c.tool, "args": _comparators(c)} for c in arg_calls],
        "ordering": {
            "groups": {"reads": list(READ_TOOLS)},
            "before": [["verify_identity", names[first_action]], ["@reads", names[first_action]],
                       [names[first_action], "answer"]],
            "max_calls": {"verify_identity": 2},
            "mode": MODES[index % len(MODES)],
        },
    }
    fault = None
    if read_at and index % 3 == 0:
        tool = names[read_at[-1]]
        fault = {"tool": tool, "nth": names[: read_at[-1] + 1].count(tool), "kind": "error",
                 "content": "503 Service Unavailable"}
        expected["recovery"] = {"faults": [fault], "max_retries": 2,
                                "fallbacks": {tool: [FALLBACKS[tool]]}, "escalate_with": ESCALATE}
        alt = list(names)
        alt[read_at[-1]] = FALLBACKS[tool]
        expected["selection"]["alternatives"] = [alt, [*names, tool]]
    if names[first_action] in ("refund", "cancel_order") and rng.random() < 0.5:
        status = "refunded" if names[first_action] == "refund" else "cancelled"
        expected["state"] = [{"path": f"orders.{calls[first_action].args['order_id']}.status",
                              "equals": status}]
    return expected, fault


def _comparators(call: RefCall) -> dict[str, Any]:
    """The reference arguments of one call in the comparator language (no judge needed)."""
    out: dict[str, Any] = {}
    for key, value in call.args.items():
        if key == "amount":
            out[key] = {"approx": value, "tol": 0.01}
        elif key == "customer_email" or key == "to":
            out[key] = {"casefold": value}
        elif key == "date":
            out[key] = {"date": value}
        elif key in ("reason", "body", "subject", "query"):
            out[key] = {"any": True}
        else:
            out[key] = value
    return out


def make_case(index: int, seed: int) -> dict[str, Any]:
    """One case as a JSON object (a line of suite.jsonl)."""
    rng = random.Random(f"{seed}:case:{index}")
    ctx = {"email": f"user{index}@example.com", "order": f"A{1000 + index}",
           "amount": round(rng.uniform(5, 200), 2)}
    calls = _reference(rng, ctx)
    expected, fault = _expected(calls, rng, index)
    return {
        "id": f"case-{index:05d}",
        "task_type": ("refund", "cancel", "callback", "email", "ticket")[index % 5],
        "input": f"Customer {ctx['email']} needs help with order {ctx['order']}",
        "tools": CATALOGUE,
        "expected": expected,
        "metadata": {"reference_calls": [{"tool": c.tool, "args": c.args, "group": c.group}
                                         for c in calls], "fault": fault},
    }


def _ok(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    ids = {k: v for k, v in args.items() if k.endswith("id")}
    return {"status": "ok", "content": {"tool": tool, "ok": True, **ids}}


def _wrong(args: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """One argument changed the way agents get them wrong: a typo'd id, a rounded amount."""
    key = rng.choice(sorted(args))
    value = args[key]
    if isinstance(value, float):
        return {**args, key: round(value * 1.1, 2)}
    if rng.random() < 0.3:
        return {k: v for k, v in args.items() if k != key}
    return {**args, key: str(value)[:-1] + "X"}


def make_run(case: dict[str, Any], agent: str, trial: int, seed: int) -> dict[str, Any]:
    """One trajectory (a line of runs.jsonl) of `agent` on `case`."""
    rng = random.Random(f"{seed}:run:{case['id']}:{agent}:{trial}")
    p = PROFILES[agent]
    ref = [RefCall(c["tool"], c["args"], c["group"]) for c in case["metadata"]["reference_calls"]]
    calls = [RefCall(c.tool, _wrong(c.args, rng) if rng.random() < p["arg"] else c.args, c.group)
             for c in ref]
    calls = _mutate(calls, p, rng)
    steps: list[dict[str, Any]] = [{"role": "user", "content": case["input"]}]
    fault = case["metadata"]["fault"]
    seen: dict[str, int] = {}
    for call in calls:
        seen[call.tool] = seen.get(call.tool, 0) + 1
        step = {"tool": call.tool, "args": call.args, "id": f"c{len(steps)}",
                "result": _ok(call.tool, call.args)}
        if call.group is not None:
            step["group"] = call.group
        if fault and call.tool == fault["tool"] and seen[call.tool] == fault["nth"]:
            step["result"] = {"status": "error", "content": fault["content"]}
            steps.append(step)
            steps += _recovery(call, p, rng)
            continue
        steps.append(step)
    steps.append({"role": "assistant", "content": "All done: " + case["input"][:40]})
    run: dict[str, Any] = {"case_id": case["id"], "trial": trial, "agent": agent, "steps": steps}
    state = case["expected"].get("state")
    if state:
        path = state[0]["path"].split(".")
        ok = rng.random() < p["recover"] + 0.05
        run["final_state"] = {path[0]: {path[1]: {path[2]: state[0]["equals"] if ok else "open"}}}
    return run


def _recovery(call: RefCall, p: dict[str, float], rng: random.Random) -> list[dict[str, Any]]:
    """What the agent does after the fault: retry, fall back, escalate, or give up."""
    if rng.random() >= p["recover"]:
        return []
    choice = rng.random()
    if choice < 0.5:
        return [{"tool": call.tool, "args": call.args, "result": _ok(call.tool, call.args)}]
    if choice < 0.85:
        tool = FALLBACKS[call.tool]
        args = {"customer_email": "x@example.com"} if tool in ("search_orders", "get_customer") \
            else {"order_id": "A1"}
        return [{"tool": tool, "args": args, "result": _ok(tool, args)}]
    return [{"tool": ESCALATE, "args": {"reason": "tool outage"},
             "result": {"status": "ok", "content": "handed over"}}]


def _mutate(calls: list[RefCall], p: dict[str, float], rng: random.Random) -> list[RefCall]:
    """Sequence mistakes: substitution, omission, repeat, swap, loop, unknown tool, reorder."""
    calls = list(calls)
    if rng.random() < p["sub"]:
        i = rng.randrange(len(calls))
        if calls[i].tool in FALLBACKS:
            calls[i] = RefCall(FALLBACKS[calls[i].tool], calls[i].args, calls[i].group)
    if rng.random() < p["drop"] and len(calls) > 8:
        del calls[rng.randrange(1, len(calls))]
    if rng.random() < p["extra"]:
        i = rng.randrange(len(calls))
        calls.insert(i + 1, RefCall(calls[i].tool, calls[i].args))
    if rng.random() < p["swap"]:
        i = rng.randrange(len(calls) - 1)
        calls[i], calls[i + 1] = (RefCall(calls[i + 1].tool, calls[i + 1].args),
                                  RefCall(calls[i].tool, calls[i].args))
    if rng.random() < p["loop"]:
        i = rng.randrange(len(calls))
        calls[i + 1:i + 1] = [RefCall(calls[i].tool, calls[i].args)] * 2
    if rng.random() < p["unknown"]:
        calls.insert(rng.randrange(len(calls)), RefCall("lookup_invoice", {"order_id": "A1"}))
    if rng.random() < p["shuffle"]:
        # Calls issued together carry no order: record a parallel group in reverse.
        for i in range(len(calls) - 1):
            a, b = calls[i], calls[i + 1]
            if a.group is not None and a.group == b.group:
                calls[i], calls[i + 1] = b, a
                break
    return calls


def iter_runs(cases: list[dict[str, Any]], n_runs: int, seed: int) -> Iterator[dict[str, Any]]:
    """`n_runs` trajectories cycling through cases, then agents, then trials."""
    per_trial = len(cases) * len(AGENTS)
    for r in range(n_runs):
        case = cases[r % len(cases)]
        agent = AGENTS[(r // len(cases)) % len(AGENTS)]
        yield make_run(case, agent, r // per_trial, seed)


def write_synthetic(out: Path, n_runs: int, *, n_cases: int | None = None,
                    seed: int = 12) -> tuple[Path, Path]:
    """Write suite.jsonl and runs.jsonl into `out`; return their paths.

    `n_cases` defaults to min(n_runs, 200): a fixed suite, so larger N means more trials.
    """
    out.mkdir(parents=True, exist_ok=True)
    cases = [make_case(i, seed) for i in range(n_cases or min(n_runs, 200))]
    suite_path, runs_path = out / "suite.jsonl", out / "runs.jsonl"
    with suite_path.open("w", encoding="utf-8") as fh:
        for case in cases:
            fh.write(json.dumps(case, separators=(",", ":")) + "\n")
    with runs_path.open("w", encoding="utf-8") as fh:
        for run in iter_runs(cases, n_runs, seed):
            fh.write(json.dumps(run, separators=(",", ":")) + "\n")
    return suite_path, runs_path


def main() -> None:
    """Command line: write a synthetic suite and runs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--cases", type=int, default=None)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    suite, runs = write_synthetic(args.out, args.runs, n_cases=args.cases, seed=args.seed)
    print(f"wrote {suite} and {runs}")


if __name__ == "__main__":
    main()
