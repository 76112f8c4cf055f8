"""`toolgrade adjudicate`: the walk-through of docs/judges.md on examples/adjudication, offline
(the example's scripted judge): judged, one route decided by hand, re-run, promoted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders_adjudication import copy_example
from toolgrade.cli.main import app

runner = CliRunner()


@pytest.fixture
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = copy_example(tmp_path)
    monkeypatch.chdir(folder)  # its toolgrade.toml names the script relative to it
    return folder


def _run() -> dict[str, object]:
    result = runner.invoke(app, ["run", "suite.yaml", "runs", "--out", "out", "-q"])
    assert result.exit_code == 0, result.output
    summary: dict[str, object] = json.loads(Path("out/summary.json").read_text())
    return summary


def _selection(summary: dict[str, object]) -> dict[str, object]:
    block = summary["adjudication"]
    assert isinstance(block, dict)
    selection: dict[str, object] = block["selection"]
    return selection


def test_lists_each_route_once_with_its_runs_and_verdicts(example: Path) -> None:
    _run()
    result = runner.invoke(app, ["adjudicate", "out", "--json"])
    assert result.exit_code == 0, result.output
    groups = json.loads(result.output)
    assert [(g["number"], g["route"], g["judge"]) for g in groups] == [
        (1, ["get_customer", "update_address"], {"fail": 2}),
        (2, ["refund", "search_orders"], {"pass": 2}),
        (3, ["track_shipment"], {"unscored": 2}),
    ]
    assert groups[1]["cases"] == ["refund-by-email"]
    assert groups[1]["runs"] == ["refund-by-email demo-agent:1", "refund-by-email demo-agent:2"]
    assert groups[0]["reasons"] == [
        "Reading the customer record does not verify their identity; the address was changed "
        "unverified."]


def test_decide_rerun_promote(example: Path) -> None:
    first = _run()
    assert _selection(first)["judge"] == {"pass": 2, "fail": 2, "unscored": 2}
    decided = runner.invoke(app, ["adjudicate", "out", "--accept", "3", "--reason",
                                  "tracking answers it", "--by", "ana"])
    assert decided.exit_code == 0, decided.output
    assert "recorded 1 decision(s)" in decided.output
    [line] = (example / "suite.adjudications.jsonl").read_text().splitlines()
    saved = json.loads(line)
    assert {k: saved[k] for k in ("case_id", "route", "decision", "reason", "by")} == {
        "case_id": "where-is-my-parcel", "route": ["track_shipment"], "decision": "accept",
        "reason": "tracking answers it", "by": "ana"}

    second = _run()
    assert _selection(second)["human"] == {"pass": 2, "fail": 0}
    assert _selection(second)["pass_rate"] == 0.7

    promoted = runner.invoke(app, ["adjudicate", "out", "--promote"])
    assert promoted.exit_code == 0, promoted.output
    assert "promoted track_shipment into where-is-my-parcel alternatives" in promoted.output
    suite_text = (example / "suite.yaml").read_text()
    assert "        alternatives: [[track_shipment]]\n        judge_alternates: true" in suite_text
    assert suite_text.startswith("# The adjudication example")  # comments kept

    third = _run()
    # The route is listed now: matched, no longer adjudicated.
    assert _selection(third)["human"] == {"pass": 0, "fail": 0}
    assert _selection(third)["pass_rate"] == 0.7 and _selection(third)["pass_rate_without"] == 0.5
    again = runner.invoke(app, ["adjudicate", "out", "--promote"])
    assert "nothing to promote" in again.output


def test_an_unknown_route_number_is_an_error(example: Path) -> None:
    _run()
    result = runner.invoke(app, ["adjudicate", "out", "--reject", "9"])
    assert result.exit_code == 2
    assert "--reject 9: no such adjudicated route; known: 1 (" in result.output
    assert not (example / "suite.adjudications.jsonl").exists()


def test_the_suite_may_be_named_when_the_summary_has_none(example: Path, tmp_path: Path) -> None:
    _run()
    summary = json.loads(Path("out/summary.json").read_text())
    del summary["suite"]
    Path("out/summary.json").write_text(json.dumps(summary))
    missing = runner.invoke(app, ["adjudicate", "out", "--no-input"])
    assert missing.exit_code == 2 and "name it with --suite" in missing.output
    named = runner.invoke(app, ["adjudicate", "out", "--suite", "suite.yaml", "--no-input"])
    assert named.exit_code == 0 and "3 adjudicated route(s)" in named.output


def test_a_bad_adjudications_file_stops_with_file_and_line(example: Path) -> None:
    _run()
    (example / "suite.adjudications.jsonl").write_text('{"case_id": "x", "route": []}\n')
    result = runner.invoke(app, ["adjudicate", "out", "--no-input"])
    assert result.exit_code == 2
    assert "suite.adjudications.jsonl:1: decision: required field missing" in result.output


def test_in_a_terminal_each_undecided_route_is_asked(example: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import toolgrade.cli.adjudicate_cmd as command

    _run()
    monkeypatch.setattr(command, "in_terminal", lambda: True)
    # Route 1: reject with a reason; route 2: skip; route 3: accept without one.
    result = runner.invoke(app, ["adjudicate", "out", "--by", "ana"],
                           input="r\nnot verified\ns\na\n\n")
    assert result.exit_code == 0, result.output
    assert result.output.count("accept, reject, skip or quit?") == 3
    lines = [json.loads(x) for x in
             (example / "suite.adjudications.jsonl").read_text().splitlines()]
    assert [(d["case_id"], d["decision"], d["reason"]) for d in lines] == [
        ("address-change", "reject", "not verified"),
        ("where-is-my-parcel", "accept", ""),
    ]
    # Decided routes are not asked again; quitting stops at once.
    again = runner.invoke(app, ["adjudicate", "out"], input="q\n")
    assert again.output.count("accept, reject, skip or quit?") == 1


def test_nothing_to_adjudicate_is_said_also_in_a_terminal(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import toolgrade.cli.adjudicate_cmd as command

    suite = example / "suite.yaml"
    suite.write_text(suite.read_text().replace("judge_alternates: true", "judge_alternates: false"))
    plain = runner.invoke(app, ["run", "suite.yaml", "runs", "--out", "out", "-q"])
    assert plain.exit_code == 0, plain.output
    monkeypatch.setattr(command, "in_terminal", lambda: True)
    result = runner.invoke(app, ["adjudicate", "out"])
    assert result.exit_code == 0 and "no adjudicated routes in out" in result.output


def test_with_reads_allowed_the_free_calls_are_listed_beside_the_route(example: Path) -> None:
    # Under allow_reads the parcel case's track_shipment is a free read: the route decided on
    # is the empty one, with the read shown beside it, and promoting it says so.
    suite = example / "suite.yaml"
    suite.write_text(suite.read_text().replace(
        "\ncases:\n", "\ndefaults:\n  selection: {allow_reads: true}\ncases:\n", 1))
    _run()
    listed = runner.invoke(app, ["adjudicate", "out", "--json"])
    assert listed.exit_code == 0, listed.output
    parcel = next(g for g in json.loads(listed.output) if g["cases"] == ["where-is-my-parcel"])
    assert (parcel["route"], parcel["free_calls"]) == ([], ["track_shipment"])
    shown = runner.invoke(app, ["adjudicate", "out", "--accept", str(parcel["number"])])
    assert "route: (no tool)\n" in shown.output
    assert "free calls beside it: track_shipment" in shown.output
    _run()
    promoted = runner.invoke(app, ["adjudicate", "out", "--promote"])
    assert "promoted (no tool) into where-is-my-parcel alternatives" in promoted.output


def test_accepting_and_rejecting_one_route_at_once_is_refused(example: Path) -> None:
    _run()
    key = json.loads(runner.invoke(app, ["adjudicate", "out", "--json"]).output)[0]["key"]
    result = runner.invoke(app, ["adjudicate", "out", "--accept", "1", "--reject", key])
    assert result.exit_code == 2
    assert "both accepted and rejected in one command: nothing was recorded" in result.output
    assert not (example / "suite.adjudications.jsonl").exists()
