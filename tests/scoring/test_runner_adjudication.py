"""The runner with deciding judges (fake client): judge verdicts and human decisions change
selection, the summary counts them, and gives pass rates with and without adjudication."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from builders_adjudication import PARCEL_ROUTE, copy_example, fake_engine, route_verdicts
from toolgrade.judging.scripted import FakeClient
from toolgrade.scoring.runner import grade, validate_inputs


def _graded(folder: Path, client: FakeClient) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    inputs = validate_inputs(folder / "suite.yaml", [folder / "runs"])
    output = grade(inputs, folder / "out", judge=fake_engine(client))
    lines = [json.loads(x) for x in output.results_path.read_text().splitlines()]
    return output.summary.to_data(), lines


def _selection(lines: list[dict[str, Any]], case_id: str, trial: int) -> dict[str, Any]:
    [record] = [r for r in lines if (r["case_id"], r["trial"]) == (case_id, trial)]
    selection: dict[str, Any] = record["checks"]["selection"]
    return selection


def test_judge_verdicts_decide_and_the_summary_counts_them(tmp_path: Path) -> None:
    summary, lines = _graded(copy_example(tmp_path), FakeClient(route_verdicts()))
    refund = _selection(lines, "refund-by-email", 1)
    assert refund["passed"] is True and refund["f1"] == pytest.approx(0.5)
    assert (refund["adjudicated"], refund["adjudicated_by"]) == ("pass", "judge")
    assert _selection(lines, "address-change", 1)["passed"] is False
    parcel = _selection(lines, "where-is-my-parcel", 1)
    assert parcel["passed"] is False and parcel["adjudicated"] == "unscored"
    hard = _selection(lines, "refund-by-email", 3)
    assert hard["passed"] is False and hard["adjudication_blocked_by"] == [
        "unauthorized_side_effect"]
    block = summary["adjudication"]["selection"]
    assert block["judge"] == {"pass": 2, "fail": 2, "unscored": 2}
    assert block["human"] == {"pass": 0, "fail": 0}
    assert block["blocked_by_hard_fail"] == 1
    # 3 listed-route runs pass either way; the two judged passes only with adjudication.
    assert (block["pass_rate"], block["pass_rate_without"]) == (0.5, 0.3)
    assert summary["checks"]["selection"]["pass_rate"] == 0.5
    assert summary["adjudication"]["aggregate"] == {"pass_rate": 0.5, "pass_rate_without": 0.3}


def test_a_human_decision_goes_before_the_judge(tmp_path: Path) -> None:
    folder = copy_example(tmp_path)
    (folder / "suite.adjudications.jsonl").write_text(json.dumps({
        "case_id": "where-is-my-parcel", "route": PARCEL_ROUTE, "decision": "accept",
        "reason": "tracking answers it", "by": "ana"}) + "\n" + json.dumps({
        "case_id": "refund-by-email", "route": ["search_orders", "refund"],
        "decision": "reject", "by": "ana"}) + "\n")
    client = FakeClient(route_verdicts())
    summary, lines = _graded(folder, client)
    parcel = _selection(lines, "where-is-my-parcel", 2)
    assert parcel["passed"] is True
    assert (parcel["adjudicated"], parcel["adjudicated_by"]) == ("pass", "human")
    assert parcel["adjudication_reason"] == "tracking answers it"
    refund = _selection(lines, "refund-by-email", 1)  # the judge would pass it; ana rejected it
    assert refund["passed"] is False and refund["adjudicated_by"] == "human"
    assert refund["adjudication_reason"] == "rejected by ana"
    asked = [r for r in client.requests if "Where is my parcel" in str(r.messages)]
    assert asked == []  # decided by a person: the judge is not asked
    block = summary["adjudication"]["selection"]
    assert block["human"] == {"pass": 2, "fail": 2}
    assert block["judge"] == {"pass": 0, "fail": 2, "unscored": 0}


def test_a_bad_decision_line_is_refused_with_its_line(tmp_path: Path) -> None:
    from toolgrade.errors import InputError

    folder = copy_example(tmp_path)
    (folder / "suite.adjudications.jsonl").write_text(
        '{"case_id": "where-is-my-parcel", "route": ["track_shipment"], "decision": "yes"}\n'
        '{"case_id": "nope", "route": [], "decision": "accept"}\n'
    )
    with pytest.raises(InputError) as caught:
        validate_inputs(folder / "suite.yaml", [folder / "runs"])
    shown = [str(p) for p in caught.value.problems]
    assert any(":1: decision:" in p for p in shown)
    assert any(":2: case_id: no case 'nope'" in p for p in shown)
