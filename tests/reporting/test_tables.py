"""The format-neutral tables: ordering rules, anchors, and summaries with sections missing."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from builders_reporting import as_summary, digest_results, small_summary, write_results
from toolgrade.reporting.files import write_reports
from toolgrade.reporting.run_tables import (
    cases_table,
    gates_table,
    judges_table,
    reliability_table,
)
from toolgrade.reporting.tables import anchor, confusion_matrix, fmt
from toolgrade.reporting.view import build_view


@given(st.lists(st.text(min_size=1, max_size=20), min_size=2, max_size=8, unique=True))
def test_anchors_are_safe_ids_and_distinct(keys: list[str]) -> None:
    anchors = [anchor("case", k) for k in keys]
    assert all(re.fullmatch(r"case-[a-z0-9_-]*", a) for a in anchors)
    assert len(set(anchors)) == len(keys)


def test_confusion_matrix_puts_none_last_on_both_axes() -> None:
    matrix = confusion_matrix(as_summary(small_summary()))
    assert matrix is not None
    assert matrix.labels == ["lookup_order", "refund", "none"]
    assert matrix.actual == ["lookup_order", "refund", "search_orders"]
    assert matrix.counts == [[1, 0, 1], [0, 2, 0], [0, 1, 0]]
    assert matrix.peak == 2


def test_fixed_number_formatting() -> None:
    shown = [fmt(None), fmt(1 / 3), fmt(2), fmt(True), fmt(0.5, 2)]
    assert shown == ["\N{EN DASH}", "0.333", "2", "yes", "0.50"]


def test_reliability_columns_stop_at_the_largest_trial_count(tmp_path: Path) -> None:
    summary = small_summary()
    summary["reliability"] = {f"c{i}": {"n": 12, "c": i, "pass_at_k": {}, "pass_hat_k": {}}
                              for i in range(2)}
    digest = digest_results(write_results(tmp_path / "r.jsonl", []))
    table = reliability_table(as_summary(summary), digest)
    assert table is not None
    assert table.columns[3:9] == ["pass@1", "pass@2", "pass@3", "pass@5", "pass@10", "pass@12"]


def test_reliability_columns_stop_at_the_largest_k_the_summary_holds(tmp_path: Path) -> None:
    summary = small_summary()
    summary["reliability"] = {"c": {"n": 500, "c": 250, "pass_at_k": {}, "pass_hat_k": {}}}
    digest = digest_results(write_results(tmp_path / "r.jsonl", []))
    table = reliability_table(as_summary(summary), digest)
    assert table is not None
    assert table.columns[3:9] == ["pass@1", "pass@2", "pass@3", "pass@5", "pass@10", "pass@32"]


def test_an_empty_run_still_renders_every_report(tmp_path: Path) -> None:
    results = write_results(tmp_path / "results.jsonl", [])
    view = build_view(as_summary({}), digest_results(results))
    assert view.confusion is None and view.failures is None and view.examples == []
    written = write_reports(tmp_path, as_summary({}), results)
    assert "**trajectories** 0" in written[0].read_text(encoding="utf-8")
    assert 'tests="0"' in written[2].read_text(encoding="utf-8")


def test_a_failed_gate_never_shows_the_same_figure_as_its_minimum() -> None:
    summary = {"gates": [
        {"check": "selection", "metric": "f1", "value": 0.8996, "threshold": 0.9, "passed": False},
        {"check": "aggregate", "metric": "pass_rate", "value": 0.9, "threshold": 0.9,
         "passed": True},
    ]}
    table = gates_table(as_summary(summary))
    assert table is not None
    failed, held = table.rows
    assert failed == ["selection.f1", "0.8996", "0.9000", "FAIL"]
    assert held == ["aggregate.pass_rate", "0.900", "0.900", "pass"]


def test_a_stage_count_gate_shows_whole_counts() -> None:
    summary = {"gates": [{"check": "recovery", "metric": "stages.recovered", "value": 13.0,
                          "threshold": 10, "passed": True}]}
    table = gates_table(as_summary(summary))
    assert table is not None and table.rows == [["recovery.stages.recovered", "13", "10", "pass"]]


def test_a_reliability_row_links_its_case_when_the_agent_or_case_holds_an_at_sign(
    tmp_path: Path,
) -> None:
    summary = small_summary()
    summary["agents"] = {"gpt@2024": {"trajectories": 1}, "c": {"trajectories": 1}}
    block = {"n": 1, "c": 1, "pass_at_k": {}, "pass_hat_k": {}}
    summary["reliability"] = {"x@gpt@2024": block, "a@b@c": block}
    records = [{"case_id": case, "checks": {}, "aggregate": {"passed": True}}
               for case in ("x", "a@b", "a")]
    digest = digest_results(write_results(tmp_path / "r.jsonl", records))
    table = reliability_table(as_summary(summary), digest)
    assert table is not None
    links = dict(zip((row[0] for row in table.rows), table.links, strict=True))
    assert links == {"a@b@c": anchor("case", "a@b"), "x@gpt@2024": anchor("case", "x")}


def test_a_case_without_runs_is_a_row_of_the_cases_table(tmp_path: Path) -> None:
    summary = small_summary()
    summary["cases_without_runs"] = ["b-unrun"]
    records = [{"case_id": "a", "checks": {}, "aggregate": {"passed": True}}]
    digest = digest_results(write_results(tmp_path / "r.jsonl", records))
    table = cases_table(digest, as_summary(summary))
    assert table is not None
    assert [row[:4] for row in table.rows] == [["a", "1", "1", "1.000"],
                                               ["b-unrun", "0", "0", "\N{EN DASH}"]]
    assert table.rows[1][4] == "no run"


def test_per_tool_table_shows_free_calls_only_when_the_suite_uses_them() -> None:
    from toolgrade.reporting.check_tables import per_tool_table

    summary = small_summary()
    plain = per_tool_table(as_summary(summary))
    assert plain is not None and "free calls" not in plain.columns
    selection = summary["checks"]["selection"]
    summary["checks"]["selection"] = {**selection, "free_calls": {"search_kb": 3}}
    table = per_tool_table(as_summary(summary))
    assert table is not None and table.columns[-1] == "free calls"
    rows = {row[0]: row for row in table.rows}
    assert rows["search_kb"][1:4] == [fmt(None)] * 3 and rows["search_kb"][-1] == "3"
    assert all(row[-1] == "0" for name, row in rows.items() if name != "search_kb")


def test_cv_kappa_is_shown_beside_the_records_own_kappa() -> None:
    from toolgrade.reporting.tables import cv_kappa_text

    record = {"kappa": 0.42, "kappa_ci": [0.25, 0.58], "cv_kappa": 0.661,
              "cv_kappa_ci": [0.5, 0.81], "cv_threshold": 0.345}
    assert cv_kappa_text(record) == "; cross-validated 0.66 [0.50, 0.81] at cut 0.345"
    assert cv_kappa_text({"kappa": 0.42, "kappa_ci": [0.25, 0.58]}) == ""


def test_the_judges_calibration_shows_the_configuration_in_use_and_what_the_floor_reads() -> None:
    from toolgrade.reporting.tables import calibration_text

    record = {"kappa": -0.02, "kappa_ci": [-0.07, 0.0], "n": 83, "in_use": {
        "coverage": 0.41, "decided_kappa": 0.9, "decided_kappa_ci": [0.81, 0.97],
        "plain_kappa": 0.71, "plain_kappa_ci": [0.54, 0.85], "cut": 0.589, "band": [0.3, 0.7],
        "target_kappa": 0.8, "floor_reads": "cv_decided_kappa"}}
    text = calibration_text(record)
    assert text == ("decides 41% at kappa 0.90 [0.81, 0.97], the rest uncertain; plain kappa "
                    "0.71 [0.54, 0.85] at cut 0.589 (cross-validated, n 83); floor reads the "
                    "decided kappa")
    assert "-0.02" not in text  # the uncut raw kappa is not shown beside it
    nothing = {**record, "in_use": {**record["in_use"], "coverage": 0.0}}  # type: ignore[dict-item]
    assert calibration_text(nothing).startswith("decides no item")


def test_the_judges_table_says_the_signals_judge_asks_no_model() -> None:
    data = small_summary()
    data["judges"]["recovery_quality"]["model"] = "signals"
    table = judges_table(as_summary(data))
    assert table is not None
    models = {row[0]: row[1] for row in table.rows}
    assert models["recovery_quality"] == "signals (deterministic signals, no model asked)"
    assert models["argument_equivalence"] == "local/qwen2.5-1.5b (small local model)"
    assert "adds less than 0.05 ranking AUC" in table.note  # why no model is asked
    assert "[judge.dimensions.<dimension>] model" in table.note  # and how to ask one
    judged = judges_table(as_summary(small_summary()))
    assert judged is not None and judged.note == ""  # no signals judge, no note
