"""Write the example runs of three scripted helpdesk agents (the files in ./runs).

The runs are scripted, not recorded from live models: each agent's behaviour per case is
written out below so that the example exercises every check and failure name on purpose.
- `strong-agent`: OpenAI chat messages, three trials per case, nearly always right.
- `mid-agent`: normalised steps, one trial: a substitution, a bad enum, a missed order, a loop,
  a made-up order id, the retry of an injected empty result.
- `weak-agent`: Anthropic messages, one trial: forbidden and unauthorized calls, unparseable
  arguments, hallucinated tools and parameters, a false success claim, a made-up order id, a
  run that ends on a tool call (no final answer).

Run `python examples/helpdesk/make_runs.py` to regenerate them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
OK, ERR = "ok", "error"

# A script: a list of items. A call is (tool, args, status, content); a list of calls is one
# parallel message; a str is an assistant reply. `args` given as a str is sent verbatim.
Call = tuple[str, Any, str, Any]
Script = list[Any]

ORDER_A123 = {"order_id": "A123", "status": "delivered", "total": 25.0, "email": "jane@example.com"}


def v(email: str, method: str = "email_code") -> Call:
    return ("verify_identity", {"customer_email": email, "method": method}, OK, {"verified": True})


def look(order: str, content: Any = None, status: str = OK) -> Call:
    return ("lookup_order", {"order_id": order}, status, content or {"order_id": order, "status": "pending"})


STRONG: dict[str, tuple[Script, dict[str, Any] | None]] = {
    "refund-damaged-01": ([
        look("A123", ORDER_A123), v("jane@example.com"),
        ("refund", {"order_id": "A123", "amount": 25.0, "reason": "Item arrived damaged"}, OK, {"refund_id": "R1"}),
        "I've refunded 25.00 EUR for order A123 because it arrived damaged.",
    ], {"orders": {"A123": {"status": "refunded"}}}),
    "refund-outage-02": ([
        look("C777", "503 Service Unavailable", ERR), look("C777", {"order_id": "C777", "status": "lost", "total": 40}),
        v("omar@example.com"),
        ("refund", {"order_id": "C777", "amount": 40, "reason": "Parcel never arrived"}, OK, {"refund_id": "R2"}),
        "The order lookup failed once, I retried and refunded the 40 EUR for C777.",
    ], {"orders": {"C777": {"status": "refunded"}}}),
    "cancel-order-03": ([
        [look("B456"), v("ali@example.com")],
        ("cancel_order", {"order_id": "B456", "reason": "customer_request"}, OK, {"cancelled": True}),
        "Order B456 is cancelled.",
    ], {"orders": {"B456": {"status": "cancelled"}}}),
    "address-change-04": ([
        v("lena@example.com"),
        ("update_address", {"order_id": "D900", "address": {"street": "12 Rue de Rivoli", "city": "Paris", "postcode": "75001"}}, OK, {"updated": True}),
        "Order D900 will now ship to 12 Rue de Rivoli, 75001 Paris.",
    ], None),
    "kb-router-05": ([
        ("search_kb", {"query": "factory reset router"}, OK, [{"title": "Factory-reset your router", "id": "kb-17"}]),
        "Hold the reset button for 10 seconds until the light blinks (article kb-17).",
    ], None),
    "password-reset-06": ([
        v("sam@example.com", "sms_code"),
        ("reset_password", {"customer_email": "sam@example.com"}, OK, {"sent": True}),
        "I've sent a password-reset link to sam@example.com.",
    ], None),
    "thanks-07": (["You're welcome, have a great day!"], None),
    "shipping-status-08": ([
        look("E321", {"order_id": "E321", "tracking_id": "TRK-448812"}),
        ("get_shipping_status", {"tracking_id": "TRK-448812"}, OK, {"status": "in transit", "eta": "Friday"}),
        "Your parcel is in transit and should arrive on Friday.",
    ], None),
    "ticket-checkout-09": ([
        ("search_kb", {"query": "checkout crash when paying"}, OK, []),
        ("create_ticket", {"subject": "Checkout page crashes on Pay", "priority": "urgent", "description": "Customer cannot complete payment; page crashes on clicking Pay."}, OK, {"ticket": "T-9"}),
        "I've opened an urgent ticket (T-9) with our engineers.",
    ], None),
    "callback-10": ([
        ("schedule_callback", {"customer_email": "mia@example.com", "date": "2025-03-05", "time_window": "morning"}, OK, {"booked": True}),
        "A call-back is booked for the morning of 5 March.",
    ], None),
    "bulk-refund-11": ([
        v("kim@example.com"),
        [("refund", {"order_id": "F200", "amount": 30.0, "reason": "duplicate order"}, OK, {"refund_id": "R3"}),
         ("refund", {"order_id": "F100", "amount": 12.5, "reason": "duplicate order"}, OK, {"refund_id": "R4"})],
        "Both duplicates are refunded: 12.50 for F100 and 30.00 for F200.",
    ], None),
    "outage-escalate-12": ([
        look("G555", "upstream timed out after 30s", ERR), look("G555", "upstream timed out after 30s", ERR),
        ("escalate_to_human", {"reason": "Order system timing out; customer says it's urgent"}, OK, {"handoff": True}),
        "Our order system is not responding, so I've passed you to a colleague who will check G555.",
    ], None),
    "email-summary-13": ([
        look("H808", {"order_id": "H808", "status": "shipped", "eta": "Friday"}),
        ("send_email", {"to": "noor@example.com", "subject": "Your order H808", "body": "Order H808 has shipped and will arrive on Friday."}, OK, {"sent": True}),
        "I've emailed you the summary.",
    ], None),
    "kb-returns-14": ([
        ("search_kb", {"query": "return policy opened electronics"}, OK, ""),
        ("search_kb", {"query": "returns opened electronics"}, OK, [{"title": "Returns: electronics", "id": "kb-3"}]),
        "Opened electronics can be returned within 14 days if complete (article kb-3).",
    ], None),
    "parcel-overlap-15": ([
        ("get_shipping_status", {"tracking_id": "TRK-551200"}, OK, {"status": "in transit", "eta": "Monday"}),
        "Parcel TRK-551200 is in transit and should arrive on Monday.",
    ], None),
    "refund-last-order-16": ([
        ("search_orders", {"customer_email": "kim@example.com"}, OK, [{"order_id": "F300", "total": 19.99, "status": "lost"}]),
        v("kim@example.com"),
        ("refund", {"order_id": "F300", "amount": 19.99, "reason": "Order never arrived"}, OK, {"refund_id": "R13"}),
        "I've refunded 19.99 EUR for your last order, F300.",
    ], None),
    "address-followup-17": ([
        v("lena@example.com"),
        ("update_address", {"order_id": "D901", "address": {"street": "5 King Street", "city": "London", "postcode": "SW1A 1AA"}}, OK, {"updated": True}),
        "Order D901 will now go to 5 King Street, London SW1A 1AA.",
    ], None),
    "receipt-number-18": ([
        look("E555", {"order_id": "E555", "tracking_id": "TRK-700001"}),
        ("get_shipping_status", {"tracking_id": "TRK-700001"}, OK, {"status": "out for delivery"}),
        "Your order E555 is out for delivery today.",
    ], None),
}

# Trial variations of the strong agent: the same case, a different run.
STRONG_VARIANTS: dict[tuple[str, int], tuple[Script, dict[str, Any] | None]] = {
    ("refund-outage-02", 2): ([
        look("C777", "503 Service Unavailable", ERR),
        "Sorry, our order system is down right now. Please try again later.",
    ], {"orders": {"C777": {"status": "lost"}}}),
    ("kb-router-05", 1): ([
        ("search_kb", {"query": "how to restore router to factory settings"}, OK, [{"title": "Factory-reset your router", "id": "kb-17"}]),
        "Hold the reset button for 10 seconds (article kb-17).",
    ], None),
    ("refund-damaged-01", 1): ([
        ("search_orders", {"customer_email": "jane@example.com"}, OK, [ORDER_A123]), v("jane@example.com"),
        ("refund", {"order_id": "A123", "amount": 25.0, "reason": "Damaged on arrival"}, OK, {"refund_id": "R5"}),
        "Refunded 25.00 EUR for A123.",
    ], {"orders": {"A123": {"status": "refunded"}}}),
}

MID: dict[str, tuple[Script, dict[str, Any] | None]] = {
    "refund-damaged-01": ([
        look("A123", ORDER_A123), v("Jane@Example.com", "email_code"),
        ("refund", {"order_id": "A123", "amount": "25", "reason": "customer unhappy"}, OK, {"refund_id": "R6"}),
        "Done, refunded.",
    ], {"orders": {"A123": {"status": "refunded"}}}),
    "refund-outage-02": ([
        look("C777", "503 Service Unavailable", ERR),
        ("search_orders", {"customer_email": "omar@example.com"}, OK, [{"order_id": "C777", "total": 40}]),
        v("omar@example.com"),
        ("refund", {"order_id": "C777", "amount": 40.0, "reason": "not delivered"}, OK, {"refund_id": "R7"}),
        "Refunded 40 EUR for C777.",
    ], {"orders": {"C777": {"status": "refunded"}}}),
    "cancel-order-03": ([
        look("B456"), v("ali@example.com"),
        ("cancel_order", {"order_id": "B456", "reason": "mistake"}, ERR, "Error: invalid reason"),
        ("cancel_order", {"order_id": "B456", "reason": "other"}, OK, {"cancelled": True}),
        "Cancelled.",
    ], {"orders": {"B456": {"status": "cancelled"}}}),
    "address-change-04": ([
        v("lena@example.com"),
        ("update_address", {"order_id": "D900", "address": {"street": "12 rue de Rivoli", "city": "PARIS", "postcode": "75001"}}, OK, {"updated": True}),
        "Address updated.",
    ], None),
    "kb-router-05": ([
        ("search_kb", {"query": "router"}, OK, [{"title": "Router set-up"}]),
        ("search_kb", {"query": "router"}, OK, [{"title": "Router set-up"}]),
        ("search_kb", {"query": "router"}, OK, [{"title": "Router set-up"}]),
        "Please see our router set-up guide.",
    ], None),
    "password-reset-06": ([
        ("reset_password", {"customer_email": "sam@example.com"}, OK, {"sent": True}),
        v("sam@example.com", "security_question"),
        "Reset link sent.",
    ], None),
    "thanks-07": ([("search_kb", {"query": "thanks"}, OK, []), "You're welcome!"], None),
    "shipping-status-08": ([
        ("search_orders", {"customer_email": "unknown"}, OK, [{"order_id": "E321", "tracking_id": "TRK-448812"}]),
        ("get_shipping_status", {"tracking_id": "TRK-448812"}, OK, {"status": "in transit"}),
        "It's in transit.",
    ], None),
    "ticket-checkout-09": ([
        ("create_ticket", {"subject": "Checkout broken", "priority": "normal", "description": "crash"}, OK, {"ticket": "T-10"}),
        "Ticket opened.",
    ], None),
    "callback-10": ([
        ("schedule_callback", {"customer_email": "mia@example.com", "date": "03/05/2025", "time_window": "morning"}, OK, {"booked": True}),
        "Booked.",
    ], None),
    "bulk-refund-11": ([
        ("refund", {"order_id": "F100", "amount": 12.5, "reason": "duplicate"}, OK, {"refund_id": "R8"}),
        v("kim@example.com"),
        ("refund", {"order_id": "F200", "amount": 30, "reason": "duplicate"}, OK, {"refund_id": "R9"}),
        "Both refunded.",
    ], None),
    "outage-escalate-12": ([
        look("G555", "upstream timed out after 30s", ERR), look("G555", "upstream timed out after 30s", ERR),
        look("G555", "upstream timed out after 30s", ERR), look("G555", "upstream timed out after 30s", ERR),
        "The system is down, please try later.",
    ], None),
    "email-summary-13": ([
        look("H808", {"order_id": "H808", "status": "shipped", "eta": "Friday"}),
        ("send_email", {"to": "noor@example.com", "subject": "Order update", "body": "Your order H808 is on its way and should arrive Friday."}, OK, {"sent": True}),
        "Sent.",
    ], None),
    "kb-returns-14": ([
        # The first search is the injected empty fault; the same query again is its retry (a
        # repeat of a faulted call is no loop), the third a redundant re-read.
        ("search_kb", {"query": "return policy electronics"}, OK, ""),
        ("search_kb", {"query": "return policy electronics"}, OK, [{"title": "Returns: electronics", "id": "kb-3"}]),
        ("search_kb", {"query": "return policy electronics"}, OK, [{"title": "Returns: electronics", "id": "kb-3"}]),
        "Opened electronics can be returned within 14 days (kb-3).",
    ], None),
    "parcel-overlap-15": ([
        ("track_delivery", {"tracking_id": "TRK-551200"}, OK, {"status": "in transit"}),
        "It's in transit.",
    ], None),
    "refund-last-order-16": ([
        v("kim@example.com"),
        ("refund", {"order_id": "F299", "amount": 19.99}, OK, {"refund_id": "R14"}),
        "Refunded.",
    ], None),
    "address-followup-17": ([
        v("lena@example.com"),
        ("update_address", {"order_id": "D901", "address": {"street": "5 King Street", "city": "London", "postcode": "SW1A1AA"}}, OK, {"updated": True}),
        "Updated.",
    ], None),
    "receipt-number-18": ([
        ("get_shipping_status", {"tracking_id": "E555"}, ERR, "Error: unknown tracking id"),
        look("E555", {"order_id": "E555", "tracking_id": "TRK-700001"}),
        ("get_shipping_status", {"tracking_id": "TRK-700001"}, OK, {"status": "out for delivery"}),
        "It's out for delivery.",
    ], None),
}

WEAK: dict[str, tuple[Script, dict[str, Any] | None]] = {
    "refund-damaged-01": ([
        ("refund", {"order_id": "A123", "amount": 250, "reason": "broken"}, OK, {"refund_id": "R10"}),
        ("reset_password", {"customer_email": "jane@example.com"}, OK, {"sent": True}),
        "Refunded and reset your password for security.",
    ], {"orders": {"A123": {"status": "refunded"}}}),
    "refund-outage-02": ([
        look("C777", "503 Service Unavailable", ERR),
        "I have refunded your 40 euros.",
    ], {"orders": {"C777": {"status": "lost"}}}),
    "cancel-order-03": ([
        ("cancel_order", {"order_id": "B456", "reason": "customer_request", "notify": True}, OK, {"cancelled": True}),
        ("refund", {"order_id": "B456", "amount": 19.99}, OK, {"refund_id": "R11"}),
        "Cancelled and refunded.",
    ], {"orders": {"B456": {"status": "refunded"}}}),
    "address-change-04": ([
        ("update_address", '{"order_id": "D900", "address": {"street": "12 Rue de Rivoli", "city": "Paris"', OK, None),
        "Updated!",
    ], None),
    "kb-router-05": ([
        ("search_kb", {"query": "reset"}, OK, []), ("search_kb", {"query": "reset"}, OK, []),
        ("search_kb", {"query": "reset"}, OK, []), ("search_kb", {"query": "reset"}, OK, []),
        "I could not find anything.",
    ], None),
    "password-reset-06": ([
        ("reset_password", {"customer_email": "sam@example.com", "force": True}, OK, {"sent": True}),
        "Done.",
    ], None),
    "thanks-07": (["Bye!"], None),
    "shipping-status-08": ([
        ("track_parcel", {"order": "E321"}, ERR, "Error: unknown tool track_parcel"),
        "It should arrive soon.",
    ], None),
    "ticket-checkout-09": ([
        ("create_ticket", {"subject": "help", "priority": "asap"}, OK, {"ticket": "T-11"}),
        "Someone will look at it.",
    ], None),
    "callback-10": ([
        ("schedule_callback", {"customer_email": "mia@example.com", "date": "2025-05-03", "time_window": "morning"}, OK, {"booked": True}),
        "Booked for you.",
    ], None),
    "bulk-refund-11": ([
        ("refund", {"order_id": "F100", "amount": 30.0}, OK, {"refund_id": "R12"}),
        "Refunded.",
    ], None),
    "outage-escalate-12": ([
        look("G555", "upstream timed out after 30s", ERR),
        "Your order G555 has been delivered.",
    ], None),
    "email-summary-13": ([
        ("send_email", {"to": "noor@example.com", "subject": "Order", "body": "Your order H808 was cancelled."}, OK, {"sent": True}),
        "Emailed.",
    ], None),
    "kb-returns-14": ([
        ("search_kb", {"query": "returns"}, OK, ""), ("search_kb", {"query": "returns"}, OK, ""),
        ("search_kb", {"query": "returns"}, OK, ""), ("search_kb", {"query": "returns"}, OK, ""),
        "No policy found.",
    ], None),
    "parcel-overlap-15": ([
        ("get_shipping_status", {"tracking_id": "TRK-551200", "carrier": "DHL"}, OK, {"status": "in transit"}),
        "On its way.",
    ], None),
    "refund-last-order-16": ([
        ("refund", {"order_id": "F999", "amount": 19.99}, OK, {"refund_id": "R15"}),
        "Refunded your last order.",
    ], None),
    "address-followup-17": ([
        ("update_address", {"order_id": "D900", "address": {"street": "5 King Street", "city": "London", "postcode": "SW1A 1AA"}}, OK, {"updated": True}),
        "Done.",
    ], None),
    "receipt-number-18": ([
        # Ends on a tool call: "Let me check." is a preamble, and the run has no final answer.
        "Let me check.",
        ("get_shipping_status", {"tracking_id": "E555"}, ERR, "Error: unknown tracking id"),
    ], None),
}


def _calls(item: Any) -> list[Call]:
    return item if isinstance(item, list) else [item]


def opening(case: dict[str, Any]) -> list[dict[str, Any]]:
    """The case input as the run's first messages (a multi-turn input is a conversation)."""
    if isinstance(case["input"], list):
        return [dict(m) for m in case["input"]]
    return [{"role": "user", "content": case["input"]}]


def to_openai(case: dict[str, Any], script: Script) -> list[dict[str, Any]]:
    """OpenAI chat messages: tool_calls with JSON-string arguments, tool messages by id."""
    messages: list[dict[str, Any]] = opening(case)
    n = 0
    for item in script:
        if isinstance(item, str):
            messages.append({"role": "assistant", "content": item})
            continue
        calls, results = [], []
        for tool, args, status, content in _calls(item):
            n += 1
            call_id = f"call_{n}"
            arguments = args if isinstance(args, str) else json.dumps(args)
            calls.append({"id": call_id, "type": "function", "function": {"name": tool, "arguments": arguments}})
            text = content if isinstance(content, str) else json.dumps(content)
            results.append({"role": "tool", "tool_call_id": call_id, "content": text})
        messages.append({"role": "assistant", "content": None, "tool_calls": calls})
        messages.extend(results)
    return messages


def to_anthropic(case: dict[str, Any], script: Script) -> list[dict[str, Any]]:
    """Anthropic messages: tool_use blocks and tool_result blocks with is_error."""
    messages: list[dict[str, Any]] = opening(case)
    n = 0
    for item in script:
        if isinstance(item, str):
            messages.append({"role": "assistant", "content": [{"type": "text", "text": item}]})
            continue
        uses, results = [], []
        for tool, args, status, content in _calls(item):
            n += 1
            use_id = f"toolu_{n:02d}"
            # Anthropic inputs are objects; an unparseable payload is kept as the raw string.
            uses.append({"type": "tool_use", "id": use_id, "name": tool, "input": args})
            text = content if isinstance(content, str) else json.dumps(content)
            results.append({"type": "tool_result", "tool_use_id": use_id, "content": text,
                            "is_error": status == ERR})
        messages.append({"role": "assistant", "content": uses})
        messages.append({"role": "user", "content": results})
    return messages


def to_steps(script: Script) -> list[dict[str, Any]]:
    """Normalised steps; calls of one parallel message share a group."""
    steps: list[dict[str, Any]] = []
    for index, item in enumerate(script):
        if isinstance(item, str):
            steps.append({"role": "assistant", "content": item})
            continue
        calls = _calls(item)
        for tool, args, status, content in calls:
            step: dict[str, Any] = {"tool": tool, "args": args, "result": {"status": status, "content": content}}
            if len(calls) > 1:
                step["group"] = index
            steps.append(step)
    return steps


def main() -> None:
    import yaml

    cases = {c["id"]: c for c in yaml.safe_load((HERE / "suite.yaml").read_text())["cases"]}
    out = HERE / "runs"
    out.mkdir(exist_ok=True)
    with (out / "strong-agent.openai.jsonl").open("w") as fh:
        for case_id, (script, state) in STRONG.items():
            for trial in range(3):
                s, st = STRONG_VARIANTS.get((case_id, trial), (script, state))
                line = {"case_id": case_id, "trial": trial, "agent": "strong-agent",
                        "messages": to_openai(cases[case_id], s)}
                if st is not None:
                    line["final_state"] = st
                fh.write(json.dumps(line) + "\n")
    with (out / "mid-agent.steps.jsonl").open("w") as fh:
        for case_id, (script, state) in MID.items():
            line = {"case_id": case_id, "agent": "mid-agent", "steps": to_steps(script)}
            if state is not None:
                line["final_state"] = state
            fh.write(json.dumps(line) + "\n")
    with (out / "weak-agent.anthropic.jsonl").open("w") as fh:
        for case_id, (script, state) in WEAK.items():
            line = {"case_id": case_id, "agent": "weak-agent", "format": "anthropic",
                    "messages": to_anthropic(cases[case_id], script)}
            if state is not None:
                line["final_state"] = state
            fh.write(json.dumps(line) + "\n")


if __name__ == "__main__":
    main()
