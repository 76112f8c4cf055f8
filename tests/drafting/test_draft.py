"""`toolgrade draft` on the helpdesk example and on small runs written here."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from toolgrade.cli.main import app
from toolgrade.drafting.catalogue import read_catalogue, side_effect_from_name
from toolgrade.drafting.draft import DraftOptions, draft_suite, header, write_draft
from toolgrade.errors import InputError, ToolgradeError
from toolgrade.loaders import load_suite

ROOT = Path(__file__).resolve().parents[2]
HELPDESK = ROOT / "examples" / "helpdesk"


@pytest.fixture(scope="module")
def drafted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("draft") / "suite.yaml"
    result = CliRunner().invoke(app, ["draft", str(HELPDESK / "runs"), "--agent", "strong-agent",
                                      "--tools", str(HELPDESK / "suite.yaml"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "wrote 18 cases" in result.output and "coverage: no_tool 1" in result.output
    return out


def _case(path: Path, case_id: str) -> dict[str, object]:
    data = yaml.safe_load(path.read_text())
    return next(c for c in data["cases"] if c["id"] == case_id)


def test_the_draft_validates_with_toolgrade_validate(drafted: Path) -> None:
    result = CliRunner().invoke(app, ["validate", str(drafted)])
    assert result.exit_code == 0 and "ok: 18 cases" in result.output


def test_every_inferred_line_is_marked_for_review(drafted: Path) -> None:
    lines = drafted.read_text().splitlines()
    start = lines.index("cases:")
    structure = re.compile(r"^\s*(?:- id: .*|expected:|selection:|arguments:|args:|ordering:|"
                           r"before:|recovery:|state:|)$")
    for line in lines[start + 1:]:
        if "metadata:" in line or structure.match(line):
            continue
        assert re.search(r"  # review: .*\b(run|runs|user message|--free-reads)\b", line), line


def test_routes_arguments_and_orderings_come_from_the_runs(drafted: Path) -> None:
    refund = _case(drafted, "refund-damaged-01")["expected"]
    assert refund["selection"]["tools"] == ["lookup_order", "refund", "verify_identity"]
    assert refund["selection"]["alternatives"] == [["refund", "search_orders", "verify_identity"]]
    assert {call["tool"] for call in refund["arguments"]} == {"refund", "verify_identity"}
    [refund_call] = [c for c in refund["arguments"] if c["tool"] == "refund"]
    assert refund_call["args"]["order_id"] == "A123"
    assert refund_call["args"]["amount"] == {"approx": 25.0, "tol": 0.01}
    assert ["verify_identity", "refund"] in refund["ordering"]["before"]  # a guard
    receipt = _case(drafted, "receipt-number-18")["expected"]
    assert ["lookup_order", "get_shipping_status"] in receipt["ordering"]["before"]  # a flow
    assert _case(drafted, "thanks-07")["expected"]["selection"] == {"no_tool": True}


def test_faults_budgets_and_runs_that_gave_up(drafted: Path) -> None:
    outage = _case(drafted, "refund-outage-02")
    assert outage["expected"]["recovery"]["faults"] == [
        {"tool": "lookup_order", "nth": 1, "kind": "error"}]
    assert outage["metadata"] == {"drafted_from_runs": 2}  # the run that gave up is left out
    assert "alternatives" not in outage["expected"]["selection"]
    kb = _case(drafted, "kb-returns-14")["expected"]
    assert kb["recovery"]["faults"] == [{"tool": "search_kb", "nth": 1, "kind": "empty"}]
    assert kb["ordering"]["max_calls"] == {"search_kb": 3}


def _write_runs(path: Path, runs: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in runs))
    return path


def _run(trial: int, steps: list[dict[str, object]], agent: str = "a") -> dict[str, object]:
    return {"case_id": "c1", "trial": trial, "agent": agent, "steps": steps}


def test_calls_only_some_runs_make_become_alternatives_or_free(tmp_path: Path) -> None:
    routes = [["get_a"], ["get_b"], ["get_c"], ["get_d"], ["get_a", "get_b"]]
    runs = [_run(i, [{"tool": t, "args": {}, "result": {"status": "ok", "content": "x"}}
                     for t in ["find_user", *route]]) for i, route in enumerate(routes)]
    draft = draft_suite([_write_runs(tmp_path / "runs.jsonl", runs)], DraftOptions())
    selection = draft.cases[0].selection
    assert selection["tools"].value == ["find_user"]
    assert selection["allowed"].value == ["get_a", "get_b", "get_c", "get_d"]


def test_the_agent_and_min_runs_choose_what_is_drafted(tmp_path: Path) -> None:
    ok = {"tool": "get_a", "args": {"id": "X1"}, "result": {"status": "ok", "content": "y"}}
    runs = [_run(0, [ok]), _run(1, [ok]), {**_run(0, [ok], agent="b"), "case_id": "c2"}]
    path = _write_runs(tmp_path / "runs.jsonl", runs)
    draft = draft_suite([path], DraftOptions(agent="a"))
    assert [c.id for c in draft.cases] == ["c1"] and draft.runs == 2
    draft = draft_suite([path], DraftOptions(min_runs=2))
    assert [c.id for c in draft.cases] == ["c1"] and draft.skipped == {"c2": 1}


def test_bad_runs_stop_the_draft_and_write_nothing(tmp_path: Path) -> None:
    out = tmp_path / "suite.yaml"
    out.write_text("kept: as it was\n")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"case_id": "c1", "steps": "not a list"}\n')
    result = CliRunner().invoke(app, ["draft", str(bad), "--out", str(out)])
    assert result.exit_code == 2 and "bad.jsonl:1" in result.output
    assert out.read_text() == "kept: as it was\n"
    with pytest.raises(InputError):
        draft_suite([bad], DraftOptions())


def test_a_draft_that_would_not_load_is_not_written(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    ok = {"tool": "get_a", "args": {}, "result": {"status": "ok", "content": "y"}}
    path = _write_runs(tmp_path / "runs.jsonl", [_run(0, [ok])])
    draft = draft_suite([path], DraftOptions())
    monkeypatch.setattr("toolgrade.drafting.draft.suite_text", lambda *a: "cases: 3\n")
    with pytest.raises(InputError):
        write_draft(draft, tmp_path / "out.yaml", header(draft, [path], DraftOptions()))
    assert list(tmp_path.iterdir()) == [path]


def test_no_runs_of_the_agent_is_refused(tmp_path: Path) -> None:
    path = _write_runs(tmp_path / "runs.jsonl", [_run(0, [])])
    with pytest.raises(ToolgradeError, match="no runs of agent 'z'"):
        draft_suite([path], DraftOptions(agent="z"))


@pytest.mark.parametrize(("name", "writes"), [
    ("get_order", False), ("lookupOrder", False), ("refund", True), ("cancel_reservation", True),
    ("update_address", True), ("search_kb", False), ("get_or_create_user", False),
    ("send_email", True), ("summarise", False),
])
def test_side_effects_from_the_name(name: str, writes: bool) -> None:
    assert side_effect_from_name(name) is writes


def test_an_mcp_tools_list_gives_side_effects_from_annotations(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": [
        {"name": "read_file", "inputSchema": {"type": "object"},
         "annotations": {"readOnlyHint": True}},
        {"name": "delete_file", "annotations": {"destructiveHint": True}},
        {"name": "ping"},
    ]}))
    tools = read_catalogue(path)
    assert {n: t.side_effect for n, t in tools.items()} == {
        "read_file": False, "delete_file": True, "ping": True}


def test_a_catalogue_that_is_not_one_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "tools.yaml"
    path.write_text("tools: 3\n")
    with pytest.raises(ToolgradeError, match="tools: expected"):
        read_catalogue(path)


def test_a_drafted_suite_loads_with_the_suite_loader(drafted: Path) -> None:
    suite = load_suite(drafted)
    assert len(suite) == 18


def test_by_input_groups_runs_recorded_with_an_id_per_run(tmp_path: Path) -> None:
    ok = {"tool": "get_a", "args": {"id": "X1"}, "result": {"status": "ok", "content": "y"}}

    def asked(run_id: str, text: str) -> dict[str, object]:
        return {"case_id": run_id, "agent": "a", "steps": [{"role": "user", "content": text}, ok]}

    path = _write_runs(tmp_path / "runs.jsonl", [
        asked("r1", "where is X1?"), asked("r2", "where is X1?"), asked("r3", "cancel X1")])
    assert [c.id for c in draft_suite([path], DraftOptions()).cases] == ["r1", "r2", "r3"]
    draft = draft_suite([path], DraftOptions(by_input=True))
    assert [(c.id, c.runs) for c in draft.cases] == [("r1", 2), ("r3", 1)]


def test_free_reads_route_and_order_the_writes_only(tmp_path: Path) -> None:
    catalogue = tmp_path / "tools.yaml"
    catalogue.write_text("tools:\n  get_booking: {}\n  change_booking: {side_effect: true}\n")
    steps = [
        {"tool": "get_booking", "args": {"user": "u_1"},
         "result": {"status": "ok", "content": {"booking": "BK-42"}}},
        {"tool": "get_booking", "args": {"user": "u_1"},
         "result": {"status": "ok", "content": {"booking": "BK-42"}}},
        {"tool": "change_booking", "args": {"booking": "BK-42"},
         "result": {"status": "ok", "content": "done"}},
    ]
    path = _write_runs(tmp_path / "runs.jsonl", [_run(0, steps)])
    strict = draft_suite([path], DraftOptions(tools=catalogue)).cases[0]
    assert [line.value for line in strict.before] == [["get_booking", "change_booking"]]
    assert strict.budgets is not None and strict.budgets.value == {"get_booking": 3}
    free = draft_suite([path], DraftOptions(tools=catalogue, free_reads=True)).cases[0]
    assert free.selection["tools"].value == ["change_booking"]
    assert free.selection["allow_reads"].value is True
    assert free.before == [] and free.budgets is None
    assert [call.tool for call in free.arguments] == ["change_booking"]


def test_an_answer_is_ordered_after_the_reads_it_quotes_not_the_writes(tmp_path: Path) -> None:
    catalogue = tmp_path / "tools.yaml"
    catalogue.write_text("tools:\n  get_flight: {}\n  book_flight: {side_effect: true}\n")
    steps = [
        {"role": "user", "content": "book me on the morning flight"},
        {"tool": "get_flight", "args": {"when": "morning"},
         "result": {"status": "ok", "content": {"flight": "HAT-101"}}},
        {"tool": "book_flight", "args": {"when": "morning"},
         "result": {"status": "ok", "content": {"booking": "BK-7781"}}},
        {"role": "assistant", "content": "Booked HAT-101, your booking is BK-7781."},
    ]
    path = _write_runs(tmp_path / "runs.jsonl", [_run(0, steps), _run(1, steps)])
    case = draft_suite([path], DraftOptions(tools=catalogue)).cases[0]
    # The flight number is what the read looked up; the booking code only confirms the write.
    assert [line.value for line in case.before] == [["get_flight", "answer"]]
    assert "read's result" in case.before[0].review
