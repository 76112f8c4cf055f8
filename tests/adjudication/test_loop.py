"""The adjudication loop on examples/adjudication/loop, offline: run (first judge, escalation,
people), adjudicate, re-run, export, recalibrate; and its bad inputs (exit 2)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolgrade.calibration.calibrate import load_set
from toolgrade.cli.main import app

runner = CliRunner()
LOOP = Path(__file__).resolve().parents[2] / "examples" / "adjudication" / "loop"


@pytest.fixture
def loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "loop"
    shutil.copytree(LOOP, folder, ignore=shutil.ignore_patterns("out", "*.adjudications.jsonl"))
    monkeypatch.chdir(folder)
    monkeypatch.setenv("TOOLGRADE_CALIBRATION_DIR", str(tmp_path / "records"))
    return folder


def _run() -> dict[str, object]:
    result = runner.invoke(app, ["run", "suite.yaml", "runs", "--out", "out"])
    assert result.exit_code == 0, result.output
    summary: dict[str, object] = json.loads(Path("out/summary.json").read_text())
    judges = summary["judges"]
    assert isinstance(judges, dict)
    block: dict[str, object] = judges["argument_equivalence"]
    block["console"] = result.output
    return block


def _listed() -> list[dict[str, object]]:
    result = runner.invoke(app, ["adjudicate", "out", "--json"])
    assert result.exit_code == 0, result.output
    items: list[dict[str, object]] = json.loads(result.output)
    return items


def test_the_loop_end_to_end(loop: Path) -> None:
    first = _run()
    assert first["items"] == {"decided_locally": 1, "escalated": 1, "decided_by_people": 0,
                              "left_for_people": 1}
    assert "1 decided locally, 1 escalated, 0 decided by people, 1 left for people; " \
        "coverage 0.33" in str(first["console"])
    items = _listed()
    assert [(i["number"], i["left_for_people"]) for i in items] == [(1, False), (2, True)]
    assert items[1]["inputs"]["actual"] == "they do not fit"  # type: ignore[index]
    assert items[0]["escalated"]["verdict"] == "fail"  # type: ignore[index]

    decisions = loop / "decisions.jsonl"
    decisions.write_text(json.dumps({"id": "1", "decision": "fail", "reason": "late"}) + "\n"
                         + json.dumps({"id": items[1]["key"], "decision": "pass"}) + "\n")
    decided = runner.invoke(app, ["adjudicate", "out", "--decisions", str(decisions),
                                  "--by", "ana"])
    assert decided.exit_code == 0, decided.output
    assert "recorded 2 decision(s)" in decided.output

    second = _run()  # people first: neither judge is asked about the decided items
    assert second["items"] == {"decided_locally": 1, "escalated": 0, "decided_by_people": 2,
                               "left_for_people": 0}
    assert second["calls"] == 1 and second["escalation"]["calls"] == 0  # type: ignore[index]
    assert _listed() == []

    exported = runner.invoke(app, ["adjudicate", "out", "--export-set", "set"])
    assert exported.exit_code == 0, exported.output
    labelled = load_set(loop / "set" / "argument_equivalence.jsonl", "argument_equivalence")
    assert sorted(i.label for i in labelled.items) == ["fail", "pass"]
    assert labelled.provenance["annotators"] == ["ana"]
    assert all("adjudicated" in i.tags for i in labelled.items)

    measured = runner.invoke(app, ["calibrate", "--dimension", "argument_equivalence", "--set",
                                   "set/argument_equivalence.jsonl", "--model",
                                   "scripted/escalation_script.json", "--out", "record.json"])
    assert measured.exit_code == 0, measured.output
    record = json.loads((loop / "record.json").read_text())
    assert record["n"] == 2 and record["unscored"] == 1  # the item it could not decide either


def test_a_malformed_decisions_file_records_nothing(loop: Path) -> None:
    _run()
    bad = loop / "decisions.jsonl"
    bad.write_text('{"id": "1", "decision": "maybe"}\nnot json\n{"id": "99", "decision": "pass"}\n')
    result = runner.invoke(app, ["adjudicate", "out", "--decisions", str(bad)])
    assert result.exit_code == 2
    assert f"{bad}:1: decision" in result.output and f"{bad}:2" in result.output
    assert f"{bad}:3: id: no route or judge item '99' is listed" in result.output
    assert not (loop / "suite.adjudications.jsonl").exists()


def test_an_unknown_item_id_is_an_error(loop: Path) -> None:
    _run()
    result = runner.invoke(app, ["adjudicate", "out", "--accept", "ffffffffffff"])
    assert result.exit_code == 2
    assert "--accept ffffffffffff: no such adjudicated route or judge item; known: 1 (" \
        in result.output


def test_a_label_on_an_argument_item_is_refused(loop: Path) -> None:
    _run()
    result = runner.invoke(app, ["adjudicate", "out", "--reject", "2", "--label", "misread_result"])
    assert result.exit_code == 2 and "only a result_interpretation fail takes a label" \
        in result.output


def test_a_hand_edited_decision_whose_inputs_changed_stops_the_run(loop: Path) -> None:
    _run()
    assert runner.invoke(app, ["adjudicate", "out", "--accept", "2"]).exit_code == 0
    path = loop / "suite.adjudications.jsonl"
    path.write_text(path.read_text().replace("they do not fit", "they fit"))
    result = runner.invoke(app, ["run", "suite.yaml", "runs", "--out", "out"])
    assert result.exit_code == 2 and "does not match its dimension and inputs" in result.output


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_an_export_into_a_read_only_folder_is_an_error(loop: Path) -> None:
    _run()
    assert runner.invoke(app, ["adjudicate", "out", "--accept", "2"]).exit_code == 0
    locked = loop / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        result = runner.invoke(app, ["adjudicate", "out", "--export-set", str(locked)])
    finally:
        locked.chmod(0o700)
    assert result.exit_code == 2 and "cannot write argument_equivalence.jsonl" in result.output


def test_an_export_where_a_file_stands_is_an_error(loop: Path) -> None:
    _run()
    assert runner.invoke(app, ["adjudicate", "out", "--accept", "2"]).exit_code == 0
    (loop / "taken").write_text("a file")
    result = runner.invoke(app, ["adjudicate", "out", "--export-set", "taken"])
    assert result.exit_code == 2 and "--export-set taken: cannot create the folder" \
        in result.output


def _band(set_args: list[str], out: str) -> dict[str, object]:
    result = runner.invoke(app, ["calibrate", "--dimension", "argument_equivalence", *set_args,
                                 "--model", "scripted/p_pass_script.json", "--fit-threshold",
                                 "--out", out])
    assert result.exit_code == 0, result.output
    record: dict[str, object] = json.loads(Path(out).read_text())
    return record


def test_the_grown_set_refits_the_band(loop: Path) -> None:
    _run()
    items = _listed()
    assert runner.invoke(app, ["adjudicate", "out", "--reject", "1", "--accept",
                               str(items[1]["key"]), "--by", "ana"]).exit_code == 0
    assert runner.invoke(app, ["adjudicate", "out", "--export-set", "sets"]).exit_code == 0
    team = _band(["--set", "team_set.jsonl"], "team.json")
    grown = _band(["--set", "team_set.jsonl", "--set", "sets/argument_equivalence.jsonl"],
                  "grown.json")
    assert (team["n"], grown["n"]) == (62, 64) and team["set_sha256"] != grown["set_sha256"]
    assert team["band"] == pytest.approx([0.305, 0.845])
    assert grown["band"] == pytest.approx([0.305, 0.855])
    for record in (team, grown):
        ci = record["cv_decided_kappa_ci"]
        assert isinstance(ci, list) and ci[0] >= 0.8 and record["band_target_kappa"] == 0.8
    # The two hard items people decided (P(pass) 0.50 and 0.49) fall inside the band.
    low, high = grown["band"]  # type: ignore[misc]
    assert low <= 0.49 and high >= 0.5
