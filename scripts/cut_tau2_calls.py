"""Cut argument_equivalence and alternate_route candidates from recorded tau2-bench runs.

Called by scripts/cut_tau2_items.py (`--dimension`). Both read a simulation's reference actions
(tau2's expected actions in the task's evaluation criteria) beside the agent's own calls:

- argument_equivalence: each reference action with arguments is paired with the agent's call of
  the same tool that shares most argument values; every top-level argument whose value differs is
  one candidate (`expected`, `actual`: the values as the run holds them, lists and objects as
  compact JSON). `task` is what the user had said before that call.
- alternate_route: one candidate per simulation whose agent route (tool names, in order) is not
  the reference route: `expected_routes` holds the reference route, `actual_route` the agent's,
  as `run` shows them to the judge for an imported tau2 case (tool names, failed calls left
  out: the judge decides the choice of tools, argument values are the arguments check's),
  `task` the user's turns. The results files carry no tool
  definitions, so `tool_descriptions` come from TOOL_DESCRIPTIONS below.

Candidates carry no label: the labeller reads each one and writes `label` and a `note`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

#: The user's turns shown as `task` are cut (with a marker) beyond this: real-length, but within
#: the judge's context window beside the instructions.
MAX_TASK_CHARS = 2500

#: One line per tool, in the words of the tools' documented behaviour; a write says "side
#: effect" (as `run` says it for a catalogue's side-effecting tools).
TOOL_DESCRIPTIONS: dict[str, str] = {
    # airline
    "get_user_details": "Get the details of a user (profile, payment methods, saved passengers, "
                        "membership, reservation ids). Read-only.",
    "get_reservation_details": "Get the details of a reservation (flights, cabin, passengers, "
                               "baggage, payment history, insurance). Read-only.",
    "search_direct_flight": "Search direct flights between two cities on a date. Read-only.",
    "search_onestop_flight": "Search one-stop flights between two cities on a date. Read-only.",
    "get_flight_status": "Get the status of a flight on a date. Read-only.",
    "list_all_airports": "List all airports and their cities. Read-only.",
    "book_reservation": "Book a new reservation and charge the given payment methods "
                        "(side effect).",
    "cancel_reservation": "Cancel the whole reservation and refund it to the original payment "
                          "methods (side effect). Only allowed within 24 hours of booking, when "
                          "the airline cancelled the flight, for business class, or with travel "
                          "insurance and a covered reason.",
    "update_reservation_flights": "Update the flights of a reservation (same origin, destination "
                                  "and trip type); charges or refunds the fare difference "
                                  "(side effect).",
    "update_reservation_passengers": "Update the passenger details of a reservation; the number "
                                     "of passengers cannot change (side effect).",
    "update_reservation_baggages": "Update the baggage of a reservation; extra bags are charged "
                                   "(side effect).",
    "send_certificate": "Send a certificate (travel voucher) of an amount to a user as "
                        "compensation (side effect).",
    # retail
    "find_user_id_by_email": "Find a user id by email. Read-only.",
    "find_user_id_by_name_zip": "Find a user id by first name, last name and zip code; use it "
                                "when the user cannot give an email. Read-only.",
    "get_order_details": "Get the status and details of an order. Read-only.",
    "get_product_details": "Get the inventory details (variants, prices, availability) of a "
                           "product. Read-only.",
    "list_all_product_types": "List the name and product id of every product type. Read-only.",
    "cancel_pending_order": "Cancel a pending order and refund it (side effect). The agent "
                            "explains the cancellation and asks for explicit confirmation.",
    "modify_pending_order_address": "Modify the shipping address of a pending order "
                                    "(side effect).",
    "modify_pending_order_items": "Modify items of a pending order to other items of the same "
                                  "product type; can be called once per order (side effect).",
    "modify_pending_order_payment": "Modify the payment method of a pending order "
                                    "(side effect).",
    "modify_user_address": "Modify the default address of a user (side effect).",
    "return_delivered_order_items": "Return some items of a delivered order and refund them "
                                    "(side effect); once per delivered order.",
    "exchange_delivered_order_items": "Exchange items of a delivered order for items of the same "
                                      "product type (side effect); once per delivered order.",
    # both
    "calculate": "Calculate the result of a mathematical expression. Read-only.",
    "think": "Think about something; obtains no information and changes nothing.",
    "transfer_to_human_agents": "Transfer the user to a human agent with a summary of the issue; "
                                "only when the user asks for one or the issue cannot be solved "
                                "with the available tools.",
}


def _domain(path: Path) -> str:
    """`ft-gpt-4.1_telecom_no-user` -> `telecom-nouser`."""
    return path.stem.split("_", 1)[-1].replace("_no-user", "-nouser")


def _cut(text: str, limit: int = MAX_TASK_CHARS) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f" ... [{len(text) - limit} characters cut]"


def _text(value: Any) -> str:
    """A value as the judge reads it: strings as they are, anything else as compact JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _simulations(path: Path) -> Iterator[tuple[int, dict[str, Any], list[dict[str, Any]]]]:
    """(number, simulation, the task's reference actions) for every simulation of a file.

    A simulation without a user (tau2's solo mode) gets its task's ticket as `ticket`: it is
    what the agent was asked."""
    data = json.loads(path.read_text(encoding="utf-8"))
    tasks = {task["id"]: task for task in data["tasks"]}
    for number, simulation in enumerate(data["simulations"]):
        task = tasks[simulation["task_id"]]
        criteria = task.get("evaluation_criteria") or {}
        yield number, {**simulation, "ticket": task.get("ticket") or ""}, list(
            criteria.get("actions") or [])


def _user_turns(simulation: dict[str, Any]) -> str:
    """Everything the user said, one turn a line; the ticket when there was no user."""
    said = [str(m["content"]) for m in simulation["messages"]
            if m.get("role") == "user" and m.get("content")]
    return "\n".join(said) or str(simulation["ticket"])


def _failed_ids(simulation: dict[str, Any]) -> set[str]:
    """The ids of the calls whose result is an error (tau2 writes them as `Error: ...`)."""
    return {str(m.get("id")) for m in simulation["messages"] if m.get("role") == "tool" and (
        m.get("error") or str(m.get("content") or "").lower().startswith("error"))}


def _agent_calls(simulation: dict[str, Any]) -> list[tuple[int, dict[str, Any], str]]:
    """(turn, call, what the user had said before it) for every call the agent made."""
    said: list[str] = [str(simulation["ticket"])] if simulation["ticket"] else []
    calls = []
    for turn, message in enumerate(simulation["messages"]):
        if message.get("role") == "user" and message.get("content"):
            said.append(str(message["content"]))
        if message.get("role") == "assistant":
            calls += [(turn, call, "\n".join(said)) for call in message.get("tool_calls") or []]
    return calls


def _route(simulation: dict[str, Any]) -> list[str]:
    """The agent's route as `run` shows it for a tau2 case: its calls that did not fail, in
    order (the tau2 importer allows failed calls, so they never count against a route)."""
    failed = _failed_ids(simulation)
    return [call["name"] for _, call, _ in _agent_calls(simulation) if call["id"] not in failed]


def _shared(reference: dict[str, Any], call: dict[str, Any]) -> int:
    """How many argument values a call shares with a reference action."""
    mine = call.get("arguments") or {}
    return sum(1 for k, v in (reference.get("arguments") or {}).items() if mine.get(k) == v)


def _pairs(actions: list[dict[str, Any]], calls: list[tuple[int, dict[str, Any], str]]
           ) -> list[tuple[dict[str, Any], tuple[int, dict[str, Any], str]]]:
    """Each reference action with arguments paired with at most one agent call of its tool,
    the pairs sharing most argument values first (so a call the reference makes twice, on two
    orders, pairs with the agent's call on the same order)."""
    scored = sorted(((_shared(a, c[1]), i, j) for i, a in enumerate(actions) if a.get("arguments")
                     for j, c in enumerate(calls) if c[1]["name"] == a["name"]),
                    key=lambda t: (-t[0], t[1], t[2]))
    used_a: set[int] = set()
    used_c: set[int] = set()
    pairs = []
    for _, i, j in scored:
        if i not in used_a and j not in used_c:
            used_a.add(i)
            used_c.add(j)
            pairs.append((i, j))
    return [(actions[i], calls[j]) for i, j in sorted(pairs)]


def argument_candidates(path: Path) -> Iterator[dict[str, Any]]:
    """Every differing argument of every reference action paired with an agent call."""
    domain = _domain(path)
    for number, simulation, actions in _simulations(path):
        for action, (turn, call, said) in _pairs(actions, _agent_calls(simulation)):
            actual = call.get("arguments") or {}
            for field, expected in action["arguments"].items():
                if _text(actual.get(field)) == _text(expected):
                    continue
                yield {"id": f"ae-real-{domain}-{number:02d}-{turn:03d}-{field}",
                       "inputs": {"task": _cut(said), "tool": action["name"], "field": field,
                                  "expected": _text(expected),
                                  "actual": _text(actual.get(field)), "rubric": None},
                       "reward": simulation["reward_info"]["reward"]}


def route_candidates(path: Path) -> Iterator[dict[str, Any]]:
    """One candidate per simulation whose agent route differs from the reference route, in the
    domains TOOL_DESCRIPTIONS describes (airline, retail)."""
    domain = _domain(path)
    for number, simulation, actions in _simulations(path):
        expected = [a["name"] for a in actions]
        actual = _route(simulation)
        if actual == expected or not set(expected + actual) <= TOOL_DESCRIPTIONS.keys():
            continue  # a matched route never reaches the judge; a domain not described here
        said = _user_turns(simulation)
        names = sorted(set(expected) | set(actual))
        yield {"id": f"ar-real-{domain}-{number:02d}",
               "inputs": {"task": _cut(said), "expected_routes": [expected],
                          "actual_route": actual,
                          "tool_descriptions": {n: TOOL_DESCRIPTIONS.get(n, "") for n in names}},
               "reward": simulation["reward_info"]["reward"]}
