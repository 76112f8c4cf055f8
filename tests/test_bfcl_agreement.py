"""The BFCL agreement benchmark: its checker's rules, and a small live-style run end to end.

No figure of the shared fixtures is asserted here (the script prints those); these keep the
reference checker honest on BFCL's rules and the pipeline from rotting.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture(scope="module")
def bench() -> Any:
    sys.path.insert(0, str(BENCH))
    try:
        import bfcl_agreement
        import bfcl_checker
        yield bfcl_checker, bfcl_agreement
    finally:
        sys.path.remove(str(BENCH))


def _fn(name: str, **props: Any) -> dict[str, Any]:
    return {"name": name, "parameters": {"type": "dict", "properties": props,
                                         "required": list(props)}}


def test_checker_rules_follow_bfcl(bench: Any) -> None:
    checker, _ = bench
    f = _fn("f", n={"type": "integer"}, x={"type": "float"}, s={"type": "string"})
    truth = [{"f": {"n": [5], "x": [2.0], "s": ["New York"]}}]

    def verdict(args: dict[str, Any]) -> bool:
        return bool(checker.check_entry("simple", [f], [{"f": args}], truth)[0])

    assert verdict({"n": 5, "x": 2, "s": "new york"})         # int for float, string leniency
    assert not verdict({"n": 5.0, "x": 2.0, "s": "New York"})  # float for int: type error
    assert not verdict({"n": True, "x": 2.0, "s": "New York"})  # bool is not int
    assert not verdict({"n": 5, "x": 2.0, "s": "New York", "extra": 1})
    g = _fn("g", xs={"type": "array", "items": {"type": "float"}})
    # A possible answer of another type than declared is a "variable": that type passes.
    assert checker.check_entry("simple", [g], [{"g": {"xs": "data['a']"}}],
                               [{"g": {"xs": ["data['a']"]}}])[0]


def test_checker_pairs_parallel_calls_greedily_and_reads_irrelevance(bench: Any) -> None:
    checker, _ = bench
    f = _fn("f", a={"type": "integer"})
    truth = [{"f": {"a": [1, 2]}}, {"f": {"a": [1]}}]
    # Greedy: the first answer takes the call a=1, leaving a=2 for an answer that needs 1.
    assert not checker.check_entry("parallel", [f], [{"f": {"a": 1}}, {"f": {"a": 2}}], truth)[0]
    assert checker.check_entry("parallel", [f], [{"f": {"a": 2}}, {"f": {"a": 1}}], truth)[0]
    assert checker.check_entry("irrelevance", [f], None, None)[0]
    assert checker.check_entry("irrelevance", [f], [], None)[0]
    assert not checker.check_entry("irrelevance", [f], [{"f": {"a": 1}}], None)[0]


def _lines(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_live_style_data_agrees_end_to_end(bench: Any, tmp_path: Path) -> None:
    _, agreement = bench
    headway = _fn("get_headway", ego_info={"type": "dict", "properties": {
        "position": {"type": "dict", "properties": {"lateral": {"type": "float"},
                                                    "longitudinal": {"type": "float"}}},
        "orientation": {"type": "float"}}})
    order = _fn("uber.eat.order", restaurant_id={"type": "string"}, items={
        "type": "array", "items": {"type": "dict"}})
    questions = [
        {"id": "live_multiple_0-0-0", "question": [[{"role": "user", "content": "Headway?"}]],
         "function": [headway, order]},
        {"id": "live_multiple_1-0-1", "question": [[{"role": "user", "content": "Order."}]],
         "function": [order, headway]},
    ]
    answers = [
        {"id": "live_multiple_0-0-0", "ground_truth": [{"get_headway": {"ego_info": [
            {"position": [{"lateral": 10.5, "longitudinal": 50}], "orientation": [30]}]}}]},
        {"id": "live_multiple_1-0-1", "ground_truth": [{"uber.eat.order": {
            "restaurant_id": ["McDonald's"],
            "items": [[{"item": ["burgers"], "quantity": [5]}]]}}]},
    ]
    (tmp_path / "possible_answer").mkdir()
    _lines(tmp_path / "BFCL_v4_live_multiple.json", questions)
    _lines(tmp_path / "possible_answer" / "BFCL_v4_live_multiple.json", answers)
    _lines(tmp_path / "BFCL_v4_live_irrelevance.json", [
        {"id": "live_irrelevance_0-0-0", "question": [[{"role": "user", "content": "Hi"}]],
         "function": [headway]}])
    rows, notes = agreement.measure(tmp_path, seed=1)
    assert notes == []
    assert {r.category for r in rows} == {"live_multiple", "live_irrelevance"}
    assert all(r.toolgrade is not None for r in rows)
    assert {r.variant for r in rows} >= {"correct_fc", "correct_tags", "correct_tool_calls",
                                         "correct_json_list", "correct_python", "wrong_value"}
    assert [r for r in rows if r.toolgrade != r.reference] == []
    assert any(r.reference for r in rows) and not all(r.reference for r in rows)


def _leaderboard(root: Path) -> None:
    """A leaderboard-layout folder: one model (gpt-4o, whose BFCL decoder did not strip code
    fences), simple and relevance, with the leaderboard's verdicts."""
    prefix = "gorilla_openfunctions_v1_test_"
    f = _fn("f", a={"type": "integer"})
    (root / "data" / "possible_answer").mkdir(parents=True)
    model = root / "result" / "gpt-4o-2024-08-06"
    model.mkdir(parents=True)
    (root / "score" / "gpt-4o-2024-08-06").mkdir(parents=True)
    _lines(root / "data" / f"{prefix}simple.json",
           [{"id": f"simple_{n}", "question": "Go.", "function": f} for n in range(3)])
    _lines(root / "data" / "possible_answer" / f"{prefix}simple.json",
           [{"id": f"simple_{n}", "ground_truth": {"f": {"a": [1]}}} for n in range(3)])
    _lines(root / "data" / f"{prefix}relevance.json",
           [{"id": f"relevance_{n}", "question": "Hi.", "function": f} for n in range(2)])
    _lines(model / f"{prefix}simple_result.json", [
        {"id": "simple_0", "result": "[f(a=1)]"},
        {"id": "simple_1", "result": "```json\n[f(a=1)]\n```"},  # BFCL: decoder failed
        {"id": "simple_2", "result": "[f(a=2)]"}])
    _lines(model / f"{prefix}relevance_result.json", [
        {"id": "relevance_0", "result": "```python\n[f(a=1)]\n```"},  # BFCL: no call, pass
        {"id": "relevance_1", "result": "[f(a=1)]"}])
    _lines(root / "score" / "gpt-4o-2024-08-06" / "simple_score.json", [
        {"accuracy": 0.33}, {"id": 2, "error_type": "ast_decoder:decoder_failed"},
        {"id": 3, "error_type": "value_error:others"}])
    _lines(root / "score" / "gpt-4o-2024-08-06" / "relevance_score.json", [
        {"accuracy": 0.5}, {"id": 2, "error_type": "relevance_error:decoder_success"}])


def test_leaderboard_layout_decodes_as_the_models_handler(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCH))
    try:
        import bfcl_leaderboard
    finally:
        sys.path.remove(str(BENCH))
    _leaderboard(tmp_path)
    verdicts, notes = bfcl_leaderboard.measure(tmp_path)
    assert notes == []
    assert [(v.case_id, v.reference, v.toolgrade) for v in verdicts] == [
        ("simple_0", True, True), ("simple_1", False, False), ("simple_2", False, False),
        ("relevance_0", True, True), ("relevance_1", False, False)]
    lenient, _ = bfcl_leaderboard.measure(tmp_path, lenient=True)
    # The lenient reader reads gpt-4o's fenced calls, which BFCL's decoder failed.
    assert [v.case_id for v in lenient if v.toolgrade != v.reference] == [
        "simple_1", "relevance_0"]
