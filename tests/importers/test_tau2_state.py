"""The end state a tau2 trajectory shows: device and account reports, and the episode's end."""

from __future__ import annotations

from typing import Any

from toolgrade.importers.tau2_state import observed_state, state_assertions


def _sim(calls: list[tuple[str, dict[str, Any], str]], reason: str | None = "user_stop"
         ) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    for i, (name, args, content) in enumerate(calls):
        messages.append({"role": "user", "tool_calls": [
            {"id": f"c{i}", "name": name, "arguments": args, "requestor": "user"}]})
        messages.append({"role": "tool", "id": f"c{i}", "content": content})
    sim: dict[str, Any] = {"task_id": "t", "messages": messages}
    if reason is not None:
        sim["termination_reason"] = reason
    return sim


def test_the_last_report_of_each_subject_is_the_end_state() -> None:
    sim = _sim([
        ("can_send_mms", {}, "Your messaging app cannot send MMS messages."),
        ("run_speed_test", {}, "Speed test failed: No Connection."),
        ("run_speed_test", {}, "Speed Test Result: 275.00 Mbps (Excellent). Very fast."),
        ("can_send_mms", {}, "Your messaging app can send MMS messages."),
        ("refuel_data", {"customer_id": "C1", "line_id": "L2", "gb_amount": 2},
         '{"message": "ok", "new_data_refueling_gb": "2.0"}'),
        ("make_payment", {}, "Payment of 65.0 USD has been made for bill B12."),
    ])
    assert observed_state(sim) == {
        "episode": {"ended_normally": True}, "can_send_mms": True,
        "internet_speed": "excellent", "mobile_data_working": True,
        "data_refueling_gb": {"L2": 2.0}, "bill_paid": {"B12": True}}


def test_network_status_reports_whether_mobile_data_works() -> None:
    status = ("Airplane Mode: OFF\nCellular Connection: connected\nMobile Data Enabled: No")
    assert observed_state(_sim([("check_network_status", {}, status)]))[
        "mobile_data_working"] is False


def test_an_episode_cut_short_is_recorded_and_a_missing_reason_is_not() -> None:
    assert observed_state(_sim([], "max_steps"))["episode"] == {"ended_normally": False}
    assert observed_state(_sim([], None))["episode"] == {"ended_normally": True}


def test_failed_calls_and_unknown_texts_report_nothing() -> None:
    sim = _sim([("can_send_mms", {}, "???"), ("refuel_data", {"line_id": "L2"}, "not json")])
    assert observed_state(sim) == {"episode": {"ended_normally": True}}


def _task(*assertions: dict[str, Any]) -> dict[str, Any]:
    return {"id": "t", "evaluation_criteria": {"reward_basis": ["ENV_ASSERTION"],
                                               "env_assertions": list(assertions)}}


def _assertion(name: str, value: bool = True, **args: Any) -> dict[str, Any]:
    return {"env_type": "user", "func_name": name, "arguments": args, "assert_value": value}


def test_assertions_read_as_state_checks_and_the_rest_are_named() -> None:
    lines, unread = state_assertions(_task(
        _assertion("assert_can_send_mms", expected_status=True),
        _assertion("assert_mobile_data_status", False, expected_status=True),
        _assertion("assert_internet_speed", expected_speed=200, expected_desc="Excellent"),
        _assertion("assert_data_refueling_amount", line_id="L2", expected_amount=2),
        _assertion("assert_no_overdue_bill", overdue_bill_id="B12"),
        _assertion("assert_service_status", expected_status="connected"),
        _assertion("assert_internet_speed", False, expected_desc="poor"),
    ))
    assert lines == [
        {"path": "episode.ended_normally", "equals": True},
        {"path": "can_send_mms", "equals": True},
        {"path": "mobile_data_working", "equals": False},
        {"path": "internet_speed", "equals": "excellent"},
        {"path": "data_refueling_gb.L2", "equals": 2.0},
        {"path": "bill_paid.B12", "equals": True}]
    assert unread == ["assert_service_status", "assert_internet_speed"]
