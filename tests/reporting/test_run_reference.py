"""Run views show the case's task input and expected route(s), whatever the run's format."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from builders_reporting import check, failure, record, small_summary, steps_record, write_run_dir
from toolgrade.loaders.transcripts import TRANSCRIPTS_FILE
from toolgrade.models import Case
from toolgrade.reporting.files import rerender
from toolgrade.reporting.run_reference import case_reference

CASE: dict[str, Any] = {
    "id": "refund-01",
    "input": [{"role": "system", "content": "You are a support agent."},
              {"role": "user", "content": "My order A123 arrived broken"}],
    "tools": {"lookup_order": {}, "search_orders": {}, "refund": {"side_effect": True},
              "verify_identity": {}, "reset_password": {}, "escalate": {}},
    "expected": {
        "selection": {"tools": ["lookup_order", "refund"],
                      "alternatives": [["search_orders", "refund"]],
                      "forbidden": ["reset_password"], "allow_reads": True},
        "arguments": [{"tool": "refund", "args": {
            "order_id": "A123", "amount": {"approx": 25.0, "tol": 0.01},
            "reason": {"semantic": "the item arrived damaged"}, "note": {"absent": True}}}],
        "ordering": {"groups": {"retrieval": ["lookup_order", "search_orders"]},
                     "before": [["@retrieval", "refund"]], "max_calls": {"lookup_order": 3}},
        "recovery": {"faults": [{"tool": "lookup_order", "nth": 1, "kind": "error"}],
                     "fallbacks": {"lookup_order": ["search_orders"]}, "escalate_with": "escalate"},
        "state": [{"path": "orders.A123.status", "equals": "refunded"}],
    },
}


def test_the_reference_lists_routes_arguments_order_and_recovery() -> None:
    ref = case_reference(Case.model_validate(CASE))
    assert ref.task == (("system", "You are a support agent."),
                        ("user", "My order A123 arrived broken"))
    lines = dict(ref.expected)
    assert lines["route"] == "lookup_order, refund"
    assert lines["alternative route"] == "search_orders, refund"
    assert lines["forbidden"] == "reset_password"
    assert lines["free calls"] == "every read-only tool"
    assert lines["arguments of refund"] == ('order_id = A123; amount ≈ 25.0 ± 0.01; reason means '
                                            'the item arrived damaged; note (left out)')
    assert lines["group @retrieval"] == "lookup_order | search_orders"
    assert lines["before"] == "@retrieval → refund"
    assert lines["max calls"] == "lookup_order ≤ 3"
    assert lines["fault"] == "error on lookup_order call 1"
    assert lines["fallback for lookup_order"] == "search_orders"
    assert lines["escalate with"] == "escalate"
    assert lines["state"] == '{"path": "orders.A123.status", "equals": "refunded"}'
    assert ref.expected[0][0] == "route"  # selection first, in report order


def test_a_no_tool_case_says_so_and_a_string_input_is_one_user_message() -> None:
    ref = case_reference(Case.model_validate(
        {"id": "thanks", "input": "thanks!", "expected": {"selection": {"no_tool": True}}}))
    assert ref.task == (("user", "thanks!"),)
    assert ref.expected == (("route", "no tool: the right answer calls none"),)


def test_a_steps_run_view_shows_the_task_and_the_route_from_the_suite(tmp_path: Path) -> None:
    # `steps` runs carry no user message: the task comes from the suite the summary names.
    suite = tmp_path / "suite.yaml"
    suite.write_text(yaml.safe_dump({"cases": [CASE]}), encoding="utf-8")
    failing = record("refund-01", passed=False, selection=check(
        passed=False, score=0.5, failures=[failure("missing_tool", None, "refund not called")]))
    run_dir = write_run_dir(tmp_path / "out", [failing],
                            {**small_summary(), "cases": 1, "trajectories": 1,
                             "suite": str(suite)})
    steps = [{"tool": "search_orders", "args": {"customer_email": "a@b.c"},
              "result": {"status": "ok", "content": "[]"}}]
    (run_dir / TRANSCRIPTS_FILE).write_text(json.dumps(steps_record("refund-01", steps)) + "\n",
                                            encoding="utf-8")
    rerender(run_dir)
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    view = re.search(r'<article class="run".*?</article>', page, re.S)
    assert view is not None
    ref = view.group(0)
    assert '<span class="role">user</span> My order A123 arrived broken' in ref
    assert "<dt>route</dt><dd>lookup_order, refund</dd>" in ref
    assert "<dt>alternative route</dt><dd>search_orders, refund</dd>" in ref
    assert '<dt class="did">agent called</dt><dd class="did">search_orders</dd>' in ref
    assert ref.index('class="ref"') < ref.index('class="steps"')  # above the transcript


def test_without_the_suite_the_view_says_what_the_agent_did_only(tmp_path: Path) -> None:
    run_dir = write_run_dir(tmp_path / "out", [record("refund-01", selection=check())],
                            {**small_summary(), "cases": 1, "trajectories": 1,
                             "suite": str(tmp_path / "gone.yaml")})
    steps = [{"tool": "lookup_order", "args": {"order_id": "A123"}}]
    (run_dir / TRANSCRIPTS_FILE).write_text(json.dumps(steps_record("refund-01", steps)) + "\n",
                                            encoding="utf-8")
    rerender(run_dir)
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert '<div class="ref single">' in page and 'class="task"' not in page
    assert '<dd class="did">lookup_order</dd>' in page
