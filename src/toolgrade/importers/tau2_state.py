"""What a tau2 trajectory shows of the end state its `ENV_ASSERTION` checks look at.

tau2 rewards telecom tasks on the device's and the account's state after the run
(`env_assertions`, such as `assert_can_send_mms`). The trajectory cannot recompute that state,
but the device's own tools report parts of it (`can_send_mms`, `run_speed_test`,
`check_network_status`) and the agent's writes report others (`refuel_data`, the user's
`make_payment`). The import reads the last such report of each subject into the run's
`final_state` and turns each assertion it can read into a state assertion of the case; the
assertions it cannot read are named per task (`metadata.not_reproduced`). A subject the run
never reported is absent from `final_state`, so its assertion fails: nothing shows it was met.
The line's service status (`assert_service_status`) is not read: the device reports it while
the agent diagnoses, before the fix, and a task that expects it unchanged has no report at
all, so a report is not the end state.

The run also records whether the episode ended normally (`episode.ended_normally`): tau2
rewards 0 a simulation that ended on `max_steps`, `too_many_errors` or any other reason than
the agent or the user stopping (a simulation without `termination_reason` counts as normal).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from toolgrade.importers.tau2_format import Tau2Message, Tau2Simulation, Tau2Task
from toolgrade.jsonio.values import JsonObject, JsonValue

#: tau2's termination reasons that end an episode normally (any other one is reward 0).
NORMAL_ENDINGS = ("agent_stop", "user_stop")
ENDED_PATH = "episode.ended_normally"

_CONNECTION = re.compile(r"Cellular Connection:\s*(\w+)")
_MOBILE_DATA = re.compile(r"Mobile Data Enabled:\s*(\w+)")
_SPEED = re.compile(r"Speed Test Result:.*?\(([^)]+)\)")
_PAID = re.compile(r"Payment of .* has been made for bill (\w+)")

#: A state line: `{path, equals}` as the case format's `expected.state` holds it.
StateLine = JsonObject
Observation = tuple[str, JsonValue]


def _text(content: JsonValue) -> str:
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)


def _mms(args: JsonObject, content: JsonValue) -> list[Observation]:
    text = _text(content)
    if "cannot send MMS" in text:
        return [("can_send_mms", False)]
    return [("can_send_mms", True)] if "can send MMS" in text else []


def _speed_test(args: JsonObject, content: JsonValue) -> list[Observation]:
    text = _text(content)
    if "failed" in text.lower():
        return [("internet_speed", "none"), ("mobile_data_working", False)]
    found = _SPEED.search(text)
    return [("internet_speed", found.group(1).strip().lower()),
            ("mobile_data_working", True)] if found else []


def _network_status(args: JsonObject, content: JsonValue) -> list[Observation]:
    text = _text(content)
    connection, data = _CONNECTION.search(text), _MOBILE_DATA.search(text)
    if connection is None or data is None:
        return []
    working = connection.group(1).lower() == "connected" and data.group(1) == "Yes"
    return [("mobile_data_working", working)]


def _refuel(args: JsonObject, content: JsonValue) -> list[Observation]:
    try:
        decoded = json.loads(content) if isinstance(content, str) else content
    except json.JSONDecodeError:
        return []
    line = args.get("line_id")
    amount = decoded.get("new_data_refueling_gb") if isinstance(decoded, dict) else None
    try:
        value = float(str(amount))
    except ValueError:
        return []
    return [(f"data_refueling_gb.{line}", value)] if isinstance(line, str) else []


def _payment(args: JsonObject, content: JsonValue) -> list[Observation]:
    found = _PAID.search(_text(content))
    return [(f"bill_paid.{found.group(1)}", True)] if found else []


#: Device and account tools whose results report a subject of an assertion.
_REPORTERS: dict[str, Callable[[JsonObject, JsonValue], list[Observation]]] = {
    "can_send_mms": _mms,
    "run_speed_test": _speed_test,
    "check_network_status": _network_status,
    "refuel_data": _refuel,
    "make_payment": _payment,
}


def observed_state(sim: Tau2Simulation) -> JsonObject:
    """The last report of each subject in the simulation, as a nested `final_state`."""
    messages: list[Tau2Message] = sim.get("messages") or []
    results = {m["id"]: m for m in messages if m.get("role") == "tool"
               and isinstance(m.get("id"), str) and m.get("error") is not True}
    flat: dict[str, JsonValue] = {}
    for message in messages:
        for call in message.get("tool_calls") or []:
            reporter = _REPORTERS.get(call.get("name", ""))
            result = results.get(call.get("id") or "")
            if reporter is None or result is None:
                continue
            args = call.get("arguments")
            flat.update(reporter(args if isinstance(args, dict) else {}, result.get("content")))
    reason = sim.get("termination_reason")
    # tau2 always records the reason; a file without one is not taken as cut short.
    state: JsonObject = {"episode": {"ended_normally": reason is None or reason in NORMAL_ENDINGS}}
    for path, value in flat.items():
        head, _, rest = path.partition(".")
        if rest:
            group = state.setdefault(head, {})
            if isinstance(group, dict):
                group[rest] = value
        else:
            state[head] = value
    return state


@dataclass(frozen=True)
class _Rule:
    """How one assertion function reads as a state assertion."""

    path: Callable[[JsonObject], str | None]
    expected: Callable[[JsonObject], JsonValue]


def _string(args: JsonObject, key: str) -> str | None:
    value = args.get(key)
    return value if isinstance(value, str) else None


_RULES: dict[str, _Rule] = {
    "assert_can_send_mms": _Rule(lambda a: "can_send_mms", lambda a: a.get("expected_status")),
    "assert_mobile_data_status": _Rule(lambda a: "mobile_data_working",
                                       lambda a: a.get("expected_status")),
    "assert_internet_speed": _Rule(lambda a: "internet_speed" if a.get("expected_desc")
                                   else None,
                                   lambda a: str(a.get("expected_desc")).lower()),
    "assert_data_refueling_amount": _Rule(
        lambda a: f"data_refueling_gb.{line}" if (line := _string(a, "line_id")) else None,
        lambda a: float(str(a.get("expected_amount")))),
    "assert_no_overdue_bill": _Rule(
        lambda a: f"bill_paid.{bill}" if (bill := _string(a, "overdue_bill_id")) else None,
        lambda a: True),
}


def state_assertions(task: Tau2Task) -> tuple[list[StateLine], list[str]]:
    """The task's env assertions as state assertions, and the ones that cannot be read."""
    criteria = task.get("evaluation_criteria") or {}
    lines: list[StateLine] = [{"path": ENDED_PATH, "equals": True}]
    unread: list[str] = []
    for assertion in criteria.get("env_assertions") or []:
        name = str(assertion.get("func_name"))
        line = _assertion_line(assertion) if isinstance(assertion, dict) else None
        if line is None:
            unread.append(name)
        else:
            lines.append(line)
    return lines, unread


def _assertion_line(assertion: JsonObject) -> StateLine | None:
    rule = _RULES.get(str(assertion.get("func_name")))
    args = assertion.get("arguments")
    if rule is None or not isinstance(args, dict):
        return None
    try:
        path, expected = rule.path(args), rule.expected(args)
    except ValueError:
        return None
    if path is None or expected is None:
        return None
    if assertion.get("assert_value", True) is not True:
        if not isinstance(expected, bool):
            return None  # "not equal to" has no state operator
        expected = not expected
    return {"path": path, "equals": expected}
